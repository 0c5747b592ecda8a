import { fail, type Failure } from '../../../shared/errors';

/**
 * Before a step on a seat of another host (restart, fresh, fork) stops or creates anything: the
 * host must be known and answering now. Refusing here keeps everything exactly as it was
 * (`nothing` says what was not done); `undefined` for a local seat or a host that answers.
 */
export function hostGate(
  seat: { seat: string; host: string; runtime: string },
  what: string,
  facts: { known: boolean; unreachable?: string },
  nothing = 'nothing was stopped',
): Failure | undefined {
  if (seat.host === 'local') return undefined;
  const evidence = { host: seat.host, seat: seat.seat, operation: what };
  if (!facts.known)
    return fail('HOST_NOT_FOUND', `${seat.seat} runs on host "${seat.host}", which Rigdesk does not know; ${nothing}`, {
      hint: 'Declare it under hosts: in the rig spec, or rigdesk hosts add.',
      evidence,
    });
  if (facts.unreachable !== undefined) {
    return fail(
      'HOST_UNREACHABLE',
      `host ${seat.host} does not answer (${facts.unreachable}); ${what} of ${seat.seat} was refused and ${nothing}`,
      {
        hint: `Rigdesk retries with back-off; check with rigdesk hosts check ${seat.host}.`,
        evidence: { ...evidence, reason: facts.unreachable },
      },
    );
  }
  return undefined;
}

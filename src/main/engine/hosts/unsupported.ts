import { fail, type Failure } from '../../../shared/errors';

/**
 * Operations that still read this machine's files or process table for a seat (fork) refuse a seat on another host rather than decide from the wrong machine's
 * evidence: fail closed until they read the seat's host.
 */
export function notOnHostYet(seat: { seat: string; host: string }, what: string): Failure | undefined {
  if (seat.host === 'local') return undefined;
  return fail('HOST_UNSUPPORTED', `${what} of ${seat.seat} is not supported yet: it runs on host ${seat.host}; nothing was changed`, {
    hint: `Use rigdesk stop ${seat.seat} and rigdesk launch ${seat.seat} (launch resumes its conversation, guarded on ${seat.host}).`,
    evidence: { host: seat.host, seat: seat.seat, operation: what },
  });
}

/**
 * Before a lifecycle step (restart, fresh) stops anything of a seat on another host: the host must
 * be known and answering now, and the runtime one that runs on hosts. Refusing here keeps the
 * seat exactly as it was; `undefined` for a local seat or a host that answers.
 */
export function hostGate(seat: { seat: string; host: string; runtime: string }, what: string, facts: { known: boolean; unreachable?: string; runtimeUnsupported: boolean }): Failure | undefined {
  if (seat.host === 'local') return undefined;
  const evidence = { host: seat.host, seat: seat.seat, operation: what };
  if (facts.runtimeUnsupported) return fail('HOST_UNSUPPORTED', `${seat.runtime} seats cannot run on another host yet; ${what} of ${seat.seat} was refused and nothing was stopped`, { evidence: { ...evidence, runtime: seat.runtime } });
  if (!facts.known) return fail('HOST_NOT_FOUND', `${seat.seat} runs on host "${seat.host}", which Rigdesk does not know; nothing was stopped`, { hint: 'Declare it under hosts: in the rig spec, or rigdesk hosts add.', evidence });
  if (facts.unreachable !== undefined) {
    return fail('HOST_UNREACHABLE', `host ${seat.host} does not answer (${facts.unreachable}); ${what} of ${seat.seat} was refused and nothing was stopped`, {
      hint: `Rigdesk retries with back-off; check with rigdesk hosts check ${seat.host}.`, evidence: { ...evidence, reason: facts.unreachable },
    });
  }
  return undefined;
}

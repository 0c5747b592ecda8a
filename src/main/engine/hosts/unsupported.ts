import { fail, type Failure } from '../../../shared/errors';

/**
 * Operations that still read this machine's files or process table for a seat (restart, fresh,
 * fork, restore) refuse a seat on another host rather than decide from the wrong machine's
 * evidence: fail closed until they read the seat's host.
 */
export function notOnHostYet(seat: { seat: string; host: string }, what: string): Failure | undefined {
  if (seat.host === 'local') return undefined;
  return fail('HOST_UNSUPPORTED', `${what} of ${seat.seat} is not supported yet: it runs on host ${seat.host}; nothing was changed`, {
    hint: `Use rigdesk stop ${seat.seat} and rigdesk launch ${seat.seat} (launch resumes its conversation, guarded on ${seat.host}).`,
    evidence: { host: seat.host, seat: seat.seat, operation: what },
  });
}

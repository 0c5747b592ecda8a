import type { RESTORE_ANSWERS, RESTORE_REQUESTS } from '../../../shared/contract/restore';
import { answerDecision, listDecisions } from '../restore/decisions';
import { forkSeat } from '../restore/fork';
import { reconcile } from '../restore/reconcile';
import { restore } from '../restore/run';
import { snapshotRig } from '../restore/snapshot';
import { freshSeat, restartSeat } from '../restore/lifecycle';
import type { Handlers } from './types';

export const RESTORE_HANDLERS: Handlers<typeof RESTORE_REQUESTS, typeof RESTORE_ANSWERS> = {
  snapshot: (e, p) => snapshotRig(e.ports, p.rig, 'manual'),
  snapshots: async (e, p) => ({ ok: true, snapshots: e.store.restore.snapshots.list(p.rig, p.limit) }),
  restore: (e, p) => restore(e.ports, p.target, { plan: p.plan }),
  decisions: async (e, p) => listDecisions(e.ports, p),
  decide: (e, p) => answerDecision(e.ports, p.id, p.choice, p.reason),
  restart: (e, p) => restartSeat(e.ports, p.seat, { plan: p.plan }),
  fresh: (e, p) => freshSeat(e.ports, p.seat, p.reason, { plan: p.plan }),
  fork: (e, p) => forkSeat(e.ports, p.seat, p.as, { plan: p.plan }),
  reconcile: (e) => reconcile(e.ports),
};

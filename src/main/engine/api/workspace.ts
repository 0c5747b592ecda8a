import type {
  VIEW_ANSWERS,
  VIEW_REQUESTS,
  WORKSPACE_ANSWERS,
  WORKSPACE_REQUESTS,
} from '../../../shared/contract/workspace';
import { fail } from '../../../shared/errors';
import { listSpecFiles } from '../workspace/files';
import { readLayout, saveLayout } from '../workspace/layout';
import { newRig } from '../workspace/new-rig';
import { exampleSpec, runtimesFound } from '../workspace/runtimes';
import { openHandoffs } from '../workspace/handoffs';
import { rigTimeline } from '../workspace/rig-timeline';
import { history, seatTimeline } from '../workspace/timeline';
import type { Handlers } from './types';

export const WORKSPACE_HANDLERS: Handlers<typeof WORKSPACE_REQUESTS, typeof WORKSPACE_ANSWERS> = {
  'workspace.runtimes': async (e) => {
    const example = exampleSpec(e.ports.fs);
    return { ok: true, runtimes: runtimesFound(e.ports), ...(example ? { example } : {}) };
  },
  'workspace.newRig': async (e, p) => newRig(e.ports, p),
  'workspace.timeline': async (e, p) => {
    const found = e.store.rigs.find(p.seat);
    if (!found.ok) return found;
    return { ok: true, seat: found.seat.seat, ...seatTimeline(e.ports, found.seat.seat, p.limit, p.beforeSeq) };
  },
  'workspace.history': async (e, p) => {
    if (p.rig && !e.store.rigs.exists(p.rig)) return fail('RIG_NOT_FOUND', `no rig named ${p.rig}`);
    return { ok: true, items: history(e.ports, p.rig, p.limit) };
  },
  'workspace.files': async (e, p) => listSpecFiles(e.ports, p.dir),
  'workspace.layout': async (e) => {
    const layout = readLayout(e.ports);
    return { ok: true, ...(layout ? { layout } : {}) };
  },
  'workspace.saveLayout': async (e, p) => {
    try {
      saveLayout(e.ports, p.layout);
    } catch (err) {
      // A file system refusal is data; anything else is the engine's own error (INTERNAL).
      if (typeof (err as NodeJS.ErrnoException).code !== 'string') throw err;
      return fail('STORE_FAILED', `the layout could not be saved: ${(err as Error).message}`);
    }
    return { ok: true, saved: true };
  },
};

/** The centre views' reads: the rig timeline's pages and the handoffs drawn on the topology's edges. */
export const VIEW_HANDLERS: Handlers<typeof VIEW_REQUESTS, typeof VIEW_ANSWERS> = {
  'workspace.rigTimeline': async (e, p) => rigTimeline(e.ports, p),
  'workspace.handoffs': async (e, p) => {
    if (p.rig && !e.store.rigs.exists(p.rig)) return fail('RIG_NOT_FOUND', `no rig named ${p.rig}`);
    return { ok: true, handoffs: openHandoffs(e.ports, p.rig) };
  },
};

import { type APP_ANSWERS, type APP_REQUESTS, parseDeepLink, type Topology } from '../../../shared/contract/app';
import { fail } from '../../../shared/errors';
import type { Engine } from '../engine';
import { answerPrompt } from '../prompts/answer';
import { lastReply } from '../prompts/reply';
import { listPrompts } from '../services/prompts';
import { installShim } from '../services/shim';
import type { Handlers } from './types';

/**
 * Windows living in this process (the Electron shell, `rigdesk serve`) register here to receive
 * `open` requests, which reach the engine over its socket from `rigdesk open <seat>` or a deep link.
 * A process with no window (the CLI's in-process engine) has no listener and says so.
 */
type FocusListener = (seat: string) => void;
const focusListeners = new Set<FocusListener>();
export function onFocusRequest(fn: FocusListener): () => void {
  focusListeners.add(fn);
  return () => focusListeners.delete(fn);
}

function topology(engine: Engine, rig?: string): Topology {
  const names = rig ? (engine.store.rigs.exists(rig) ? [rig] : []) : engine.store.rigs.names();
  return {
    rigs: names.map((name) => {
      const pods = new Map<string, Topology['rigs'][number]['pods'][number]>();
      for (const s of engine.store.rigs.seats(name)) {
        const pod = pods.get(s.pod) ?? { id: s.pod, seats: [] };
        pod.seats.push({ seat: s.seat, member: s.member, runtime: s.runtime, cwd: s.cwd });
        pods.set(s.pod, pod);
      }
      return { name, pods: [...pods.values()], edges: engine.store.rigs.edges(name) };
    }),
  };
}

export const APP_HANDLERS: Handlers<typeof APP_REQUESTS, typeof APP_ANSWERS> = {
  topology: async (e, p) => {
    if (p.rig && !e.store.rigs.exists(p.rig)) return fail('RIG_NOT_FOUND', `no rig named ${p.rig}`);
    return { ok: true, ...topology(e, p.rig) };
  },
  open: async (e, p) => {
    const link = parseDeepLink(p.link);
    if (!link.ok) return fail('BAD_USAGE', `refused deep link: ${link.reason}`);
    if (!e.store.rigs.seat(link.seat)) return fail('SEAT_NOT_FOUND', `no seat ${link.seat}`);
    if (focusListeners.size === 0) {
      return fail('ENGINE_UNREACHABLE', 'no Rigdesk window is open in this engine', {
        hint: 'Start the app (or `rigdesk serve`) and try again.',
      });
    }
    for (const fn of focusListeners) fn(link.seat);
    return { ok: true, seat: link.seat, windows: focusListeners.size };
  },
  'prompts.list': async (e, p) => {
    if (p.rig && !e.store.rigs.exists(p.rig)) return fail('RIG_NOT_FOUND', `no rig named ${p.rig}`);
    return listPrompts(e, p.rig);
  },
  'seat.reply': (e, p) => lastReply(e.ports, p.seat),
  'shim.install': async (e, p) =>
    installShim({ env: e.deps.env, fs: e.ports.fs, dir: p.dir, remove: p.remove, plan: p.plan }),
  'prompts.answer': (e, p) =>
    answerPrompt(e.ports, p.seat, p.choice, {
      fingerprint: p.fingerprint,
      reason: p.reason,
      by: p.by,
      ...(p.message !== undefined ? { message: p.message } : {}),
      ...(p.option !== undefined ? { option: p.option } : {}),
    }),
};

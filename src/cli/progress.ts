/**
 * Progress of a slow command: while it runs, the event log's new rows for its seat or rig (what
 * the engine records as it goes: each launch, bind, stop, restore step) are printed as they land,
 * and a line every few seconds when nothing new happened, so a person never watches a silent
 * terminal. Read through the contract's `events` request, the same way for an engine in this
 * process and for a running one; the clock, the timer and the printer are injected.
 */
import type { EngineCall, EventRow, Method } from '../shared/contract';
import { describeEvent } from '../shared/events-text';
import type { EventKind } from '../main/engine/store/event-kinds';

/** Commands that can take seconds: they launch, end or wait for agents. */
export const FOLLOWED: ReadonlySet<Method> = new Set<Method>([
  'up',
  'launch',
  'stop',
  'down',
  'restart',
  'fresh',
  'fork',
  'restore',
  'send',
  'queue.wake',
]);

export const FOLLOW = { pollMs: 400, heartbeatMs: 5000 } as const;

export interface FollowDeps {
  call: EngineCall;
  print: (line: string) => void;
  now: () => number;
  /** Runs `fn` after `ms`; the answer cancels it. */
  after(fn: () => void, ms: number): { cancel(): void };
}

/** Which rows to follow: the command's seat, else its rig, else every row (an up whose spec names no rig it can read). */
export interface FollowTarget {
  seat?: string;
  rig?: string;
  /** The command as a person typed it, for the heartbeat line. */
  label: string;
  json: boolean;
}

/** Runs `work` while printing its progress; without a readable log it just runs `work`. */
export async function withProgress<T>(deps: FollowDeps, target: FollowTarget, work: () => Promise<T>): Promise<T> {
  const start = await deps.call('events', { newest: 1 });
  if (!start.ok) return work();
  let after = start.events.at(-1)?.seq ?? 0;
  const t0 = deps.now();
  let quietSince = t0;
  const filter = target.seat ? { seat: target.seat } : target.rig ? { rig: target.rig } : {};
  const poll = async () => {
    // Progress is a courtesy: a read that fails (the engine went away mid-command) prints nothing
    // and never stands in for the command's own answer.
    const r = await deps.call('events', { afterSeq: after, limit: 500, ...filter }).catch(() => undefined);
    if (!r?.ok) return;
    for (const e of r.events) {
      after = Math.max(after, e.seq);
      const line = progressLine(e, target.json);
      if (line === undefined) continue;
      deps.print(line);
      quietSince = deps.now();
    }
  };
  let done = false;
  let timer: { cancel(): void } | undefined;
  let polling: Promise<void> = Promise.resolve();
  // One poll at a time: the next is armed only when the last has answered.
  const tick = () => {
    polling = poll().then(() => {
      if (done) return;
      if (deps.now() - quietSince >= FOLLOW.heartbeatMs) {
        deps.print(heartbeatLine(target, deps.now() - t0));
        quietSince = deps.now();
      }
      timer = deps.after(tick, FOLLOW.pollMs);
    });
  };
  timer = deps.after(tick, FOLLOW.pollMs);
  try {
    return await work();
  } finally {
    done = true;
    timer?.cancel();
    await polling;
    await poll();
  }
}

/** The kinds a command is followed by; the rest (activity, fence steps, binds) are the engine's own detail. */
const SHOWN: ReadonlySet<string> = new Set<EventKind>([
  'rig.up',
  'rig.down',
  'seat.launch',
  'seat.launch_refused',
  'seat.conversation_bound',
  'seat.stop',
  'seat.kill',
  'seat.kill_not_removed',
  'seat.already_gone',
  'seat.send',
  'seat.send_refused',
  'seat.send_held',
  'seat.restart',
  'seat.fresh_with_reason',
  'seat.fork',
  'restore.started',
  'restore.planned',
  'restore.seat',
  'restore.finished',
  'restore.rolled_back',
  'decision.opened',
  'snapshot.taken',
  'queue.wake',
  'queue.wake_held',
  'host.unreachable',
]);

/** A row as one progress line: `<seat or rig>: <what happened>`, or its JSON under --json. */
export function progressLine(e: EventRow, json: boolean): string | undefined {
  if (!SHOWN.has(e.kind)) return undefined;
  if (json) return JSON.stringify({ progress: e });
  return `${e.seat ?? e.rig ?? 'rigdesk'}: ${describeEvent(e)}`;
}

export function heartbeatLine(target: FollowTarget, ms: number): string {
  const s = Math.round(ms / 1000);
  return target.json
    ? JSON.stringify({ progress: { waiting: target.label, seconds: s } })
    : `rigdesk ${target.label}: still working (${s} s)`;
}

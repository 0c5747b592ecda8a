import type { EventRow } from '../../src/shared/contract';
import { ACTION_KINDS, type ActionKind, type ActionRecord } from './actions';
import { RIG } from './rig';

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : 0;
};

/** Per action kind: how many, how many answered, p50/p95/max of the time to the answer. */
export function actionFigures(records: readonly ActionRecord[]) {
  const byKind = Object.fromEntries(
    ACTION_KINDS.map((k) => {
      const rs = records.filter((r) => r.kind === k);
      const ms = rs.map((r) => r.ms);
      return [
        k,
        {
          n: rs.length,
          ok: rs.filter((r) => r.outcome === 'ok').length,
          refused: rs.filter((r) => r.outcome === 'refused').length,
          unanswered: rs.filter((r) => r.outcome === 'hang' || r.outcome === 'crash').length,
          p50: pct(ms, 50),
          p95: pct(ms, 95),
          max: ms.length ? Math.max(...ms) : 0,
        },
      ];
    }),
  );
  const codes: Record<string, number> = {};
  const codesByKind: Record<string, number> = {};
  const samples: Record<string, string> = {};
  for (const r of records) {
    if (!r.code) continue;
    const key = `${r.kind} ${r.code}`;
    codes[r.code] = (codes[r.code] ?? 0) + 1;
    codesByKind[key] = (codesByKind[key] ?? 0) + 1;
    samples[key] ??= withoutMachinePaths(`${r.seat ?? ''}: ${r.message ?? ''}`);
  }
  const unanswered = records.filter((r) => r.outcome === 'hang' || r.outcome === 'crash');
  return {
    actions: records.length,
    answered: records.length - unanswered.length,
    unanswered: unanswered.length,
    unansweredDetail: unanswered
      .slice(0, 30)
      .map((r) => withoutMachinePaths(`#${r.n} ${r.kind} ${r.seat ?? ''}: ${r.outcome} ${r.detail ?? ''}`)),
    byKind,
    codes: Object.fromEntries(Object.entries(codes).sort((a, b) => b[1] - a[1])),
    codesByKind: Object.fromEntries(Object.entries(codesByKind).sort((a, b) => b[1] - a[1])),
    /** One message per action kind and code, as the CLI said it. */
    codeSamples: samples,
  };
}

/** A message as the results file keeps it: a socket or folder by its last name, not this machine's path. */
function withoutMachinePaths(text: string): string {
  return text.replace(/\/(?:[^\s/:'"]+\/)+([^\s/:'"]+)/g, '…/$1');
}

/**
 * Refusals that come before the engine looks at a seat (no seat, bad words), or with no answer from
 * it (a send whose engine the soak restarts under it: the socket closes before it answers, and
 * whether it recorded anything first is not known): nothing to expect in the log.
 */
const UNRECORDED_REFUSALS = new Set(['SEAT_NOT_FOUND', 'BAD_USAGE', 'RIG_NOT_FOUND', 'ENGINE_UNREACHABLE']);

/** The event kinds (any one of) an action's answer must have left in the log; none: not recorded. */
export function recordExpected(r: ActionRecord): string[] {
  // A stop that found nothing running only sets the seat's stop flag, which the log does not record.
  if (r.kind === 'stop' && r.stopped === 'not_running') return [];
  if (r.outcome === 'ok') {
    const okKinds: Partial<Record<ActionKind, string[]>> = {
      up: ['rig.up'],
      down: ['rig.down'],
      stop: ['seat.stop'],
      launch: ['seat.launch'],
      restart: ['seat.restart'],
      fresh: ['seat.fresh_with_reason'],
      send: ['seat.send'],
      answer: ['seat.prompt_answered'],
    };
    return okKinds[r.kind] ?? [];
  }
  if (r.outcome === 'refused' && r.kind === 'send' && !UNRECORDED_REFUSALS.has(r.code ?? ''))
    return ['seat.send_held', 'seat.send_refused'];
  return [];
}

/**
 * Whether the event log holds a record of every action that should leave one: each such action is
 * matched to its own event (same seat, or the rig for up/down; written between the action's start
 * and a few seconds after its answer), no event counted twice.
 */
export function eventLogCheck(records: readonly ActionRecord[], events: readonly EventRow[], slackMs = 5_000) {
  const used = new Set<number>();
  const missing: string[] = [];
  let expected = 0;
  for (const r of [...records].sort((a, b) => a.startedAt - b.startedAt)) {
    const kinds = recordExpected(r);
    if (kinds.length === 0) continue;
    expected++;
    const rigLevel = r.kind === 'up' || r.kind === 'down';
    const hit = events.find(
      (e) =>
        !used.has(e.seq) &&
        kinds.includes(e.kind) &&
        (rigLevel ? e.rig === RIG : e.seat === r.seat) &&
        e.at >= r.startedAt - 1_000 &&
        e.at <= r.endedAt + slackMs,
    );
    if (hit) used.add(hit.seq);
    else
      missing.push(
        `#${r.n} ${r.kind} ${r.seat ?? RIG} (${r.outcome}${r.code ? ` ${r.code}` : ''}) wants ${kinds.join('|')}`,
      );
  }
  return { events: events.length, expected, recorded: expected - missing.length, missing: missing.slice(0, 50) };
}

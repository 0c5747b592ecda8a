import type { NeedsInputReason } from '../runtimes/types';

/**
 * Activity is decided from evidence, strongest first; each piece has an age and expires. Three
 * axes per seat: the session, the activity and what (if anything) the seat needs from a person.
 * Unknown is never idle.
 */
export type SessionAxis = 'present' | 'detached' | 'exited' | 'absent';
export type ActivityAxis = 'starting' | 'working' | 'idle' | 'unknown';
export type EvidenceSource = 'hook' | 'live_state' | 'transcript' | 'screen' | 'process' | 'launch';

export interface Evidence {
  source: EvidenceSource;
  at: number;
  activity?: 'working' | 'idle';
  needsInput?: NeedsInputReason;
  draft?: string;
  detail?: string;
}

export interface SeatActivity {
  session: SessionAxis;
  activity: ActivityAxis;
  needsInput: NeedsInputReason | 'none';
  /** A person's unsent text in the agent's input box, if the screen shows one. */
  draft?: string;
  /** The evidence that decided each axis, strongest first. */
  basis: { source: EvidenceSource; detail?: string; ageMs: number }[];
  /** While `starting`: what the evidence alone says (a launch's checks read a program's first state). */
  beneath?: 'working' | 'idle' | 'unknown';
  at: number;
}

export const RANK: Record<EvidenceSource, number> = {
  hook: 5,
  live_state: 4,
  transcript: 3,
  screen: 2,
  process: 1,
  launch: 0,
};

/** How long a piece of evidence is believed without being seen again. */
export const TTL_MS: Record<EvidenceSource, number> = {
  hook: 30_000,
  live_state: 10_000,
  transcript: 20_000,
  screen: 5_000,
  process: 5_000,
  launch: Number.POSITIVE_INFINITY,
};

/**
 * A seat is starting from its launch until evidence says it is ready (idle, or waiting for a
 * person) or its runtime's start time has passed, whichever comes first: what a program does while
 * it starts (a shell's start-up children, an agent's splash) is not a turn.
 */
export interface StartWindow {
  launchedAt: number;
  startMs: number;
  /** Evidence already said this launch was ready (an earlier look on this engine). */
  readySeen: boolean;
}

export function decideActivity(input: {
  session: SessionAxis;
  evidence: readonly Evidence[];
  now: number;
  start?: StartWindow;
}): SeatActivity {
  const { session, now } = input;
  if (session !== 'present') return { session, activity: 'unknown', needsInput: 'none', basis: [], at: now };
  const live = input.evidence
    .filter((e) => now - e.at <= TTL_MS[e.source])
    .sort((a, b) => RANK[b.source] - RANK[a.source] || b.at - a.at);
  const basis = (e: Evidence) => ({ source: e.source, detail: e.detail, ageMs: now - e.at });
  // What a seat waits for outranks what it is doing: a Codex turn at a permission prompt is both
  // "working" by its transcript and "needs permission" by its screen, and the person must answer.
  const need = live.find((e) => e.needsInput !== undefined);
  const act = live.find((e) => e.activity !== undefined);
  const draftFrom = live.find((e) => e.draft !== undefined);
  // Nothing claims an activity, but a reader said why it would not (Qwen's token-less spinner): keep that reason.
  const why = act ? undefined : live.find((e) => e.activity === undefined && e.needsInput === undefined && e.detail);
  const out: SeatActivity = {
    session,
    activity: act?.activity ?? 'unknown',
    needsInput: need?.needsInput ?? 'none',
    basis: [need, act ?? why].filter((e): e is Evidence => e !== undefined).map(basis),
    at: now,
  };
  if (draftFrom?.draft) out.draft = draftFrom.draft;
  // Only what cannot tell a start from a turn gives way to `starting`: nothing known, or a process
  // in front (a shell's start-up children). A hook, a transcript or a screen that says working is a
  // turn, even inside the start time (a look from a new process has no memory of an earlier ready).
  const weak = act === undefined || act.source === 'process';
  return weak ? startingOr(out, input.start, now) : out;
}

/** Whether a decided activity says the seat is ready: it is idle, or it waits for a person. */
export function saysReady(a: SeatActivity): boolean {
  return a.session === 'present' && (a.activity === 'idle' || a.needsInput !== 'none');
}

/** Inside the start window of a launch no look has yet seen ready. */
export function withinStart(start: StartWindow, now: number): boolean {
  const age = now - start.launchedAt;
  return !start.readySeen && age >= 0 && age < start.startMs;
}

function startingOr(out: SeatActivity, start: StartWindow | undefined, now: number): SeatActivity {
  if (!start || !withinStart(start, now) || saysReady(out)) return out;
  const age = now - start.launchedAt;
  return {
    ...out,
    activity: 'starting',
    beneath: out.activity === 'starting' ? 'unknown' : out.activity,
    basis: [
      {
        source: 'launch',
        detail: `launched ${Math.round(age / 100) / 10} s ago (ready within ${start.startMs / 1000} s)`,
        ageMs: age,
      },
      ...out.basis,
    ],
  };
}

/** The activity the evidence alone shows, `starting` set aside. */
export function evidencedActivity(a: SeatActivity): 'working' | 'idle' | 'unknown' {
  return a.activity === 'starting' ? (a.beneath ?? 'unknown') : a.activity;
}

/** The single word the topology and `ps` show. */
export function activityLabel(a: SeatActivity): 'starting' | 'working' | 'idle' | 'needs_input' | 'exited' | 'unknown' {
  if (a.session === 'exited') return 'exited';
  if (a.session !== 'present') return 'unknown';
  if (a.needsInput !== 'none') return 'needs_input';
  return a.activity;
}

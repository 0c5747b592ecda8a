import { z } from 'zod';
import type { AnswerSchemas } from './answer';
import { queueState } from './activity';
import { eventRow, rigName, seatRef } from './engine';

/**
 * What the supervisor's window asks the engine beside the CLI's requests: the agent CLIs on this
 * machine and a first rig for them, a seat's timeline and the answered decisions from the event
 * log, spec files to pick, and the window's layout (kept in the engine's home, so it survives a
 * reload and a restart of the window whatever its origin).
 */

export const GRIDS = ['1', '1x2', '2x2', '3x3'] as const;
export const grid = z.enum(GRIDS);
export type Grid = z.output<typeof grid>;
/** Slots per grid. */
export const GRID_SLOTS: Readonly<Record<Grid, number>> = { '1': 1, '1x2': 2, '2x2': 4, '3x3': 9 };

export const PANELS = ['decisions', 'details', 'none'] as const;

/**
 * What the centre of the window shows: the grid of terminals, the rig drawn, its timeline, the
 * restore review, its usage over time.
 */
export const VIEWS = ['grid', 'topology', 'timeline', 'restore', 'usage'] as const;
export const centreView = z.enum(VIEWS);
export type CentreView = z.output<typeof centreView>;

/** The window's layout: the grid, which seat each slot shows (and whether it is pinned), focus. */
export const windowLayout = z.strictObject({
  grid,
  /** One entry per slot of the largest grid; a smaller grid shows the first ones. */
  slots: z.array(seatRef.nullable()).max(9),
  pinned: z.array(z.boolean()).max(9),
  focus: z.number().int().min(0).max(8),
  magnified: z.boolean(),
  rail: z.boolean(),
  panel: z.enum(PANELS),
  /** Optional, so a layout saved before the centre had views still loads (as the grid). */
  view: centreView.optional(),
});
export type WindowLayout = z.output<typeof windowLayout>;

const memberCount = z.number().int().min(1).max(20);

export const WORKSPACE_REQUESTS = {
  /** The agent CLIs on this machine's PATH, found as `doctor` finds them. */
  'workspace.runtimes': z.strictObject({}),
  /**
   * A first rig: `members` seats of one runtime working in `folder`. With `write` false it only
   * shows the spec and where it would go; with `write` true it writes it (never over a file).
   */
  'workspace.newRig': z.strictObject({
    name: z.string().min(1).max(48),
    folder: z.string().min(1).max(4096),
    runtime: z.string().min(1).max(40),
    members: memberCount,
    write: z.boolean(),
  }),
  /** A seat's last events, oldest first (its timeline), optionally only those before a seq. */
  'workspace.timeline': z.strictObject({
    seat: seatRef,
    limit: z.number().int().min(1).max(1000).optional(),
    beforeSeq: z.number().int().min(1).optional(),
  }),
  /** The answered decisions and prompts, newest first: what, who, when, and the reason given. */
  'workspace.history': z.strictObject({ rig: rigName.optional(), limit: z.number().int().min(1).max(500).optional() }),
  /** Folders and rig specs (.yaml, .yml) in a folder, for the window's spec picker. */
  'workspace.files': z.strictObject({ dir: z.string().min(1).max(4096).optional() }),
  'workspace.layout': z.strictObject({}),
  'workspace.saveLayout': z.strictObject({ layout: windowLayout }),
} as const;

export const runtimeFound = z.strictObject({
  runtime: z.string(),
  /** Whether it keeps conversations of its own (an agent CLI); a plain program (shell) keeps none. */
  conversations: z.boolean(),
  binary: z.string(),
  /** Where it is on PATH; absent when it is not installed. */
  path: z.string().optional(),
  /** How to install it when it is missing. */
  hint: z.string().optional(),
});
export type RuntimeFound = z.output<typeof runtimeFound>;

export const historyItem = z.strictObject({
  seq: z.number().int(),
  at: z.number(),
  seat: z.string().nullable(),
  rig: z.string().nullable(),
  /** A permission prompt answered, a refused answer, or a restore decision answered. */
  kind: z.enum(['prompt', 'prompt_refused', 'decision']),
  choice: z.string(),
  /** What was decided on, in a line (the prompt's tool call, the decision's reason). */
  what: z.string(),
  /** Who answered, when the event says (the window, the CLI). */
  by: z.string().optional(),
  reason: z.string().optional(),
  code: z.string().optional(),
});
export type HistoryItem = z.output<typeof historyItem>;

export const fileEntry = z.strictObject({ name: z.string(), kind: z.enum(['dir', 'spec']) });

export const WORKSPACE_ANSWERS = {
  'workspace.runtimes': z.strictObject({
    runtimes: z.array(runtimeFound),
    /** The bundled example rig (shell seats only), when this install has it. */
    example: z.string().optional(),
  }),
  'workspace.newRig': z.strictObject({ path: z.string(), yaml: z.string(), written: z.boolean() }),
  'workspace.timeline': z.strictObject({ seat: z.string(), events: z.array(eventRow), more: z.boolean() }),
  'workspace.history': z.strictObject({ items: z.array(historyItem) }),
  'workspace.files': z.strictObject({ dir: z.string(), parent: z.string().optional(), entries: z.array(fileEntry) }),
  'workspace.layout': z.strictObject({ layout: windowLayout.optional() }),
  'workspace.saveLayout': z.strictObject({ saved: z.literal(true) }),
} as const satisfies AnswerSchemas<typeof WORKSPACE_REQUESTS>;

// ---- the centre's views: the rig timeline and the open handoffs ------------------------------

/** The rig timeline's kinds: each event kind belongs to one (or to none, and shows only unfiltered). */
export const TIMELINE_KINDS = [
  'launch',
  'bind',
  'refusal',
  'activity',
  'send',
  'decision',
  'restore',
  'queue',
  'work',
] as const;
export const timelineKind = z.enum(TIMELINE_KINDS);
export type TimelineKind = z.output<typeof timelineKind>;

/**
 * Which timeline kind each event kind is. The engine filters by these lists and the window labels
 * live rows with them, so both read one table; a test in the engine keeps it complete.
 */
export const TIMELINE_GROUPS = {
  launch: [
    'rig.up',
    'rig.down',
    'seat.launch',
    'seat.stop',
    'seat.kill',
    'seat.kill_not_removed',
    'seat.already_gone',
    'seat.restart',
    'seat.fresh_with_reason',
    'seat.fork',
  ],
  bind: ['seat.identity_bound', 'seat.conversation_bound'],
  refusal: ['seat.launch_refused', 'seat.send_refused', 'seat.prompt_answer_refused'],
  activity: ['seat.activity'],
  work: ['worktree.created', 'worktree.removed', 'review.sent', 'merge.done', 'merge.refused'],
  send: ['seat.send', 'seat.send_held', 'seat.send_override'],
  decision: ['decision.opened', 'decision.answered', 'seat.prompt_answered', 'budget.reached', 'budget.released'],
  restore: [
    'snapshot.taken',
    'restore.started',
    'restore.planned',
    'restore.seat',
    'restore.finished',
    'restore.rolled_back',
    'reconcile.ended_gone',
    'reconcile.run_interrupted',
    'reconcile.unexplained',
    'reconcile.done',
  ],
  queue: ['queue.created', 'queue.moved', 'queue.wake', 'queue.wake_held'],
} as const satisfies Record<TimelineKind, readonly string[]>;

/** Steps that say nothing to a person about a rig (the create fence's, a host's health, a device's): never in the timeline. */
export const TIMELINE_QUIET_PREFIXES = ['fence.', 'host.', 'device.'] as const;

const KIND_OF = new Map(
  TIMELINE_KINDS.flatMap((group) => TIMELINE_GROUPS[group].map((k): [string, TimelineKind] => [k, group])),
);
export function timelineKindOf(kind: string): TimelineKind | undefined {
  return KIND_OF.get(kind);
}
export const isQuietEvent = (kind: string): boolean => TIMELINE_QUIET_PREFIXES.some((p) => kind.startsWith(p));

/** A queue item handed from one seat to another and not closed yet: drawn on their edge. */
export const handoffItem = z.strictObject({
  id: z.number().int(),
  rig: z.string(),
  from: z.string(),
  to: z.string(),
  state: queueState,
  /** The item's first line, cut to 200 characters. */
  title: z.string(),
  at: z.number(),
});
export type HandoffItem = z.output<typeof handoffItem>;

export const VIEW_REQUESTS = {
  /**
   * A rig's events, newest first, one page at a time (keyset: `beforeSeq` is the last seq of the
   * page before), optionally only some seats' and some kinds'.
   */
  'workspace.rigTimeline': z.strictObject({
    rig: rigName,
    seats: z.array(seatRef).min(1).max(200).optional(),
    kinds: z.array(timelineKind).min(1).max(TIMELINE_KINDS.length).optional(),
    beforeSeq: z.number().int().min(1).optional(),
    limit: z.number().int().min(1).max(500).optional(),
  }),
  /** Queue items handed between seats and still open or claimed, of one rig or every one. */
  'workspace.handoffs': z.strictObject({ rig: rigName.optional() }),
} as const;

export const VIEW_ANSWERS = {
  /** `more`: older events match beyond this page. */
  'workspace.rigTimeline': z.strictObject({ rig: z.string(), events: z.array(eventRow), more: z.boolean() }),
  'workspace.handoffs': z.strictObject({ handoffs: z.array(handoffItem) }),
} as const satisfies AnswerSchemas<typeof VIEW_REQUESTS>;

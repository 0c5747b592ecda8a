import { z } from 'zod';
import type { AnswerSchemas } from './answer';
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

import { z } from 'zod';
import type { AnswerSchemas } from './answer';
import { rigName, seatRef } from './engine';
import { sentText } from './engine-answers';

/**
 * What each seat changed, and the work loop around it: the changed files of a seat's worktree
 * (or of the checkout it shares), one file's diff, a review sent back to the seat, the merge gate,
 * and a worktree's removal. Requests are named `domain.verb`.
 */

const path = z.string().min(1).max(4096);

export const changedFile = z.strictObject({
  path: z.string(),
  /** The path before a rename. */
  from: z.string().optional(),
  status: z.enum(['added', 'modified', 'deleted', 'renamed']),
  added: z.number().int().nonnegative(),
  removed: z.number().int().nonnegative(),
  /** Git counts no lines of a binary file. */
  binary: z.literal(true).optional(),
});
export type ChangedFileRow = z.output<typeof changedFile>;

/** Two seats of one rig that changed the same paths (in different working trees). */
export const overlap = z.strictObject({ seat: z.string(), paths: z.array(z.string()) });
export type Overlap = z.output<typeof overlap>;

export const seatChanges = z.strictObject({
  seat: z.string(),
  rig: z.string(),
  host: z.string().optional(),
  /** The seat's own worktree, when the spec gives it one. */
  worktree: z.string().optional(),
  /** Its branch (`rigdesk/<rig>/<member>`) and the base it is compared with. */
  branch: z.string().optional(),
  base: z.string().optional(),
  /** The working tree's top folder (the worktree, or the checkout the seat's cwd is in). */
  tree: z.string().optional(),
  /** Other seats in the same working tree: their changes cannot be told apart. */
  sharedWith: z.array(z.string()),
  files: z.array(changedFile),
  overlaps: z.array(overlap),
  /** When these figures were read from git (ms epoch). */
  readAt: z.number().optional(),
  /** Why there are no figures (not a repository, its host unreachable, the folder gone). */
  problem: z.strictObject({ code: z.string(), message: z.string(), hint: z.string().optional() }).optional(),
});
export type SeatChanges = z.output<typeof seatChanges>;

export { type ChangeTotals, changeTotals, type PsChanges } from './change-totals';

export const reviewComment = z.strictObject({
  path,
  line: z.number().int().min(1).max(10_000_000),
  /** A removed line is cited by its old number. */
  side: z.enum(['old', 'new']).optional(),
  text: z.string().trim().min(1).max(8_000),
});
export type ReviewComment = z.output<typeof reviewComment>;

export const CHANGES_REQUESTS = {
  /** One seat's changes, or every seat of a rig with the overlaps between them. */
  'changes.list': z
    .strictObject({ seat: seatRef.optional(), rig: rigName.optional() })
    .refine((p) => (p.seat === undefined) !== (p.rig === undefined), { message: 'give a seat or a rig, not both' }),
  /** The unified diff of a seat's changes, or of one file of them. */
  'changes.diff': z.strictObject({ seat: seatRef, path: path.optional() }),
  /** A review: one message citing each file:line and comment, delivered through safe send. */
  'review.send': z.strictObject({
    seat: seatRef,
    comments: z.array(reviewComment).min(1).max(500),
    note: z.string().trim().max(8_000).optional(),
    /** Seconds to wait for the seat to be idle before the send is held (as `send`). */
    waitForIdle: z.number().min(0).max(86_400).optional(),
  }),
  /** Merge the seat's branch into its base (or `into`) through the gate. */
  'merge.run': z.strictObject({ seat: seatRef, into: z.string().min(1).max(250).optional() }),
  /** Remove the seat's worktree; refused while it holds work unless `force`. */
  'worktree.remove': z.strictObject({ seat: seatRef, force: z.boolean().optional() }),
} as const;

export const CHANGES_ANSWERS = {
  'changes.list': z.strictObject({ seats: z.array(seatChanges) }),
  'changes.diff': z.strictObject({
    seat: z.string(),
    path: z.string().optional(),
    patch: z.string(),
    truncated: z.boolean(),
  }),
  'review.send': z.strictObject({ message: z.string(), sent: sentText }),
  'merge.run': z.strictObject({
    seat: z.string(),
    branch: z.string(),
    into: z.string(),
    commit: z.string(),
    /** Nothing to merge: the base already holds the branch. */
    upToDate: z.boolean(),
    /** The working tree of the base that was fast-forwarded, when the base is checked out. */
    updatedTree: z.string().optional(),
    /** The rig's checks, when the spec declares them: the command and the tail of its output. */
    checks: z.strictObject({ command: z.array(z.string()), ok: z.boolean(), tail: z.string() }).optional(),
  }),
  'worktree.remove': z.strictObject({
    seat: z.string(),
    path: z.string(),
    branch: z.string(),
    branchDeleted: z.boolean(),
    keptCommits: z.number().int().nonnegative(),
  }),
} as const satisfies AnswerSchemas<typeof CHANGES_REQUESTS>;

import { z } from 'zod';

/** What `ps` carries per seat about its work: the totals, for a badge, and what puts it at risk. */
export const changeTotals = z.strictObject({
  files: z.number().int().nonnegative(),
  added: z.number().int().nonnegative(),
  removed: z.number().int().nonnegative(),
});
export type ChangeTotals = z.output<typeof changeTotals>;

export const psChanges = changeTotals.extend({
  /** Seats in the same working tree: their changes cannot be told apart. */
  sharedWith: z.array(z.string()).optional(),
  /** Seats of the rig, in other trees, that changed some of the same paths. */
  overlapsWith: z.array(z.string()).optional(),
});
export type PsChanges = z.output<typeof psChanges>;

/** A seat's own worktree, as ps and the rail name it. */
export const psWorktree = z.strictObject({ path: z.string(), branch: z.string(), base: z.string() });

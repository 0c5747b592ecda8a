import { z } from 'zod';
import { type AnswerSchemas, untypedAnswer } from './answer';
import { seatRef } from './engine';

/** Activity, safe delivery and the queue. */

const itemId = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
const actor = z.string().trim().min(1).max(200);
const note = z.string().trim().min(1).max(10_000);

export const ACTIVITY_REQUESTS = {
  /** Queue work for a seat. A seat with no live writer needs forNextResume: the item waits for its next run. */
  'queue.add': z.strictObject({
    seat: seatRef,
    text: z.string().trim().min(1).max(100_000),
    forNextResume: z.boolean().optional(),
    by: actor.optional(),
  }),
  /** Items not done (all: done too), oldest first. */
  'queue.list': z.strictObject({ seat: seatRef.optional(), all: z.boolean().optional() }),
  /** One item and every transition it went through. */
  'queue.show': z.strictObject({ id: itemId }),
  'queue.claim': z.strictObject({ id: itemId, by: actor.optional() }),
  'queue.handoff': z.strictObject({
    id: itemId,
    seat: seatRef,
    forNextResume: z.boolean().optional(),
    by: actor.optional(),
    note: note.optional(),
  }),
  /** Closing an item always says how it ended. */
  'queue.done': z.strictObject({ id: itemId, note, by: actor.optional() }),
  'queue.block': z.strictObject({ id: itemId, note, by: actor.optional() }),
  /** One wake pass now (the engine also runs one on a timer). */
  'queue.wake': z.strictObject({ seat: seatRef.optional() }),
} as const;

/** What each request answers beside `ok: true`. */
export const ACTIVITY_ANSWERS = {
  'queue.add': untypedAnswer,
  'queue.list': untypedAnswer,
  'queue.show': untypedAnswer,
  'queue.claim': untypedAnswer,
  'queue.handoff': untypedAnswer,
  'queue.done': untypedAnswer,
  'queue.block': untypedAnswer,
  'queue.wake': untypedAnswer,
} as const satisfies AnswerSchemas<typeof ACTIVITY_REQUESTS>;

/** One queued work item as the engine returns it (queue.list, queue.show). */
export interface QueueItem {
  id: number;
  seat: string;
  body: string;
  state: 'open' | 'claimed' | 'done' | 'blocked';
  createdBy: string | null;
  claimedBy: string | null;
  note: string | null;
  forNextResume: boolean;
  createdAt: number;
  updatedAt: number;
}

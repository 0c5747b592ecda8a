import { z } from 'zod';
import type { AnswerSchemas } from './answer';
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

export const QUEUE_STATES = ['open', 'claimed', 'done', 'blocked'] as const;
export const queueState = z.enum(QUEUE_STATES);
export type QueueState = z.output<typeof queueState>;

export const QUEUE_MOVES = ['claim', 'handoff', 'done', 'block'] as const;
export const queueMove = z.enum(QUEUE_MOVES);
export type QueueMove = z.output<typeof queueMove>;

const at = z.number();

/** One queued work item as the engine returns it. */
export const queueItem = z.strictObject({
  id: itemId,
  seat: z.string(),
  body: z.string(),
  state: queueState,
  createdBy: z.string().nullable(),
  claimedBy: z.string().nullable(),
  /** The item's latest note: how it ended, or what blocks it. */
  note: z.string().nullable(),
  /** Queued for a seat with no live writer, to be read on its next run. */
  forNextResume: z.boolean(),
  createdAt: at,
  updatedAt: at,
});
export type QueueItem = z.output<typeof queueItem>;

/** One row of an item's append-only history; its first is the `create`. */
export const queueTransition = z.strictObject({
  id: z.number().int(),
  item: itemId,
  /** null only on rows written before moves were recorded. */
  move: z.enum([...QUEUE_MOVES, 'create']).nullable(),
  from: queueState.nullable(),
  to: queueState,
  fromSeat: z.string().nullable(),
  toSeat: z.string().nullable(),
  actor: z.string().nullable(),
  note: z.string().nullable(),
  at,
});
export type QueueTransition = z.output<typeof queueTransition>;

/**
 * What one wake pass did for one seat, by outcome: each outcome carries exactly what it knows (the
 * token of the wake row it is about, the attempt, when the next try is due).
 */
const wakeOf = <O extends string, S extends z.ZodRawShape>(outcome: O, shape: S) =>
  z.strictObject({ seat: z.string(), outcome: z.literal(outcome), items: z.array(itemId), ...shape });
const token = z.string().min(1);
const attempt = z.number().int().min(0);
export const wakeReport = z.discriminatedUnion('outcome', [
  /** The notice was typed now. */
  wakeOf('woken', { token, attempt }),
  /** An interrupted pass had typed it: found on the pane, recorded as woken, not typed again. */
  wakeOf('recovered', { token, attempt }),
  /** The seat could not take it (busy, a prompt, a draft, a held send); retried at nextAt. */
  wakeOf('held', { token, why: z.string(), attempt, nextAt: at }),
  /**
   * The seat is at its usage limit, or its pod's (rig's) budget is reached (`why: budget`, with its
   * `decision`): no retries on the ladder, looked at again at nextAt.
   */
  wakeOf('parked', { token, why: z.string(), nextAt: at, decision: z.number().int().optional() }),
  /** This occupant was already told about exactly these items. */
  wakeOf('already_woken', { token }),
  /** A held wake whose next try is not due yet. */
  wakeOf('not_due', { token, nextAt: at }),
  /** Another waker holds the row (token known when this pass read it). */
  wakeOf('in_flight', { token: token.optional() }),
  /** The seat has no live occupant; its items wait for its next run. */
  wakeOf('not_running', {}),
]);
export type WakeReport = z.output<typeof wakeReport>;
export type WakeOutcome = WakeReport['outcome'];

/** An item after a move, and where it was before. */
const moved = z.strictObject({ item: queueItem, from: queueState, fromSeat: z.string() });

/** What each request answers beside `ok: true`. */
export const ACTIVITY_ANSWERS = {
  /** writer: whether the seat had a live writer (none: the item was queued for its next run). */
  'queue.add': z.strictObject({ item: queueItem, writer: z.enum(['live', 'none']) }),
  'queue.list': z.strictObject({ items: z.array(queueItem) }),
  'queue.show': z.strictObject({ item: queueItem, transitions: z.array(queueTransition) }),
  'queue.claim': moved,
  'queue.handoff': moved,
  'queue.done': moved,
  'queue.block': moved,
  'queue.wake': z.strictObject({ wakes: z.array(wakeReport) }),
} as const satisfies AnswerSchemas<typeof ACTIVITY_REQUESTS>;

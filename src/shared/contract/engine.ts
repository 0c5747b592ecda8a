import { z } from 'zod';
import type { AnswerSchemas } from './answer';
import {
  attachAnswer,
  captureAnswer,
  doctorAnswer,
  downAnswer,
  eventsAnswer,
  launchAnswer,
  sendAnswer,
  stopAnswer,
  upAnswer,
} from './engine-answers';
import { psAnswer } from './ps';

/** Engine core: rigs, seats, sessions. */

export const seatRef = z.string().min(1).max(200);
export const rigName = z.string().min(1).max(200);

export const ENGINE_REQUESTS = {
  up: z.strictObject({ spec: z.string().min(1).max(4096) }),
  /**
   * `changes`: read each seat's changes now where the engine does not keep them (a one-shot CLI
   * engine); a long-lived engine answers with the figures its watch keeps either way.
   */
  ps: z.strictObject({ rig: rigName.optional(), all: z.boolean().optional(), changes: z.boolean().optional() }),
  launch: z.strictObject({ seat: seatRef, fresh: z.boolean().optional() }),
  stop: z.strictObject({ seat: seatRef }),
  down: z.strictObject({ rig: rigName }),
  send: z
    .strictObject({
      seat: seatRef,
      text: z.string().max(2_000_000),
      /** Seconds from the start to wait for the seat to be idle before taking the lease. */
      waitForIdle: z.number().min(0).max(86_400).optional(),
      /** Type even at a prompt, over a draft, or while busy: only with a reason, which is recorded. */
      force: z.boolean().optional(),
      reason: z.string().min(1).max(500).optional(),
      /** Confirm on screen that the text arrived and was submitted. */
      verify: z.boolean().optional(),
    })
    .refine((p) => !p.force || p.reason !== undefined, { message: 'force needs a reason', path: ['reason'] }),
  capture: z.strictObject({ seat: seatRef, lines: z.number().int().min(0).max(100_000).optional() }),
  attach: z.strictObject({ seat: seatRef }),
  /** `fix`: end a stuck tmux server on Rigdesk's socket, once proven to be the one listening there. */
  doctor: z.strictObject({ fix: z.boolean().optional() }),
  events: z.strictObject({
    seat: seatRef.optional(),
    rig: rigName.optional(),
    afterSeq: z.number().int().min(0).optional(),
    limit: z.number().int().min(1).max(10_000).optional(),
    /** The newest this many rows (still oldest first) instead of the first `limit`: a log's end. */
    newest: z.number().int().min(1).max(10_000).optional(),
  }),
} as const;

/** What each request answers beside `ok: true`. */
export const ENGINE_ANSWERS = {
  up: upAnswer,
  ps: psAnswer,
  launch: launchAnswer,
  stop: stopAnswer,
  down: downAnswer,
  send: sendAnswer,
  capture: captureAnswer,
  attach: attachAnswer,
  doctor: doctorAnswer,
  events: eventsAnswer,
} as const satisfies AnswerSchemas<typeof ENGINE_REQUESTS>;

export * from './engine-answers';
export * from './ps';

import { z } from 'zod';
import { type AnswerSchemas, untypedAnswer } from './answer';

/** Engine core: rigs, seats, sessions. */

export const seatRef = z.string().min(1).max(200);
export const rigName = z.string().min(1).max(200);

export const ENGINE_REQUESTS = {
  up: z.strictObject({ spec: z.string().min(1).max(4096) }),
  ps: z.strictObject({ rig: rigName.optional(), all: z.boolean().optional() }),
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
  doctor: z.strictObject({}),
  events: z.strictObject({
    seat: seatRef.optional(),
    rig: rigName.optional(),
    afterSeq: z.number().int().min(0).optional(),
    limit: z.number().int().min(1).max(10_000).optional(),
  }),
} as const;

/** What each request answers beside `ok: true`. */
export const ENGINE_ANSWERS = {
  up: untypedAnswer,
  ps: untypedAnswer,
  launch: untypedAnswer,
  stop: untypedAnswer,
  down: untypedAnswer,
  send: untypedAnswer,
  capture: untypedAnswer,
  attach: untypedAnswer,
  doctor: untypedAnswer,
  events: untypedAnswer,
} as const satisfies AnswerSchemas<typeof ENGINE_REQUESTS>;

export const ACTIVITIES = ['working', 'idle', 'needs_input', 'exited', 'unknown'] as const;
export const activity = z.enum(ACTIVITIES);
export type Activity = z.output<typeof activity>;

/** One seat as `ps` reports it (and the window's `seats` push carries it). */
export const psRow = z.strictObject({
  seat: z.string(),
  rig: z.string(),
  pod: z.string(),
  member: z.string(),
  runtime: z.string(),
  cwd: z.string(),
  /** running: its session is there; stopped: none; gone: recorded but vanished; unknown: cannot tell. */
  state: z.enum(['running', 'stopped', 'gone', 'unknown']),
  activity,
  needsInput: z.string().optional(),
  /** The session axis: present, detached (its server cannot be read), exited (agent gone), absent. */
  session: z.enum(['present', 'detached', 'exited', 'absent']).optional(),
  /** A person has unsent text in the agent's input box. */
  draft: z.boolean().optional(),
  /** Why the activity is unknown, when the evidence said (e.g. a spinner that may hide a 429). */
  activityWhy: z.string().optional(),
  conversationId: z.string().optional(),
  stoppedOnPurpose: z.boolean(),
  /** The host the seat runs on: `local` or a name from the spec's hosts. */
  host: z.string().optional(),
  /** Why the state is what it is, when not plain: `host_unreachable` (its host does not answer). */
  reason: z.literal('host_unreachable').optional(),
  server: z.string().optional(),
  sessionName: z.string().optional(),
  sessionId: z.string().optional(),
  paneId: z.string().optional(),
  pid: z.number().int().optional(),
  attach: z.array(z.string()).optional(),
  /** Who writes the seat's conversation now, from the roster. */
  custody: z
    .discriminatedUnion('writer', [
      z.strictObject({ writer: z.literal('this_seat') }),
      z.strictObject({
        writer: z.literal('elsewhere'),
        pid: z.number().int().optional(),
        paneId: z.string().optional(),
        server: z.string().optional(),
        host: z.string().optional(),
        service: z.literal('daemon').optional(),
      }),
      z.strictObject({ writer: z.literal('unknown'), why: z.string().optional() }),
      z.strictObject({ writer: z.literal('none') }),
    ])
    .optional(),
  /** When the state last changed (ms epoch). */
  stateSince: z.number().optional(),
});
export type PsRow = z.output<typeof psRow>;

/** An agent process that is not a seat of Rigdesk's: on another tmux server, or headless. */
export const psAgent = z.strictObject({
  runtime: z.string(),
  pid: z.number().int(),
  conversationId: z.string().optional(),
  source: z.string().optional(),
  cwd: z.string().optional(),
  server: z.string().optional(),
  paneId: z.string().optional(),
  sessionName: z.string().optional(),
  headless: z.boolean(),
  /** The host it runs on; absent for this machine. */
  host: z.string().optional(),
  /** A runtime's background service on its own (Codex's daemon): it serves `home`, in no pane. */
  service: z.enum(['daemon', 'daemon_helper']).optional(),
  home: z.string().optional(),
});
export type PsAgent = z.output<typeof psAgent>;

/** One entry of the append-only event log (the `events` answer and the window's `event` push). */
export const eventRow = z.strictObject({
  seq: z.number().int(),
  at: z.number(),
  kind: z.string(),
  rig: z.string().nullable(),
  seat: z.string().nullable(),
  data: z.record(z.string(), z.unknown()),
});
export type EventRow = z.output<typeof eventRow>;

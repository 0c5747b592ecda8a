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
export type Activity = (typeof ACTIVITIES)[number];

export interface PsRow {
  seat: string;
  rig: string;
  pod: string;
  member: string;
  runtime: string;
  cwd: string;
  /** running: its session is there; stopped: none; gone: recorded but vanished; unknown: cannot tell. */
  state: 'running' | 'stopped' | 'gone' | 'unknown';
  activity: Activity;
  needsInput?: string;
  /** The session axis: present, detached (its server cannot be read), exited (agent gone), absent. */
  session?: 'present' | 'detached' | 'exited' | 'absent';
  /** A person has unsent text in the agent's input box. */
  draft?: boolean;
  /** Why the activity is unknown, when the evidence said (e.g. a spinner that may hide a 429). */
  activityWhy?: string;
  conversationId?: string;
  stoppedOnPurpose: boolean;
  /** The host the seat runs on: `local` or a name from the spec's hosts. */
  host?: string;
  /** Why the state is what it is, when not plain: `host_unreachable` (its host does not answer). */
  reason?: 'host_unreachable';
  server?: string;
  sessionName?: string;
  sessionId?: string;
  paneId?: string;
  pid?: number;
  attach?: string[];
}

/** An agent process that is not a seat of Rigdesk's: on another tmux server, or headless. */
export interface PsAgent {
  runtime: string;
  pid: number;
  conversationId?: string;
  source?: string;
  cwd?: string;
  server?: string;
  paneId?: string;
  sessionName?: string;
  headless: boolean;
  /** The host it runs on; absent for this machine. */
  host?: string;
  /** A runtime's background service on its own (Codex's daemon): it serves `home`, in no pane. */
  service?: 'daemon' | 'daemon_helper';
  home?: string;
}

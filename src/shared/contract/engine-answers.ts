import { z } from 'zod';

/**
 * What the engine core's requests answer beside `ok: true` (`ps` has its own file, ./ps.ts). A
 * refusal is never one of these: it is a `Failure` (what did not happen is in its evidence).
 */

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

/** A seat's session just created behind the fence: fresh, or resuming `conversationId`. */
export const launchedSeat = z.strictObject({
  seat: z.string(),
  mode: z.enum(['fresh', 'resume']),
  runtime: z.string(),
  /** The conversation it writes, when the launch chose or named it (a resume always does). */
  conversationId: z.string().optional(),
  server: z.string(),
  sessionName: z.string(),
  sessionId: z.string(),
  paneId: z.string(),
  panePid: z.number().int(),
  attach: z.array(z.string()),
});
export type LaunchedSeat = z.output<typeof launchedSeat>;

/** One seat of `up`: launched now, or found running. A refusal fails the whole `up` instead. */
export const upSeat = z.discriminatedUnion('outcome', [
  z.strictObject({ seat: z.string(), outcome: z.literal('launched'), launched: launchedSeat }),
  z.strictObject({ seat: z.string(), outcome: z.literal('already_running') }),
]);
export type UpSeat = z.output<typeof upSeat>;

/** What of the seat's runtime still runs in its home after a stop (Codex's daemon), and why it stays. */
export const leftRunning = z.strictObject({
  what: z.literal('daemon'),
  runtime: z.string(),
  pid: z.number().int(),
  home: z.string(),
  /** The threads it holds now (by their writer locks). */
  conversations: z.array(z.string()),
  why: z.string(),
});
export type LeftRunning = z.output<typeof leftRunning>;

/** One seat's stop: its session removed, found gone already, or nothing was running. */
export const stoppedSeat = z.discriminatedUnion('outcome', [
  z.strictObject({
    seat: z.string(),
    outcome: z.literal('removed'),
    sessionId: z.string(),
    leftRunning: z.array(leftRunning).optional(),
  }),
  z.strictObject({
    seat: z.string(),
    outcome: z.literal('already_gone'),
    sessionId: z.string(),
    why: z.string(),
    leftRunning: z.array(leftRunning).optional(),
  }),
  z.strictObject({ seat: z.string(), outcome: z.literal('not_running') }),
]);
export type StoppedSeat = z.output<typeof stoppedSeat>;

/** Text typed into a seat and submitted (held, refused or unconfirmed sends are failures). */
export const sentText = z.strictObject({
  seat: z.string(),
  status: z.literal('delivered'),
  paneId: z.string(),
  chars: z.number().int(),
  /** The screen showed the text submitted (off for a plain program, whose screen is not read). */
  verified: z.boolean(),
  warnings: z.array(z.string()),
});
export type SentText = z.output<typeof sentText>;

export const doctorCheck = z.strictObject({
  check: z.string(),
  ok: z.boolean(),
  detail: z.string(),
  hint: z.string().optional(),
});
export type DoctorCheck = z.output<typeof doctorCheck>;

export const upAnswer = z.strictObject({ rig: z.string(), seats: z.array(upSeat) });
export const launchAnswer = z.strictObject({ launched: launchedSeat });
export const stopAnswer = z.strictObject({ stopped: stoppedSeat });
export const downAnswer = z.strictObject({ rig: z.string(), seats: z.array(stoppedSeat) });
export const sendAnswer = z.strictObject({ sent: sentText });
export const captureAnswer = z.strictObject({ seat: z.string(), paneId: z.string(), text: z.string() });
/** The command that attaches a terminal to the seat's session (the CLI runs it), and where it is. */
export const attachAnswer = z.strictObject({
  seat: z.string(),
  argv: z.array(z.string()).min(1),
  server: z.string(),
  sessionId: z.string(),
  host: z.string(),
});
export const doctorAnswer = z.strictObject({ checks: z.array(doctorCheck) });
export const eventsAnswer = z.strictObject({ events: z.array(eventRow) });

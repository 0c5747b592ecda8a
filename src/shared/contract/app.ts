import { z } from 'zod';
import type { AnswerSchemas } from './answer';
import { eventRow, psRow, rigName, seatRef, tmuxStuck } from './engine';
import { hostHealthRow } from './hosts';

/**
 * The window's contract. Three parts, all declared here so both transports (Electron IPC
 * and the browser's WebSocket) and both sides take their types from one place:
 *  - APP_REQUESTS: engine requests the window and the CLI add (dispatched like every engine method);
 *  - WINDOW_REQUESTS: requests that belong to one window connection (its terminals), handled by the
 *    host that owns the connection, never by the engine;
 *  - pushes and the binary terminal frame format.
 */

export const PROMPT_CHOICES = ['approve', 'allow_always', 'deny', 'deny_with_message', 'option', 'other'] as const;

export const APP_REQUESTS = {
  /** Rigs → pods → seats with edges: read-only, straight from the store. */
  topology: z.strictObject({ rig: rigName.optional() }),
  /** Focus a seat in every open window, through the deep-link route (`rigdesk open <seat>`). */
  open: z.strictObject({ link: z.string().min(1).max(2048) }),
  /** Seats waiting for a person right now (needs_input), with the prompt as on screen. */
  'prompts.list': z.strictObject({ rig: rigName.optional() }),
  /**
   * Answer a seat's permission prompt with the keys its runtime expects. `fingerprint` (from
   * `prompts.list`) pins the answer to the prompt the person saw: a different prompt is refused.
   */
  'prompts.answer': z.strictObject({
    seat: seatRef,
    choice: z.enum(PROMPT_CHOICES),
    /**
     * With deny_with_message: what the agent should do instead, typed into its own input box; with
     * other: the answer of one's own to a question.
     */
    message: z.string().trim().min(1).max(8_000).optional(),
    /** With option: the number of the question's option, as on screen. */
    option: z.number().int().min(1).max(99).optional(),
    fingerprint: z
      .string()
      .regex(/^[0-9a-f]{16}$/)
      .optional(),
    reason: z.string().trim().min(1).max(500).optional(),
    /** Who answers (the window, the CLI): recorded with the answer for the Decisions history. */
    by: z.string().trim().min(1).max(100).optional(),
  }),
  /** The first lines of a seat's last reply as its pane shows them (a turn that ended, in Decisions). */
  'seat.reply': z.strictObject({ seat: seatRef }),
  /**
   * Put the `rigdesk` shim on PATH (or take it off): handled by the engine process, so with the
   * app running the shim points at the app's runtime. From the CLI and the app's menu only: the
   * window connection refuses it (see WINDOW_REFUSED).
   */
  'shim.install': z.strictObject({
    dir: z.string().min(1).max(1024).optional(),
    remove: z.boolean().optional(),
    plan: z.boolean().optional(),
  }),
} as const;

/** Engine requests a window (renderer) may not send: they touch the person's files, not the rig. */
export const WINDOW_REFUSED: ReadonlySet<string> = new Set(['shim.install']);

/**
 * A prompt's answers by name: `approve` allows once; `allow_always` takes the CLI's own wider
 * approval where it offers one (Claude's "don't ask again …", Codex's "… commands that start
 * with"); `deny` refuses; `deny_with_message` refuses and then types what to do instead into the
 * CLI's own input box, through safe send.
 */
export const promptChoice = z.enum(PROMPT_CHOICES);
export type PromptChoice = z.output<typeof promptChoice>;

/** A choice as the CLI's own prompt words it (`Yes, and don't ask again for … (p)`). */
export const promptOffer = z.strictObject({
  choice: promptChoice,
  label: z.string(),
  /** A question's option number (choice `option`). */
  option: z.number().int().optional(),
});

/** A live item of the Decisions view: a seat at needs_input, not a stored decision. */
export const promptItem = z.strictObject({
  seat: z.string(),
  rig: z.string(),
  runtime: z.string(),
  /** The needs_input reason: permission, question, usage_limit, login, trust_dialog, error. */
  reason: z.string(),
  /** The tool a permission prompt asks about, when the screen names it (Bash, Edit, a command). */
  tool: z.string().optional(),
  /** What can be answered from the window; empty when only the terminal can (a question, a limit). */
  choices: z.array(promptChoice),
  /** The same choices in the prompt's own words. */
  offers: z.array(promptOffer).optional(),
  /** The prompt as on screen (or the screen's last lines): the evidence. */
  screen: z.array(z.string()),
  fingerprint: z.string().optional(),
  paneId: z.string().optional(),
  /** Why a button is missing. */
  note: z.string().optional(),
});
export type PromptItem = z.output<typeof promptItem>;

export const TERM_ID_MAX = 0x7fff_ffff;
const termId = z.number().int().min(1).max(TERM_ID_MAX);
const cols = z.number().int().min(2).max(1000);
const rows = z.number().int().min(1).max(500);

export const WINDOW_REQUESTS = {
  'terminal.open': z.strictObject({ seat: seatRef, cols, rows }),
  'terminal.resize': z.strictObject({ term: termId, cols, rows }),
  'terminal.close': z.strictObject({ term: termId }),
  /**
   * Which seat's pane has the focus in this window, and whether the window is visible: a
   * needs-input notification is not shown for a seat the person is looking at.
   */
  'window.attention': z.strictObject({ seat: seatRef.nullable(), visible: z.boolean() }),
} as const;
export type WindowMethod = keyof typeof WINDOW_REQUESTS;
export const WINDOW_ANSWERS = {
  'terminal.open': z.strictObject({ term: termId, seat: z.string() }),
  'terminal.resize': z.strictObject({ term: termId, cols, rows }),
  'terminal.close': z.strictObject({ term: termId }),
  'window.attention': z.strictObject({ watched: z.number().int().min(0) }),
} as const satisfies AnswerSchemas<typeof WINDOW_REQUESTS>;

/** A request on either transport: the id pairs the answer; `method` names an engine or window request. */
export const windowMessage = z.strictObject({
  id: z.number().int().min(0).max(TERM_ID_MAX),
  method: z.string().min(1).max(64),
  params: z.unknown(),
});
export type WindowMessage = z.output<typeof windowMessage>;

/** Text messages above this are refused with an answer; the socket itself drops far larger ones. */
export const MAX_TEXT_MESSAGE = 2_500_000;
/** A binary input frame carries at most one paste; larger ones are dropped. */
export const MAX_INPUT_FRAME = 1_048_576;

export const seatNode = z.strictObject({ seat: z.string(), member: z.string(), runtime: z.string(), cwd: z.string() });
export type SeatNode = z.output<typeof seatNode>;
export const topologyAnswer = z.strictObject({
  rigs: z.array(
    z.strictObject({
      name: z.string(),
      pods: z.array(z.strictObject({ id: z.string(), seats: z.array(seatNode) })),
      edges: z.array(z.strictObject({ from: z.string(), to: z.string(), kind: z.string() })),
    }),
  ),
});
export type Topology = z.output<typeof topologyAnswer>;

/** An answered permission prompt: the keys typed into which pane, for which prompt. */
export const answeredPrompt = z.strictObject({
  seat: z.string(),
  choice: promptChoice,
  keys: z.array(z.string()),
  paneId: z.string(),
  fingerprint: z.string(),
  /** option: the option's number. */
  option: z.number().int().optional(),
  /** deny_with_message: the message as delivered after the refusal. */
  message: z.strictObject({ chars: z.number().int(), verified: z.boolean() }).optional(),
});
export type AnsweredPrompt = z.output<typeof answeredPrompt>;

/** The `rigdesk` shim on PATH, as `shim.install` left it (or would, with `plan`). */
export const shimAnswer = z.strictObject({
  path: z.string(),
  dir: z.string(),
  action: z.enum(['installed', 'updated', 'unchanged', 'removed', 'absent', 'would_install', 'would_remove']),
  onPath: z.boolean(),
  /** The program the shim runs: the app's executable (`app`) or node with a checkout's CLI (`node`). */
  runtime: z.strictObject({ exec: z.string(), kind: z.enum(['app', 'node']), cli: z.string().optional() }),
  /** How to take it off PATH again. */
  remove: z.string(),
  /** When the folder is not on PATH: the line that puts it there. */
  pathHint: z.string().optional(),
});
export type ShimAnswer = z.output<typeof shimAnswer>;

/** What each request answers beside `ok: true`. */
export const APP_ANSWERS = {
  topology: topologyAnswer,
  open: z.strictObject({ seat: z.string(), windows: z.number().int().min(1) }),
  'prompts.list': z.strictObject({ prompts: z.array(promptItem) }),
  'prompts.answer': z.strictObject({ answered: answeredPrompt }),
  'seat.reply': z.strictObject({ seat: z.string(), lines: z.array(z.string()) }),
  'shim.install': z.strictObject({ shim: shimAnswer }),
} as const satisfies AnswerSchemas<typeof APP_REQUESTS>;

/** Pushed from the host to the window. `seats` carries `ps` rows; `focus` comes from a deep link. */
export const PUSHES = {
  event: eventRow,
  seats: z.strictObject({
    seats: z.array(psRow),
    hosts: z.array(hostHealthRow).optional(),
    stuck: tmuxStuck.optional(),
  }),
  prompts: z.strictObject({ prompts: z.array(promptItem) }),
  focus: z.strictObject({ seat: seatRef }),
  'terminal.exit': z.strictObject({ term: termId, reason: z.string().max(500) }),
} as const;
export type PushName = keyof typeof PUSHES;
/** A discriminated union, so `if (m.push === 'focus')` narrows `m.data`. */
export type PushMessage = { [N in PushName]: { push: N; data: z.output<(typeof PUSHES)[N]> } }[PushName];

// ---- deep links -------------------------------------------------------------------------------

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/**
 * `rigdesk://seat/<rig>/<member>` and nothing else: one scheme, one host, two path segments of
 * the characters a rig spec allows. Anything else (other schemes, queries, fragments, encoded
 * slashes, extra segments, credentials, ports) is refused, since a link can come from any page.
 */
export function parseDeepLink(
  link: unknown,
): { ok: true; seat: string; rig: string; member: string } | { ok: false; reason: string } {
  if (typeof link !== 'string' || link.length > 2048)
    return { ok: false, reason: 'not a string of at most 2048 characters' };
  const m = /^rigdesk:\/\/seat\/([^/?#]+)\/([^/?#]+)\/?$/.exec(link);
  if (!m) return { ok: false, reason: 'not of the form rigdesk://seat/<rig>/<member>' };
  const [rig, member] = [m[1]!, m[2]!];
  if (!NAME.test(rig) || !NAME.test(member)) return { ok: false, reason: 'rig and member must be plain names' };
  return { ok: true, seat: `${member}@${rig}`, rig, member };
}

export function seatDeepLink(seat: string): string | undefined {
  const at = seat.lastIndexOf('@');
  if (at <= 0) return undefined;
  const link = `rigdesk://seat/${seat.slice(at + 1)}/${seat.slice(0, at)}`;
  return parseDeepLink(link).ok ? link : undefined;
}

// ---- binary terminal frames -------------------------------------------------------------------

/**
 * Terminal bytes never travel as JSON: a frame is [kind u8][term u32 BE][payload].
 * OUTPUT host→window (pane bytes), INPUT window→host (keystrokes), ACK window→host (u32 BE count
 * of bytes xterm has parsed, sent from its write callback; drives flow control).
 */
export const FRAME = { OUTPUT: 1, INPUT: 2, ACK: 3 } as const;
export type FrameKind = (typeof FRAME)[keyof typeof FRAME];
export const FRAME_HEADER = 5;

export function encodeFrame(kind: FrameKind, term: number, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(FRAME_HEADER + payload.length);
  out[0] = kind;
  new DataView(out.buffer).setUint32(1, term >>> 0, false);
  out.set(payload, FRAME_HEADER);
  return out;
}

export function encodeAck(term: number, bytes: number): Uint8Array {
  const p = new Uint8Array(4);
  new DataView(p.buffer).setUint32(0, Math.max(0, Math.min(bytes, 0xffff_ffff)) >>> 0, false);
  return encodeFrame(FRAME.ACK, term, p);
}

export type DecodedFrame = { kind: FrameKind; term: number; payload: Uint8Array; ack?: number };

/** Undefined for anything malformed: unknown kind, short header, a term id out of range, a bad ack. */
export function decodeFrame(buf: Uint8Array): DecodedFrame | undefined {
  if (buf.length < FRAME_HEADER) return undefined;
  const kind = buf[0]!;
  if (kind !== FRAME.OUTPUT && kind !== FRAME.INPUT && kind !== FRAME.ACK) return undefined;
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const term = view.getUint32(1, false);
  if (term < 1 || term > TERM_ID_MAX) return undefined;
  const payload = buf.subarray(FRAME_HEADER);
  if (kind === FRAME.ACK) {
    if (payload.length !== 4) return undefined;
    return { kind, term, payload, ack: view.getUint32(FRAME_HEADER, false) };
  }
  return { kind: kind as FrameKind, term, payload };
}

// ---- the preload bridge ---------------------------------------------------------------------

/**
 * What the preload exposes as `window.rigdesk`, and nothing else: send a request, receive
 * answers and pushes, send and receive binary terminal frames. The main process validates every
 * message against this contract; the preload only forwards.
 */
export interface RigdeskBridge {
  request(msg: WindowMessage): Promise<{ id: number | null; result: unknown }>;
  onPush(cb: (msg: PushMessage) => void): () => void;
  sendFrame(bytes: Uint8Array): void;
  onFrame(cb: (bytes: Uint8Array) => void): () => void;
}

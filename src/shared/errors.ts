/**
 * Errors are data. Every refusal or failure the engine reports is a `Failure` with a stable
 * `code`; the CLI maps codes to exit codes in one place and the window maps them to messages.
 * Codes never change meaning once shipped: add new ones instead.
 */

export const ERROR_CODES = [
  // usage and input
  'BAD_USAGE',
  'SPEC_NOT_FOUND',
  'SPEC_INVALID',
  'SEAT_NAME_INVALID',
  'SEAT_NOT_FOUND',
  'RIG_NOT_FOUND',
  'TEXT_INVALID',
  'TEXT_TOO_LONG',
  // a file to read (a spec, the text to send) that is not a regular file, or too large: never read
  'FILE_NOT_REGULAR',
  'FILE_TOO_LARGE',
  'CWD_MISSING',
  'RUNTIME_UNKNOWN',
  'RUNTIME_NOT_INSTALLED',
  // a runtime's config would make it unsafe under Rigdesk (Gemini's session cleanup) and Rigdesk may not change it
  'RUNTIME_CONFIG_UNSAFE',
  // custody (docs/architecture.md invariants 1-5)
  'CONVERSATION_LIVE_ELSEWHERE',
  'CONVERSATION_OWNER_UNKNOWN',
  // the agent is taking up its conversation, and ending it now would leave that unresumable
  'CONVERSATION_LOADING',
  'EVIDENCE_UNREADABLE',
  'LAUNCH_IN_PROGRESS',
  'SEAT_ALREADY_RUNNING',
  'SEAT_NOT_RUNNING',
  'TARGET_CHANGED',
  'TMUX_NAME_TAKEN',
  // delivery (docs/architecture.md invariant 6)
  'SEND_HELD',
  // the seat was launched a moment ago and its program is not ready yet (within its start time)
  'SEAT_STARTING',
  'SEND_UNCONFIRMED',
  'QUEUE_NO_WRITER',
  'QUEUE_ITEM_NOT_FOUND',
  'QUEUE_ILLEGAL_MOVE',
  // restore and decisions (docs/architecture.md invariant 7)
  'DECISION_NOT_FOUND',
  'DECISION_ALREADY_ANSWERED',
  'DECISION_CHOICE_INVALID',
  'RESUME_UNPROVEN',
  'AGENT_EXITED',
  'SEAT_EXISTS',
  'PROMPT_NOT_WAITING',
  'PROMPT_CHANGED',
  'SHIM_CONFLICT',
  'CONVERSATION_MISSING',
  // worktrees, changes and the merge gate
  'NOT_A_REPO',
  'WORKTREE_DIRTY',
  'WORKTREE_MISSING',
  'WORKTREE_TAKEN',
  'WORKTREE_NOT_FOUND',
  'MERGE_CONFLICT',
  'CHECKS_FAILED',
  'SEAT_BUSY',
  'GIT_FAILED',
  // tmux and the system
  'TMUX_UNAVAILABLE',
  'TMUX_FAILED',
  // a tmux server on Rigdesk's socket that accepts and never answers, or refuses every client
  'TMUX_SERVER_STUCK',
  // hosts over SSH: the host did not answer; its seats are unknown and nothing of it is decided
  'HOST_UNREACHABLE',
  'HOST_NOT_FOUND',
  'NOT_REMOVED',
  'STORE_FAILED',
  // RIGDESK_HOME, or a file in it, that another user may write or that is not the user's own
  'HOME_UNSAFE',
  // a window connection already has as many live terminals as it may
  'TERMINAL_LIMIT',
  // devices (rigdesk serve --listen): pairing and a device's token
  'DEVICES_NOT_LISTENING',
  'DEVICE_NOT_FOUND',
  'DEVICE_FORBIDDEN',
  'PAIR_CODE_UNKNOWN',
  'PAIR_CODE_USED',
  'PAIR_CODE_EXPIRED',
  'PAIRING_CLOSED',
  'ENGINE_UNREACHABLE',
  'ENGINE_AUTH_FAILED',
  'INTERNAL',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface Failure {
  ok: false;
  code: ErrorCode;
  message: string;
  /** What to do next, in one sentence a person can act on. */
  hint?: string;
  /** Structured evidence: owner of a conversation, the field at fault, the probe that failed. */
  evidence?: Record<string, unknown>;
}

export type Ok<T> = { ok: true } & T;
export type Result<T extends object = object> = Ok<T> | Failure;

export function fail(
  code: ErrorCode,
  message: string,
  extra: { hint?: string; evidence?: Record<string, unknown> } = {},
): Failure {
  const f: Failure = { ok: false, code, message };
  if (extra.hint !== undefined) f.hint = extra.hint;
  if (extra.evidence !== undefined) f.evidence = extra.evidence;
  return f;
}

export function isFailure(x: unknown): x is Failure {
  return typeof x === 'object' && x !== null && (x as { ok?: unknown }).ok === false;
}

/** CLI exit codes: 0 ok, 1 refused or failed, 2 bad usage (input the caller must change). */
export function exitCodeFor(code: ErrorCode): 1 | 2 {
  switch (code) {
    case 'BAD_USAGE':
    case 'SPEC_NOT_FOUND':
    case 'SPEC_INVALID':
    case 'SEAT_NAME_INVALID':
    case 'TEXT_INVALID':
    case 'TEXT_TOO_LONG':
    case 'FILE_NOT_REGULAR':
    case 'FILE_TOO_LARGE':
    case 'RUNTIME_UNKNOWN':
    case 'CWD_MISSING':
    case 'SEAT_NOT_FOUND':
    case 'RIG_NOT_FOUND':
    case 'DECISION_NOT_FOUND':
    case 'QUEUE_ITEM_NOT_FOUND':
    case 'SEAT_EXISTS':
    case 'DECISION_CHOICE_INVALID':
    case 'HOST_NOT_FOUND':
    case 'DEVICE_NOT_FOUND':
    case 'NOT_A_REPO':
    case 'WORKTREE_NOT_FOUND':
      return 2;
    default:
      return 1;
  }
}

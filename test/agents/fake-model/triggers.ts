/**
 * What the fake model answers, decided from the conversation alone (see docs/agent-clis.md §1).
 *
 * The API modules turn a request body into a `Conversation` (the last real user text, or the tool
 * result that ends it, plus the tool names the client offers); `decideReply` maps that to a `Reply`.
 */

export type Json = Record<string, unknown>;

export type LastTurn = { kind: 'user'; text: string } | { kind: 'tool_result'; text: string } | { kind: 'none' };

export interface Conversation {
  last: LastTurn;
  /** Tool names the client offered, in its order. */
  tools: string[];
}

/** What every API module extracts from a request body. */
export interface ParsedRequest extends Conversation {
  stream: boolean;
  model: string;
  inputTokens: number;
}

export interface ReplyTimings {
  slowChunks: number;
  slowMs: number;
  waitMs: number;
}

export type ReplyContent =
  /** `held`: which chunk waits for the server's gate (HOLD): the last, or with WAIT the first. */
  | { kind: 'text'; text: string; chunks: string[]; chunkDelayMs: number; held?: 'first' | 'last' }
  | { kind: 'tool'; name: string; input: Json };

/**
 * The usage a reply reports. A prompt names it with `USAGE:<input>:<output>[:<cacheRead>[:<cacheWrite>]]`
 * (distinctive figures a test can look for in an agent's own records); otherwise it is estimated.
 * Each API reports them in its own fields (see `usageFigures` and the API modules).
 */
export interface UsageFigures {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/**
 * A plan's rate-limit window as Codex reads it from a reply's headers (`x-codex-primary-used-percent`,
 * `-window-minutes`, `-reset-at` in epoch seconds; `secondary` the same): a prompt names them with
 * `RATELIMIT:<used%>:<minutes>:<resetAt>[:<used%>:<minutes>:<resetAt>]` (primary, then secondary).
 */
export interface RateLimitWindow {
  usedPercent: number;
  windowMinutes: number;
  resetAt: number;
}
export interface RateLimitFigures {
  primary: RateLimitWindow;
  secondary?: RateLimitWindow;
}

export type Reply =
  | (ReplyContent & { trigger: string; waitMs: number; usage?: UsageFigures; rateLimits?: RateLimitFigures })
  | { kind: 'error'; trigger: 'limit' | 'fail500'; status: 429 | 500 };

/** Blocks the CLIs inject into the user turn that are not what the user typed. */
const NOISE = [
  /<system-reminder>[\s\S]*?<\/system-reminder>/g,
  /<environment_context>[\s\S]*?<\/environment_context>/g,
  // Gemini CLI sends its session context in the same user turn as the prompt.
  /<session_context>[\s\S]*?<\/session_context>/g,
];

export function stripNoise(text: string): string {
  let out = text;
  for (const re of NOISE) out = out.replace(re, '');
  return out.trim();
}

export function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** Text of a content value that is either a string or an array of `{type, text}` parts. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return asArray(content)
    .map((p) => (isObj(p) ? (str(p.text) ?? '') : typeof p === 'string' ? p : ''))
    .filter((s) => s.length > 0)
    .join('\n');
}

/** Shell tools the fake knows how to call, by the name the client offers (first offered wins). */
const SHELL_TOOLS: Record<string, (cmd: string, sandboxed: boolean) => Json> = {
  // Claude Code
  Bash: (cmd) => ({ command: cmd, description: `fake server RUN: ${cmd}`.slice(0, 80) }),
  // Codex: only `require_escalated` makes it ask for approval.
  exec_command: (cmd, sandboxed) =>
    sandboxed
      ? { cmd, justification: 'fake server RUN' }
      : { cmd, sandbox_permissions: 'require_escalated', justification: 'fake server RUN' },
  // Pi
  bash: (cmd) => ({ command: cmd }),
  // Gemini / Qwen
  run_shell_command: (cmd) => ({ command: cmd }),
  // older Codex
  shell: (cmd) => ({ command: ['bash', '-lc', cmd] }),
};

export function pickShellTool(
  offered: string[],
  cmd: string,
  sandboxed: boolean,
): { name: string; input: Json } | undefined {
  for (const name of offered) {
    const make = SHELL_TOOLS[name];
    if (make) return { name, input: make(cmd, sandboxed) };
  }
  return undefined;
}

/** Splits text into at most `n` non-empty pieces, so clients have to join deltas. */
export function splitText(text: string, n = 2): string[] {
  if (text.length < 2 || n < 2) return [text];
  const size = Math.ceil(text.length / n);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

const has = (text: string, word: string): boolean => new RegExp(`\\b${word}\\b`).test(text);

const USAGE_RE = /\bUSAGE:(\d+):(\d+)(?::(\d+))?(?::(\d+))?/;

/** The figures a `USAGE:` trigger in the text names, if it names them. */
export function namedUsage(text: string): UsageFigures | undefined {
  const m = USAGE_RE.exec(text);
  if (!m) return undefined;
  return { input: Number(m[1]), output: Number(m[2]), cacheRead: Number(m[3] ?? 0), cacheWrite: Number(m[4] ?? 0) };
}

const RATELIMIT_RE = /\bRATELIMIT:(\d+(?:\.\d+)?):(\d+):(\d+)(?::(\d+(?:\.\d+)?):(\d+):(\d+))?/;

/** The rate-limit windows a `RATELIMIT:` trigger in the text names, if it names them. */
export function namedRateLimits(text: string): RateLimitFigures | undefined {
  const m = RATELIMIT_RE.exec(text);
  if (!m) return undefined;
  const win = (a: string, b: string, c: string): RateLimitWindow => ({
    usedPercent: Number(a),
    windowMinutes: Number(b),
    resetAt: Number(c),
  });
  return {
    primary: win(m[1]!, m[2]!, m[3]!),
    ...(m[4] ? { secondary: win(m[4], m[5]!, m[6]!) } : {}),
  };
}

/** What a reply reports as its usage: the named figures, or estimates from the request and the reply. */
export function usageFigures(reply: Reply, req: ParsedRequest): UsageFigures {
  if (reply.kind !== 'error' && reply.usage) return reply.usage;
  const output = reply.kind === 'error' ? 0 : estimateTokens(reply.kind === 'text' ? reply.text : reply.input);
  return { input: req.inputTokens, output, cacheRead: 0, cacheWrite: 0 };
}

export function decideReply(conv: Conversation, t: ReplyTimings): Reply {
  const reply = decideContent(conv, t);
  if (reply.kind === 'error' || conv.last.kind !== 'user') return reply;
  const usage = namedUsage(conv.last.text);
  const rateLimits = namedRateLimits(conv.last.text);
  return { ...reply, ...(usage ? { usage } : {}), ...(rateLimits ? { rateLimits } : {}) };
}

function decideContent(conv: Conversation, t: ReplyTimings): Reply {
  const last = conv.last;
  if (last.kind === 'tool_result') {
    const text = `ACK tool result: ${last.text.slice(0, 200)}`;
    return { kind: 'text', trigger: 'tool_result', text, chunks: splitText(text), chunkDelayMs: 0, waitMs: 0 };
  }
  const userText = last.kind === 'user' ? last.text : '';
  if (has(userText, 'LIMIT')) return { kind: 'error', trigger: 'limit', status: 429 };
  if (has(userText, 'FAIL500')) return { kind: 'error', trigger: 'fail500', status: 500 };

  const wait = has(userText, 'WAIT');
  const waitMs = wait ? t.waitMs : 0;
  const run = /RUN:[ \t]*(.*)/.exec(userText);
  if (run) {
    const sandboxed = has(userText, 'SANDBOXED');
    const cmd = (run[1] ?? '').replace(/\bSANDBOXED\b/g, '').trim();
    const tool = cmd ? pickShellTool(conv.tools, cmd, sandboxed) : undefined;
    if (tool) return { kind: 'tool', trigger: wait ? 'run+wait' : 'run', waitMs, ...tool };
  }

  const ask = /ASK:[ \t]*(.*)/.exec(userText);
  const asker = conv.tools.find((t) => t === 'AskUserQuestion' || t === 'request_user_input');
  if (ask && asker) {
    const [question = 'Which one?', ...labels] = (ask[1] ?? '').split('|').map((x) => x.trim());
    const options = labels.filter(Boolean).map((label) => ({ label, description: `the fake server's ${label}` }));
    // Claude Code's AskUserQuestion, or Codex's request_user_input (with the feature that offers it
    // outside Plan mode): the same question in each CLI's own shape.
    const q = asker === 'AskUserQuestion' ? { multiSelect: false } : { id: 'choice' };
    const input = { questions: [{ question, header: 'Choice', options, ...q }] };
    return { kind: 'tool', trigger: 'ask', waitMs, name: asker, input };
  }

  const base = `ACK ${userText}`;
  const slow = has(userText, 'SLOW');
  const held = has(userText, 'HOLD');
  const triggers = [...(slow ? ['slow'] : []), ...(held ? ['hold'] : []), ...(wait ? ['wait'] : [])];
  const trigger = triggers.length ? triggers.join('+') : 'ack';
  // HOLD streams as SLOW does, and its last chunk (with WAIT: its first) waits for the test to open the gate.
  if (slow || held) {
    const n = Math.max(1, t.slowChunks);
    const chunks = [base, ...Array.from({ length: n - 1 }, (_, i) => ` tick${i + 2}`)];
    return {
      kind: 'text',
      trigger,
      text: chunks.join(''),
      chunks,
      chunkDelayMs: t.slowMs,
      waitMs,
      ...(held ? { held: wait ? 'first' : 'last' } : {}),
    };
  }
  return { kind: 'text', trigger, text: base, chunks: splitText(base), chunkDelayMs: 0, waitMs };
}

/** A rough token count so usage fields are plausible and non-zero. */
export function estimateTokens(v: unknown): number {
  const s = typeof v === 'string' ? v : JSON.stringify(v ?? '');
  return Math.max(1, Math.ceil(s.length / 4));
}

export function randomId(prefix: string): string {
  return `${prefix}${Math.random().toString(16).slice(2, 14).padEnd(12, '0')}${Date.now().toString(16)}`;
}

/**
 * What a runtime's own records say about a conversation's tokens, in one shape for every runtime.
 *
 * - `tokensIn`: every input token the model read, over all the conversation's model calls, cached
 *   ones included (Anthropic reports cache reads and writes beside `input_tokens`; OpenAI and
 *   Gemini count them inside it).
 * - `tokensOut`: every output token the model wrote, reasoning included.
 * - `contextTokens`: what the conversation's last model call held: its input (cached included)
 *   plus its output, which the next call reads back.
 * - `contextWindow`: the model's window, only where the runtime records it (or declares it in its
 *   own config for the model its records name); never looked up in a table of model names.
 */
export interface UsageTotals {
  tokensIn: number;
  tokensOut: number;
  contextTokens?: number;
  contextWindow?: number;
  /** The provider and model of the last call, as the records name them (Pi needs them for its window). */
  provider?: string;
  model?: string;
  /** The same tokens by kind and by the model the records name for them (`''`: none named), for the cost. */
  byModel?: ByModel;
  /** The plan's rate-limit windows as the runtime last recorded them (Codex). */
  limits?: RecordedLimit[];
}

/**
 * Tokens by the kind a price applies to: `input` read fresh, `cacheRead` read from the provider's
 * cache, `cacheWrite` written to it, `output` (reasoning included). Their sum over a conversation
 * is `tokensIn + tokensOut`.
 */
export interface TokenKinds {
  input: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
}
export type ByModel = Record<string, TokenKinds>;

/** One rate-limit window of the plan a CLI home is signed in to, as the runtime recorded it. */
export interface RecordedLimit {
  /** The runtime's name for the limit (Codex: `codex`) and which of its windows. */
  limitId: string;
  /** `reached`: the runtime said the limit stopped it (Claude's usage-limit message). */
  window: 'primary' | 'secondary' | 'reached';
  usedPercent?: number;
  windowMinutes?: number;
  /** When the window resets (ms epoch). */
  resetsAt?: number;
  /** The runtime's own words, for a reached limit (at most a line). */
  message?: string;
}

/**
 * Folds one runtime's JSONL records into totals, one record at a time, keeping only running sums
 * (and what a record may later replace). A fresh sink per file; a file read again from its start
 * gets a fresh one.
 */
export interface UsageSink {
  /** Byte strings of which a line must hold one to carry usage; other lines are never parsed. */
  readonly needles: readonly string[];
  take(record: unknown): void;
  /** Undefined until a record carried usage. */
  totals(): UsageTotals | undefined;
}

/** A record's field as an object, or undefined. */
export function obj(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** A non-negative finite number, else 0 (a field a runtime left out counts nothing). */
export function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0;
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/**
 * How each runtime records its usage: a JSONL file read as it grows (with the sink that folds its
 * records), or OpenCode's database; and, where the runtime's own config declares the window of the
 * model its records name, how to read it: a runtime adapter's `usage`; a runtime without one has no usage.
 */
export interface UsageReader {
  sink?: () => UsageSink;
  database?: true;
  /** The window the runtime's config under `home` declares for the records' model, if any. */
  declaredWindow?(
    home: string,
    totals: UsageTotals,
    readConfig: (path: string) => string | undefined,
  ): number | undefined;
}

/** The window a models file in the runtime's home declares for the model its records name. */
export function declaredIn(
  file: (home: string) => string,
  windowOf: (text: string, provider: string, model: string) => number | undefined,
): NonNullable<UsageReader['declaredWindow']> {
  return (home, t, readConfig) => {
    if (!t.provider || !t.model) return undefined;
    const text = readConfig(file(home));
    return text ? windowOf(text, t.provider, t.model) : undefined;
  };
}

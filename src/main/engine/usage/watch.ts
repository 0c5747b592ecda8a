import { runtimeById } from '../runtimes';
import { OpencodeTail, type OpencodeQuery } from './opencode';
import { JsonlTail, type TailIO } from './tail';
import type { UsageReader, UsageTotals } from '../runtimes/usage/records';

/** One seat's conversation, as the ps row names it: where its runtime keeps its records. */
export interface UsageTarget {
  runtime: string;
  home: string;
  /** The seat's folder as the runtime sees it (its real path). */
  cwd: string;
  conversationId: string;
}

export interface UsageDeps {
  tail: TailIO;
  opencode: OpencodeQuery;
  /** The conversation's record file (the runtime adapter's transcriptPath), or undefined when none yet. */
  locate(target: UsageTarget): string | undefined;
  /** A small config file's text (cached by the caller as it likes), or undefined. */
  readConfig(path: string): string | undefined;
  now(): number;
}

/** A record not read for this long is let go (its seat stopped or moved on to another conversation). */
const IDLE_MS = 10 * 60_000;

interface Entry {
  tail: JsonlTail | OpencodeTail;
  usedAt: number;
}

/**
 * Every seat's usage, kept between refreshes: one tail per conversation record, so each refresh
 * reads only what its runtime added since the one before.
 */
export class UsageWatch {
  private readonly entries = new Map<string, Entry>();
  private sweptAt = 0;

  constructor(private readonly deps: UsageDeps) {}

  /** The conversation's totals now, with the window its runtime declares; undefined when unknown. */
  read(target: UsageTarget): UsageTotals | undefined {
    const reader = runtimeById(target.runtime)?.usage;
    if (!reader) return undefined;
    const now = this.deps.now();
    this.sweep(now);
    const key = `${target.runtime}\0${target.home}\0${target.conversationId}`;
    let entry = this.entries.get(key);
    // A record that went away is looked for again (once a refresh): it may live elsewhere now.
    for (let attempt = 0; attempt < 2; attempt++) {
      entry ??= this.open(reader, target);
      if (!entry) return undefined;
      const r =
        entry.tail instanceof OpencodeTail
          ? entry.tail.refresh(this.deps.opencode)
          : entry.tail.refresh(this.deps.tail);
      if (r === 'ok') break;
      this.entries.delete(key);
      entry = undefined;
    }
    if (!entry) return undefined;
    entry.usedAt = now;
    this.entries.set(key, entry);
    const totals = entry.tail.totals();
    if (!totals || totals.contextWindow !== undefined || !reader.declaredWindow) return totals;
    const window = reader.declaredWindow(target.home, totals, this.deps.readConfig);
    return window ? { ...totals, contextWindow: window } : totals;
  }

  /** How many records are followed now (for tests and the bench). */
  get size(): number {
    return this.entries.size;
  }

  /** Bytes the followed files' tails have read in all (for the bench: each byte once). */
  get bytesRead(): number {
    let n = 0;
    for (const e of this.entries.values()) if (e.tail instanceof JsonlTail) n += e.tail.stats.bytes;
    return n;
  }

  private open(reader: UsageReader, target: UsageTarget): Entry | undefined {
    const path = this.deps.locate(target);
    if (!path) return undefined;
    if (reader.database) return { tail: new OpencodeTail(path, target.conversationId), usedAt: 0 };
    return reader.sink ? { tail: new JsonlTail(path, reader.sink), usedAt: 0 } : undefined;
  }

  private sweep(now: number): void {
    if (now - this.sweptAt < 60_000) return;
    this.sweptAt = now;
    for (const [k, e] of this.entries) if (now - e.usedAt > IDLE_MS) this.entries.delete(k);
  }
}

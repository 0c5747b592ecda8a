/**
 * The watch that keeps every seat's tails between refreshes (its file lookups injected, the files
 * real), the ps fields it yields, and OpenCode's reader on a real SQLite database in OpenCode's
 * layout.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { liveOpencodeQuery, OpencodeTail } from '../../../src/main/engine/usage/opencode';
import { ompDeclaredWindow, piDeclaredWindow } from '../../../src/main/engine/runtimes/usage/pi';
import { liveTailIO } from '../../../src/main/engine/usage/tail';
import { bundledCatalog } from '../../../src/main/engine/usage/catalog';
import { seatFigures } from '../../../src/main/engine/usage/figures';
import { NO_SETTINGS } from '../../../src/main/engine/usage/settings';
import { contextPct, usageFields } from '../../../src/main/engine/usage/types';
import { UsageWatch, type UsageDeps, type UsageTarget } from '../../../src/main/engine/usage/watch';
import { type Call, RECORDS } from './records';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rd-usage-watch-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const C1: Call = { input: 52301, output: 417, cacheRead: 3400, cacheWrite: 1200 };
const write = (path: string, runtime: string, calls: Call[]): void =>
  writeFileSync(
    path,
    calls
      .flatMap((c, i) => RECORDS[runtime]!.call(c, i, calls.slice(0, i)))
      .map((l) => `${l}\n`)
      .join(''),
  );

function watchWith(over: Partial<UsageDeps> & { where?: Map<string, string> }) {
  const located: UsageTarget[] = [];
  let now = 1_000_000;
  const deps: UsageDeps = {
    tail: liveTailIO,
    opencode: liveOpencodeQuery,
    locate: (t) => {
      located.push(t);
      return over.where?.get(t.conversationId);
    },
    readConfig: () => undefined,
    now: () => now,
    ...over,
  };
  return { watch: new UsageWatch(deps), located, advance: (ms: number) => (now += ms) };
}

const target = (runtime: string, conversationId = 'c1'): UsageTarget => ({
  runtime,
  home: '/home',
  cwd: '/w',
  conversationId,
});

describe('the usage watch', () => {
  it('a runtime that records no usage has none, and its files are never looked for (a shell seat)', () => {
    const { watch, located } = watchWith({});
    expect(watch.read(target('shell'))).toBeUndefined();
    expect(located).toEqual([]);
  });

  it('no record yet: unknown; once the runtime wrote one, it is found and read; a record that moved is found again', () => {
    const where = new Map<string, string>();
    const { watch, located } = watchWith({ where });
    expect(watch.read(target('codex'))).toBeUndefined();
    const a = join(dir, 'a.jsonl');
    write(a, 'codex', [C1]);
    where.set('c1', a);
    expect(watch.read(target('codex'))).toMatchObject(RECORDS.codex!.expected([C1]));
    expect(located).toHaveLength(2);
    watch.read(target('codex'));
    expect(located, 'a followed record is not looked for again').toHaveLength(2);
    const b = join(dir, 'b.jsonl');
    write(b, 'codex', [C1, C1]);
    unlinkSync(a);
    where.set('c1', b);
    expect(watch.read(target('codex'))).toMatchObject(RECORDS.codex!.expected([C1, C1]));
  });

  it("Pi's window is the one its agent dir's models.json declares for the model the records name, else none", () => {
    const file = join(dir, 'pi.jsonl');
    write(file, 'pi', [C1]);
    const models = {
      providers: {
        fake: {
          models: [
            { id: 'fake-model', contextWindow: 128000 },
            { id: 'other', contextWindow: 9 },
          ],
        },
      },
    };
    const configs = new Map([['/home/models.json', JSON.stringify(models)]]);
    const { watch } = watchWith({ where: new Map([['c1', file]]), readConfig: (p) => configs.get(p) });
    const t = watch.read(target('pi'))!;
    expect(t).toMatchObject({ contextWindow: 128000, provider: 'fake', model: 'fake-model' });
    expect(usageFields(t)).toEqual({ tokensIn: 56901, tokensOut: 417, contextPct: 44.8 });
    configs.set('/home/models.json', JSON.stringify({ providers: { fake: { models: [{ id: 'fake-model' }] } } }));
    expect(usageFields(watch.read(target('pi')))).toEqual({ tokensIn: 56901, tokensOut: 417 });
  });

  it('Claude Code run as "(1M context)" ([1m] in its settings.json) counts against a million, not the catalog\'s 200k', () => {
    const file = join(dir, 'claude.jsonl');
    // A model the catalog gives 200k (the records' default model has 1M there already).
    writeFileSync(
      file,
      `${RECORDS['claude-code']!.call(C1, 0, []).join('\n').replaceAll('claude-opus-4-8', 'claude-sonnet-4-5')}\n`,
    );
    const configs = new Map([['/home/settings.json', '{"model":"sonnet[1m]"}']]);
    const { watch } = watchWith({ where: new Map([['c1', file]]), readConfig: (p) => configs.get(p) });
    const inputs = { catalog: bundledCatalog(), settings: NO_SETTINGS, at: Date.parse('2026-12-05T10:00:00Z') };
    expect(seatFigures(watch.read(target('claude-code')), inputs)).toMatchObject({
      contextTokens: 57318,
      contextWindow: 1_000_000,
      contextSource: 'records',
      contextPct: 5.7,
    });
    configs.set('/home/settings.json', '{"model":"sonnet"}');
    expect(seatFigures(watch.read(target('claude-code')), inputs)).toMatchObject({
      contextWindow: 200_000,
      contextSource: 'catalog',
      contextPct: 28.7,
    });
  });

  it('a record not read for ten minutes is let go', () => {
    const file = join(dir, 'c.jsonl');
    write(file, 'claude-code', [C1]);
    const { watch, advance } = watchWith({ where: new Map([['c1', file]]) });
    watch.read(target('claude-code'));
    expect(watch.size).toBe(1);
    advance(11 * 60_000);
    watch.read(target('claude-code', 'other'));
    expect(watch.size).toBe(0);
  });
});

describe('the ps fields', () => {
  it('contextPct is the last call over the window, one decimal; absent without a window; nothing at all without records', () => {
    expect(contextPct({ contextTokens: 52718, contextWindow: 258400 })).toBe(20.4);
    expect(contextPct({ contextTokens: 225321, contextWindow: 258400 })).toBe(87.2);
    expect(contextPct({ contextTokens: 5 })).toBeUndefined();
    expect(usageFields({ tokensIn: 3, tokensOut: 4, contextTokens: 7 })).toEqual({ tokensIn: 3, tokensOut: 4 });
    expect(usageFields(undefined)).toEqual({});
  });

  it("omp writes Pi's records and declares its window in models.yml; omo is OpenCode's database", () => {
    const file = join(dir, 'omp.jsonl');
    write(file, 'pi', [C1]);
    const yml = [
      'providers:',
      '  fake:',
      '    models:',
      '      - id: fake-model',
      '        contextWindow: 128000',
      '',
    ].join('\n');
    const configs = new Map([['/home/models.yml', yml]]);
    const { watch, located } = watchWith({ where: new Map([['c1', file]]), readConfig: (p) => configs.get(p) });
    expect(usageFields(watch.read(target('omp')))).toEqual({ tokensIn: 56901, tokensOut: 417, contextPct: 44.8 });
    expect(ompDeclaredWindow('providers: [', 'fake', 'fake-model')).toBeUndefined();
    // omo's conversation is looked for where OpenCode keeps it (no JSONL of its own).
    expect(watch.read(target('omo', 'ses_x'))).toBeUndefined();
    expect(located.map((t) => t.runtime)).toEqual(['omp', 'omo']);
  });

  it("piDeclaredWindow reads only a declared, positive window of that provider's model", () => {
    const text = JSON.stringify({
      providers: {
        p: {
          models: [
            { id: 'm', contextWindow: 200000 },
            { id: 'z', contextWindow: 0 },
          ],
        },
      },
    });
    expect(piDeclaredWindow(text, 'p', 'm')).toBe(200000);
    expect(piDeclaredWindow(text, 'p', 'z')).toBeUndefined();
    expect(piDeclaredWindow(text, 'q', 'm')).toBeUndefined();
    expect(piDeclaredWindow('not json', 'p', 'm')).toBeUndefined();
  });
});

describe("OpenCode's database, read as it grows", () => {
  // The message and part tables as OpenCode 1.18.33 creates them.
  const schema = `CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL,
    time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
    CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL,
    time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
    CREATE INDEX part_session_idx ON part (session_id);`;
  const step = (input: number, output: number, read = 0) =>
    JSON.stringify({
      reason: 'stop',
      type: 'step-finish',
      tokens: { total: input + read + output, input, output, reasoning: 0, cache: { write: 0, read } },
      cost: 0,
    });

  it('only the step-finish parts of that session, each read once; removed parts (a revert) make it count again', () => {
    const file = join(dir, 'opencode.db');
    const db = new Database(file);
    db.exec(schema);
    db.prepare('INSERT INTO message VALUES (?, ?, 0, 0, ?)').run(
      'msg',
      'ses_A',
      JSON.stringify({ role: 'assistant', providerID: 'fake', modelID: 'fake-model' }),
    );
    let n = 0;
    const put = (session: string, data: string) =>
      db.prepare('INSERT INTO part VALUES (?, ?, ?, 0, 0, ?)').run(`prt_${n++}`, 'msg', session, data);
    put('ses_A', JSON.stringify({ type: 'text', text: 'step-finish is only a word here' }));
    put('ses_A', step(48901, 417, 3400));
    put('ses_B', step(7, 7));
    const tail = new OpencodeTail(file, 'ses_A');
    const seen: number[] = [];
    const query: typeof liveOpencodeQuery = (f, s, after) => {
      const got = liveOpencodeQuery(f, s, after);
      seen.push(got?.rows.length ?? -1);
      return got;
    };
    tail.refresh(query);
    expect(tail.totals()).toEqual({
      tokensIn: 52301,
      tokensOut: 417,
      contextTokens: 52718,
      model: 'fake/fake-model',
      byModel: { 'fake/fake-model': { input: 48901, cacheRead: 3400, cacheWrite: 0, output: 417 } },
    });
    put('ses_A', step(100, 10));
    tail.refresh(query);
    expect(tail.totals()).toMatchObject({ tokensIn: 52401, tokensOut: 427, contextTokens: 110 });
    expect(seen, 'rows read per refresh: only the new ones').toEqual([2, 1]);
    db.prepare('DELETE FROM part WHERE id = ?').run(`prt_${n - 1}`);
    tail.refresh(query);
    expect(tail.totals()).toMatchObject({ tokensIn: 52301, tokensOut: 417 });
    db.close();
    expect(new OpencodeTail(join(dir, 'none.db'), 'ses_A').refresh(liveOpencodeQuery)).toBe('absent');
  });
});

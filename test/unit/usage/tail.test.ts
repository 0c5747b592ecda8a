/**
 * The token readers on a real file that grows as a runtime writes it: each runtime's records read a
 * refresh at a time, a half-written last line waiting for its newline, every byte read once, and a
 * file that shrank, was replaced or rewritten read again from its start.
 */
import { appendFileSync, mkdtempSync, renameSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JsonlTail, liveTailIO } from '../../../src/main/engine/usage/tail';
import { claudeSink } from '../../../src/main/engine/runtimes/usage/claude';
import { geminiSink } from '../../../src/main/engine/runtimes/usage/gemini';
import { type Call, RECORDS } from './records';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rd-usage-'));
  file = join(dir, 'records.jsonl');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const lines = (ls: string[]): string => ls.map((l) => `${l}\n`).join('');
const C1: Call = { input: 52301, output: 417, cacheRead: 3400, cacheWrite: 1200 };
const C2: Call = { input: 1800, output: 96, cacheRead: 50400, cacheWrite: 0 };

describe.each(Object.entries(RECORDS))('%s records, read as the file grows', (_runtime, rt) => {
  it('a half-written line waits for its newline; each byte is read once; a truncated file is read again from its start', () => {
    const first = lines([...rt.noise, ...rt.call(C1, 1, [])]);
    writeFileSync(file, first);
    const tail = new JsonlTail(file, rt.sink);
    expect(tail.refresh(liveTailIO)).toBe('ok');
    expect(tail.totals()).toEqual(expect.objectContaining(rt.expected([C1])));

    const second = lines([...rt.noise, ...rt.call(C2, 2, [C1])]);
    const cut = Math.floor(second.length / 2) + 7;
    appendFileSync(file, second.slice(0, cut));
    tail.refresh(liveTailIO);
    expect(tail.totals(), 'half a record changes nothing').toEqual(expect.objectContaining(rt.expected([C1])));

    appendFileSync(file, second.slice(cut));
    tail.refresh(liveTailIO);
    expect(tail.totals()).toEqual(expect.objectContaining(rt.expected([C1, C2])));
    expect(tail.stats.bytes, 'every byte read once').toBe(statSync(file).size);

    tail.refresh(liveTailIO);
    expect(tail.stats.bytes, 'nothing added: nothing read').toBe(statSync(file).size);

    truncateSync(file, Buffer.byteLength(first));
    tail.refresh(liveTailIO);
    expect(tail.totals(), 'truncated back to the first call').toEqual(expect.objectContaining(rt.expected([C1])));
    expect(tail.stats.restarts).toBe(1);

    truncateSync(file, 0);
    tail.refresh(liveTailIO);
    expect(tail.totals()).toBeUndefined();
  });
});

describe('the tail itself', () => {
  const rt = RECORDS['claude-code']!;

  it('a line cut inside a multi-byte character is joined before it is decoded', () => {
    const line = Buffer.from(lines(rt.call(C1, 1, [])));
    const at = line.indexOf(Buffer.from('ü')) + 1; // between the two bytes of ü
    writeFileSync(file, line.subarray(0, at));
    const tail = new JsonlTail(file, rt.sink);
    tail.refresh(liveTailIO);
    expect(tail.totals()).toBeUndefined();
    appendFileSync(file, line.subarray(at));
    tail.refresh(liveTailIO);
    expect(tail.totals()).toMatchObject(rt.expected([C1]));
  });

  it('a file replaced by another (a rotation, a new inode) is read from its start', () => {
    writeFileSync(file, lines(rt.call(C1, 1, [])));
    const tail = new JsonlTail(file, rt.sink);
    tail.refresh(liveTailIO);
    const next = join(dir, 'next.jsonl');
    writeFileSync(next, lines([...rt.call(C2, 1, []), ...rt.call(C2, 2, [])]));
    renameSync(next, file);
    tail.refresh(liveTailIO);
    expect(tail.totals()).toMatchObject(rt.expected([C2, C2]));
    expect(tail.stats.restarts).toBe(1);
  });

  it('a file rewritten in place and longer than before (same inode) is noticed by the bytes before the offset', () => {
    writeFileSync(file, lines(rt.call(C1, 1, [])));
    const tail = new JsonlTail(file, rt.sink);
    tail.refresh(liveTailIO);
    writeFileSync(file, lines([...rt.call(C2, 7, []), ...rt.call(C2, 8, []), ...rt.call(C2, 9, [])]));
    tail.refresh(liveTailIO);
    expect(tail.totals()).toMatchObject(rt.expected([C2, C2, C2]));
  });

  it('a file that is gone says so (the watch looks for it again)', () => {
    const tail = new JsonlTail(join(dir, 'nothing.jsonl'), rt.sink);
    expect(tail.refresh(liveTailIO)).toBe('absent');
  });

  it('lines without a needle are never parsed, and a line that is not JSON is skipped', () => {
    writeFileSync(
      file,
      lines([...rt.noise.filter((l) => !l.includes('"usage"')), '{"usage": not json', ...rt.call(C1, 1, [])]),
    );
    const tail = new JsonlTail(file, rt.sink);
    tail.refresh(liveTailIO);
    expect(tail.stats.parsed).toBe(1);
    expect(tail.totals()).toMatchObject(rt.expected([C1]));
  });
});

describe('what each record means', () => {
  const feed = (sink: ReturnType<typeof claudeSink>, ls: string[]) => {
    for (const l of ls) sink.take(JSON.parse(l));
    return sink.totals();
  };
  const claude = RECORDS['claude-code']!;
  const gemini = RECORDS.gemini!;

  it('Claude: one response written as several lines of the same message id counts once, with its last usage', () => {
    const partial = claude.call({ ...C1, output: 1, id: 'msg_same' }, 1, []);
    const whole = claude.call({ ...C1, id: 'msg_same' }, 2, []);
    expect(feed(claudeSink(), [...partial, ...whole])).toMatchObject(claude.expected([C1]));
  });

  it("Claude: a subagent's lines count as tokens but not as the context; synthetic error lines count nothing", () => {
    const side = JSON.parse(claude.call(C2, 2, [])[0]!);
    side.isSidechain = true;
    const synthetic = JSON.parse(claude.call(C2, 3, [])[0]!);
    synthetic.message.model = '<synthetic>';
    const t = feed(claudeSink(), [...claude.call(C1, 1, []), JSON.stringify(side), JSON.stringify(synthetic)]);
    expect(t).toMatchObject({ ...claude.expected([C1, C2]), contextTokens: claude.expected([C1]).contextTokens });
  });

  it('Gemini: a record written again under its id replaces it; a $set of the messages starts the count from that list', () => {
    const again = feed(geminiSink(), [
      ...gemini.call({ ...C1, id: 'g' }, 1, []),
      ...gemini.call({ ...C2, id: 'g' }, 2, []),
    ]);
    expect(again).toMatchObject(gemini.expected([C2]));
    const set = JSON.stringify({ $set: { messages: [JSON.parse(gemini.call({ ...C2, id: 'x' }, 3, [])[0]!)] } });
    const reset = feed(geminiSink(), [...gemini.call(C1, 1, []), ...gemini.call(C1, 2, []), set]);
    expect(reset).toMatchObject(gemini.expected([C2]));
  });
});

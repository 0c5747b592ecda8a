import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { liveEvidenceIO } from '../../src/main/engine/evidence-io';
import { liveTailIO } from '../../src/main/engine/usage/tail';
import { FileRefused, readRegularTail, readRegularText, refusedFile } from '../../src/main/engine/read-file';

/** The engine's reads of files others may have put there (real files, a real FIFO, /dev/zero). */
describe('reading a file that may not be a file', () => {
  let dir: string;
  let fifo: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rd-read-'));
    fifo = join(dir, 'f.fifo');
    execFileSync('mkfifo', [fifo]);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a FIFO with no writer, /dev/zero and /dev/null are refused at once, never waited on', () => {
    for (const p of [fifo, '/dev/zero', '/dev/null']) {
      const t0 = Date.now();
      expect(() => readRegularText(p, 1024), p).toThrow(FileRefused);
      expect(() => readRegularTail(p, 1024), p).toThrow(FileRefused);
      expect(Date.now() - t0).toBeLessThan(500);
    }
    expect(() => liveEvidenceIO.readFile(fifo)).toThrow(/FIFO/);
    expect(() => liveTailIO.open(fifo)).toThrow(/FIFO/);
  });

  it('a file larger than the limit is refused before a byte is read; one at the limit is read whole', () => {
    const big = join(dir, 'big');
    writeFileSync(big, '');
    truncateSync(big, 10 * 1024 * 1024);
    let thrown: unknown;
    try {
      readRegularText(big, 256 * 1024);
    } catch (e) {
      thrown = e;
    }
    expect(refusedFile(thrown, 'the spec')).toMatchObject({
      ok: false,
      code: 'FILE_TOO_LARGE',
      evidence: { file: big, limitBytes: 256 * 1024 },
    });
    const exact = join(dir, 'exact');
    writeFileSync(exact, 'x'.repeat(100));
    expect(readRegularText(exact, 100)).toBe('x'.repeat(100));
    expect(readRegularTail(exact, 10)).toBe('x'.repeat(10));
  });

  it('what is not there or is a folder reads as fs says it (ENOENT, EISDIR); a refusal names the path and the kind', () => {
    expect(() => readRegularText(join(dir, 'none'), 10)).toThrow(expect.objectContaining({ code: 'ENOENT' }));
    mkdirSync(join(dir, 'sub'));
    expect(() => readRegularText(join(dir, 'sub'), 10)).toThrow(expect.objectContaining({ code: 'EISDIR' }));
    expect(liveTailIO.open(join(dir, 'none'))).toBeUndefined();
    let thrown: unknown;
    try {
      readRegularText(fifo, 10);
    } catch (e) {
      thrown = e;
    }
    expect(refusedFile(thrown, 'the text to send in')).toMatchObject({
      code: 'FILE_NOT_REGULAR',
      message: expect.stringContaining(`${fifo} is a FIFO`),
    });
    expect(refusedFile(new Error('other'), 'x')).toBeUndefined();
  });
});

import { execFileSync } from 'node:child_process';
import { closeSync, openSync, constants, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_SPEC_BYTES } from '../../src/main/engine/spec';
import type { RigWorld } from '../support/rig';
import { engineRequest, servedWorldPerTest } from '../support/serve';

/**
 * Nothing a request or a command names can block the engine (`rigdesk serve`, its real socket):
 * a FIFO nobody writes, a device that never ends and a 10 MB file are refused at once, and a second
 * client of the same engine is answered meanwhile.
 */

describe('nothing a request names can block the engine (rigdesk serve, real socket)', () => {
  const ctx = servedWorldPerTest('SIGKILL');
  let w: RigWorld;
  let fifo: string;
  let big: string;
  beforeEach(() => {
    w = ctx.w;
    fifo = join(w.root, 'spec.fifo');
    execFileSync('mkfifo', ['-m', '600', fifo]);
    big = join(w.root, 'big.yaml');
    writeFileSync(big, '');
    truncateSync(big, 10 * 1024 * 1024);
  });
  afterEach(() => {
    // A command parked in open() on the FIFO (before the fix) is let go by a writer.
    try {
      closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      /* nobody reads it: nothing was parked */
    }
  });

  it('a FIFO, /dev/zero and a 10 MB file given as a spec are refused within 1 s each, while a second client is answered', async () => {
    const info = await ctx.serve();
    const cases: [string, string][] = [
      [fifo, 'FILE_NOT_REGULAR'],
      ['/dev/zero', 'FILE_NOT_REGULAR'],
      [big, 'FILE_TOO_LARGE'],
    ];
    for (const [spec, code] of cases) {
      const t0 = Date.now();
      const [up, ps] = await Promise.all([
        engineRequest(info, 'up', { spec }, 3000),
        engineRequest(info, 'ps', {}, 3000),
      ]);
      const ms = Date.now() - t0;
      expect(ps, `ps beside up ${spec}`).toMatchObject({ ok: true });
      expect(up, spec).toMatchObject({ ok: false, code, evidence: { file: spec, limitBytes: MAX_SPEC_BYTES } });
      expect(ms, spec).toBeLessThan(1000);
    }
  });

  it('send --file and up --progress with a FIFO, /dev/zero or a 10 MB file are refused at once, and the engine keeps answering', async () => {
    await ctx.serve();
    const env = { RIGDESK_REQUIRE_ENGINE: '1' };
    const cli = (args: string[]) => w.cli([...args, '--json'], env);
    const cases: [string[], string][] = [
      [['send', 'lead@demo', '--file', fifo], 'FILE_NOT_REGULAR'],
      [['send', 'lead@demo', '--file', '/dev/zero'], 'FILE_NOT_REGULAR'],
      [['send', 'lead@demo', '--file', big], 'FILE_TOO_LARGE'],
      [['up', fifo, '--progress'], 'FILE_NOT_REGULAR'],
      [['up', '/dev/zero', '--progress'], 'FILE_NOT_REGULAR'],
      [['up', big, '--progress'], 'FILE_TOO_LARGE'],
    ];
    for (const [args, code] of cases) {
      // Two commands started together: the refused one ends within 1 s of the one that only asks.
      const t0 = Date.now();
      const refused = cli(args).then((r) => ({ r, ms: Date.now() - t0 }));
      const other = cli(['ps']).then((r) => ({ r, ms: Date.now() - t0 }));
      const [a, b] = await Promise.race([
        Promise.all([refused, other]),
        new Promise<never>((_, no) => setTimeout(() => no(new Error(`${args.join(' ')}: no answer in 10 s`)), 10_000)),
      ]);
      expect(b.r.code, `ps beside ${args.join(' ')}`).toBe(0);
      expect(a.r.json, `${args.join(' ')}: ${a.r.stdout}${a.r.stderr}`).toMatchObject({ ok: false, code });
      expect(a.r.code).toBe(2);
      expect(a.ms - b.ms, args.join(' ')).toBeLessThan(1000);
    }
  }, 120_000);
});

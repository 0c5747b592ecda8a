import Database from 'better-sqlite3';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countingExec, liveExec } from '../../src/main/engine/deps';
import {
  answerOnHost,
  BytesCache,
  parseProbeAnswers,
  probeArgs,
  type Probe,
} from '../../src/main/engine/hosts/evidence-batch';
import { withHostFiles, writeOnHost } from '../../src/main/engine/hosts/host-files';
import { prepareQwenSeat } from '../../src/main/engine/runtimes/qwen-settings';
import { readOpencodeSessions } from '../../src/main/engine/runtimes/opencode-sessions';
import type { EvidenceIO } from '../../src/main/engine/runtimes/types';

/**
 * A host's whole files (OpenCode's database) and a seat's own config files on a host, read and
 * written through the host's shell. The scripts run in a real local sh here (what ssh runs there).
 */
describe('whole files and config files on a host (probe and write scripts in a real sh)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rd-hostfiles-'));
  });
  afterEach(() => {
    chmodSync(dir, 0o755);
    rmSync(dir, { recursive: true, force: true });
  });

  it("reads OpenCode's sessions from a copy of a live WAL database and its log, in one round trip; an unchanged file is not sent again", async () => {
    const dataHome = join(dir, 'data');
    mkdirSync(join(dataHome, 'opencode'), { recursive: true });
    const file = join(dataHome, 'opencode', 'opencode.db');
    // A writer keeps the database open, its last rows only in the log (never checkpointed).
    const w = new Database(file);
    try {
      w.pragma('journal_mode = WAL');
      w.pragma('wal_autocheckpoint = 0');
      w.exec(
        'CREATE TABLE session (id TEXT PRIMARY KEY, directory TEXT, parent_id TEXT, time_created INTEGER, time_updated INTEGER)',
      );
      const add = w.prepare('INSERT INTO session VALUES (?, ?, ?, ?, ?)');
      add.run('ses_a', '/srv/w', null, 1, 2);
      add.run('ses_child', '/srv/w', 'ses_a', 3, 4);
      add.run('ses_b', '/srv/other', null, 5, 6);
      expect(existsSync(`${file}-wal`)).toBe(true);
      const exec = countingExec(liveExec);
      const r = await answerOnHost(
        exec,
        new Map([['q', { ask: (io: EvidenceIO) => readOpencodeSessions(dataHome, ['/srv/w'], io).map((s) => s.id) }]]),
      );
      expect(r.ok && r.answers.get('q')).toEqual(['ses_a']);
      expect(exec.count).toBe(1);
      const none = await answerOnHost(
        liveExec,
        new Map([['q', { ask: (io: EvidenceIO) => readOpencodeSessions(join(dir, 'nothing'), ['/srv/w'], io) }]]),
      );
      expect(none.ok && none.answers.get('q')).toEqual([]);

      const cache = new BytesCache();
      const probe: Probe = { op: 'bytes', path: file };
      const ask = async () => {
        const out = await liveExec('sh', probeArgs(cache.send([probe])));
        const raw = parseProbeAnswers(out.stdout, 1)[0]!;
        return { raw: raw.status, taken: cache.take(probe, raw) };
      };
      const first = await ask();
      expect(first.raw).toBe(0);
      const again = await ask();
      expect(again.raw, 'unchanged: not sent again').toBe(4);
      expect(again.taken).toEqual(first.taken);
      writeFileSync(file, Buffer.concat([readFileSync(file), Buffer.from('x')]));
      expect((await ask()).raw).toBe(0);
    } finally {
      w.close();
    }
  });

  it("runs a runtime's step against the host's files in rounds, writes what it wrote in one round trip, and never makes a new file over an old one", async () => {
    const home = join(dir, 'qwen');
    mkdirSync(home);
    writeFileSync(join(home, 'settings.json'), JSON.stringify({ model: { name: 'x' } }));
    const exec = countingExec(liveExec);
    const r = await withHostFiles(exec, (io) =>
      prepareQwenSeat({
        seatEnv: { QWEN_HOME: home },
        effectiveEnv: { QWEN_HOME: home, RIGDESK_QWEN_PROXY: 'http://127.0.0.1:8' },
        io,
      }),
    );
    expect(r.ok && r.value).toMatchObject({ ok: true, wrote: join(home, 'settings.json') });
    expect(exec.count, 'one round trip for the read').toBe(1);
    // Nothing is written until the writes are made.
    expect(JSON.parse(readFileSync(join(home, 'settings.json'), 'utf8'))).toEqual({ model: { name: 'x' } });
    if (!r.ok) return;
    const header = join(dir, 'pi', 'sessions', 'x.jsonl');
    const w = await writeOnHost(exec, [...r.writes, { kind: 'new', path: header, text: '{"type":"session"}\n' }]);
    expect(w).toEqual({ ok: true });
    expect(exec.count).toBe(2);
    expect(JSON.parse(readFileSync(join(home, 'settings.json'), 'utf8'))).toEqual({
      model: { name: 'x' },
      proxy: 'http://127.0.0.1:8',
    });
    expect(readFileSync(header, 'utf8')).toBe('{"type":"session"}\n');
    // What the files hold (Qwen's proxy, which may carry a password) went on stdin, not in the argv.
    expect(exec.calls[1]!.join(' ')).not.toContain('127.0.0.1:8');
    const mixed = join(dir, 'mixed');
    const texts = ['é日本\n', '', 'a'.repeat(5000), 'it\'s "q" $HOME `x`\n'];
    const wrote = await writeOnHost(liveExec, [
      ...texts.map((text, i) => ({ kind: 'file' as const, path: join(mixed, `f${i}`), text, mode: 0o600 })),
      { kind: 'link', path: join(mixed, 'ln'), text: mixed },
    ]);
    expect(wrote).toEqual({ ok: true });
    for (const [i, text] of texts.entries()) expect(readFileSync(join(mixed, `f${i}`), 'utf8')).toBe(text);
    const twice = await writeOnHost(liveExec, [{ kind: 'new', path: header, text: 'other' }]);
    expect(twice).toMatchObject({ ok: false, unreachable: false, reason: expect.stringContaining(header) });
    expect(readFileSync(header, 'utf8')).toBe('{"type":"session"}\n');

    // A file the host's user cannot read is the runtime's refusal, with nothing to write (as root,
    // which the tests are in CI, a user who cannot read it is at hand).
    if ((await liveExec('runuser', ['-u', 'nobody', '--', 'true'])).code !== 0) return;
    const locked = join(dir, 'locked');
    mkdirSync(locked);
    writeFileSync(join(locked, 'settings.json'), '{}');
    chmodSync(join(locked, 'settings.json'), 0o000);
    const asNobody = (file: string, args: readonly string[]) =>
      liveExec('runuser', ['-u', 'nobody', '--', file, ...args]);
    chmodSync(dir, 0o755);
    const refused = await withHostFiles(asNobody, (io) =>
      prepareQwenSeat({ seatEnv: { QWEN_HOME: locked }, effectiveEnv: { RIGDESK_QWEN_PROXY: 'http://x' }, io }),
    );
    expect(refused.ok && refused.value).toMatchObject({ ok: false, code: 'RUNTIME_CONFIG_UNSAFE' });
    expect(refused.ok && refused.writes).toEqual([]);
  });
});

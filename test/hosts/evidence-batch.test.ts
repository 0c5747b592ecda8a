import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countingExec, liveExec, type Exec } from '../../src/main/engine/deps';
import { answerOnHost, parseProbeAnswers, probeKey } from '../../src/main/engine/hosts/evidence-batch';
import { codex } from '../../src/main/engine/runtimes/codex';
import { claudeCode, claudeTranscriptFile } from '../../src/main/engine/runtimes/claude-code';
import type { EvidenceIO } from '../../src/main/engine/runtimes/types';

/**
 * The host's evidence, read for many seats in one round trip through the runtimes' own path
 * logic. The probe script runs in a real local sh here (what ssh would run on the host).
 */
describe('evidence on a host, batched across seats (probe script in a real sh)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rd-probe-'));
  });
  afterEach(() => {
    chmodSync(dir, 0o755);
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers every seat's transcript question in one round trip for Claude, one per folder level for Codex", async () => {
    const claudeHome = join(dir, 'claude');
    const cwd = '/srv/work';
    const ids = [
      '11111111-1111-1111-1111-111111111111',
      '22222222-2222-2222-2222-222222222222',
      '33333333-3333-3333-3333-333333333333',
    ];
    const file = claudeTranscriptFile(claudeHome, cwd, ids[0]!);
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, '{}\n');
    const exec = countingExec(liveExec);
    const qs = new Map(
      ids.map((id) => [id, { ask: (io: EvidenceIO) => claudeCode.transcriptPath!(claudeHome, cwd, id, io) ?? null }]),
    );
    const r = await answerOnHost(exec, qs);
    expect(r.ok && r.roundTrips).toBe(1);
    expect(exec.count).toBe(1);
    expect(r.ok && [...r.answers.values()]).toEqual([file, null, null]);

    const codexHome = join(dir, 'codex');
    const id = '019a0000-0000-7000-8000-000000000001';
    mkdirSync(join(codexHome, 'sessions', '2026', '12', '01'), { recursive: true });
    const rollout = join(codexHome, 'sessions', '2026', '12', '01', `rollout-2026-12-01T10-00-00-${id}.jsonl`);
    writeFileSync(rollout, '{}\n');
    const c = await answerOnHost(
      liveExec,
      new Map([['x', { ask: (io: EvidenceIO) => codex.transcriptPath!(codexHome, cwd, id, io) ?? null }]]),
    );
    expect(c.ok && c.answers.get('x')).toBe(rollout);
    expect(c.ok && c.roundTrips).toBe(4);
  });

  it('fails closed: an unreadable folder is an error (never "absent"), an adapter that swallows an unanswered question is asked again, a silent host is unreachable, a cut-short answer throws', async () => {
    const locked = join(dir, 'locked');
    mkdirSync(locked);
    writeFileSync(join(locked, 'f'), 'x');
    chmodSync(locked, 0o000);
    const asRemote: Exec = (file, args, opts) => liveExec('runuser', ['-u', 'nobody', '--', file, ...args], opts);
    const canRunAs = (await liveExec('runuser', ['-u', 'nobody', '--', 'true'])).code === 0;
    if (canRunAs) {
      // Behind a folder the host's user cannot search (the temp folder is 0700), then inside one it cannot read.
      const behind = await answerOnHost(
        asRemote,
        new Map([['q', { ask: (io: EvidenceIO) => io.exists(join(locked, 'f')) }]]),
      );
      expect(behind.ok && behind.answers.get('q')).toMatchObject({ error: expect.stringContaining('EACCES') });
      chmodSync(dir, 0o755);
      const r = await answerOnHost<string[] | boolean>(
        asRemote,
        new Map([
          ['q', { ask: (io: EvidenceIO) => io.listDir(locked) }],
          ['f', { ask: (io: EvidenceIO) => io.exists(join(locked, 'f')) }],
          ['n', { ask: (io: EvidenceIO) => io.exists(join(dir, 'none', 'x')) }],
        ]),
      );
      expect(r.ok && r.answers.get('q')).toMatchObject({ error: expect.stringContaining('EACCES') });
      expect(r.ok && r.answers.get('f')).toMatchObject({ error: expect.stringContaining('EACCES') });
      expect(r.ok && r.answers.get('n')).toBe(false);
    }
    let asked = 0;
    const swallow = await answerOnHost(
      liveExec,
      new Map([
        [
          'q',
          {
            ask: (io: EvidenceIO) => {
              asked += 1;
              try {
                return io.exists(join(dir, 'nope')) ? 'yes' : 'no';
              } catch {
                return 'guessed';
              }
            },
          },
        ],
      ]),
    );
    expect(swallow.ok && swallow.answers.get('q')).toBe('no');
    expect(asked).toBe(2);
    const down: Exec = async () => ({
      code: null,
      signal: null,
      stdout: '',
      stderr: '',
      timedOut: false,
      spawnError: 'ssh: Connection refused',
    });
    expect(await answerOnHost(down, new Map([['q', { ask: (io: EvidenceIO) => io.exists('/') }]]))).toMatchObject({
      ok: false,
      unreachable: true,
    });
    expect(() => parseProbeAnswers('\x1eRD:0:0\n', 1)).toThrow(/incomplete/);
    expect(probeKey({ op: 'exists', path: '/a' })).not.toBe(probeKey({ op: 'list', path: '/a' }));
  });
  it('a FIFO or a device where a file is read is unreadable at once, never read: the round is not held, nothing endless comes back', async () => {
    const fifo = join(dir, 'live.fifo');
    execFileSync('mkfifo', [fifo]);
    const file = join(dir, 'ok.json');
    writeFileSync(file, '{}');
    const t0 = Date.now();
    const r = await answerOnHost<string>(
      liveExec,
      new Map([
        ['fifo', { ask: (io: EvidenceIO) => io.readFile(fifo) }],
        ['tail', { ask: (io: EvidenceIO) => io.readTail!(fifo, 100) }],
        ['zero', { ask: (io: EvidenceIO) => io.readFile('/dev/zero') }],
        ['file', { ask: (io: EvidenceIO) => io.readFile(file) }],
      ]),
    );
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(r.ok, JSON.stringify(r)).toBe(true);
    if (!r.ok) return;
    for (const q of ['fifo', 'tail', 'zero']) expect(r.answers.get(q), q).toMatchObject({ error: expect.any(String) });
    expect(r.answers.get('file')).toBe('{}');
  });
});

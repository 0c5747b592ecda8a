/**
 * `rigdesk fork` with the real Codex CLI (daemon disabled) against the fake model server: `codex
 * fork X` in a new seat of the same pod, while the source seat itself holds X's writer lock. The
 * fork's thread id is learnt from the writer lock its own process takes (never guessed) and bound
 * to the new seat; X's rollout is not appended to by the fork (Codex 0.171 records the fork by
 * reference: the new rollout's session_meta names X and the ordinal it forks at); each side's
 * turns stay in its own rollout. `restart --keep-conversation` then replaces the source's shim and
 * native binary in the same pane, the lock moving with it.
 */
import { mkdirSync, readFileSync, realpathSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { killPids, locksOnFile, pidsWithEnv, processTree, waitForExit } from '../agents/agent-run';
import { makeCodexFixture, type CodexFixture } from '../agents/codex-fixture';
import { closedPort, startFakeModelServer, type FakeModelServer } from '../agents/fake-model-server';
import { descendants, liveProcReader } from '../../src/main/engine/proc';
import { RigWorld } from '../support/rig';
import { waitFor } from '../support/tmux';

const LOCAL = ['127.0.0.1', '::ffff:127.0.0.1'];

describe('fork with a real Codex seat', () => {
  let server: FakeModelServer;
  let closed: number;
  let w: RigWorld;
  let fx: CodexFixture;
  let work: string;

  beforeAll(async () => {
    server = await startFakeModelServer();
    closed = await closedPort();
  });
  afterAll(async () => {
    await server.close();
    expect(server.requests.every((r) => LOCAL.includes(r.remoteAddress))).toBe(true);
  });
  beforeEach(() => {
    w = new RigWorld();
    mkdirSync(join(w.root, 'work'), { recursive: true });
    work = realpathSync(join(w.root, 'work'));
    fx = makeCodexFixture({
      serverUrl: server.url,
      closedPort: closed,
      trustedCwds: [work],
      root: join(w.root, 'codex'),
    });
  });
  afterEach(async () => {
    const r = w.tmux.tryRun(['list-panes', '-a', '-F', '#{pane_pid}']);
    const snap = liveProcReader().snapshot();
    const pids = r.ok
      ? r.out
          .trim()
          .split('\n')
          .filter(Boolean)
          .map(Number)
          .flatMap((p) => [p, ...descendants(snap, p).map((d) => d.pid)])
      : [];
    w.tmux.kill();
    for (const p of pids) await waitForExit(p, 5000);
    const strays = pidsWithEnv('CODEX_HOME', fx.codexHome);
    if (strays.length) await killPids(strays);
    w.cleanup();
  });

  const yaml = () =>
    `${[
      'name: crew',
      'pods:',
      '  - id: team',
      '    members:',
      '      - id: coder',
      '        runtime: codex',
      '        cwd: ./work',
      '        env:',
      ...Object.entries(fx.env).map(([k, v]) => `          ${k}: ${JSON.stringify(v)}`),
    ].join('\n')}\n`;
  type Row = { seat: string; state: string; activity?: string; pid?: number; conversationId?: string; paneId?: string };
  const rows = async () => (await w.cli(['ps', '--json'])).json.seats as Row[];
  const idle = (seat: string) =>
    waitFor(
      async () => {
        const r = (await rows()).find((x) => x.seat === seat);
        return r?.activity === 'idle' && r.conversationId ? r : undefined;
      },
      { timeoutMs: 60_000, what: `${seat} idle with its thread known` },
    );
  const read = (p: string | undefined) => (p && existsSync(p) ? readFileSync(p, 'utf8') : '');
  async function turn(seat: string, id: string, text: string) {
    const s = await w.cli(['send', seat, text, '--json']);
    expect(s.code, s.stdout + s.stderr).toBe(0);
    await waitFor(() => read(fx.rolloutFor(id)).includes(`ACK ${text}`), {
      timeoutMs: 60_000,
      what: `${text} in ${seat}'s rollout`,
    });
  }

  it('fork --as: codex fork X in a new seat; its id comes from its own writer lock; X is untouched by the fork', async () => {
    const up = await w.cli(['up', w.spec('rig.yaml', yaml()), '--json']);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    await waitFor(async () => (await rows()).find((x) => x.seat === 'coder@crew')?.activity === 'idle', {
      timeoutMs: 60_000,
      what: 'codex up',
    });
    await w.cli(['send', 'coder@crew', 'before fork', '--json']).then((s) => expect(s.code, s.stdout).toBe(0));
    const coder = await idle('coder@crew');
    const X = coder.conversationId!;
    await waitFor(() => read(fx.rolloutFor(X)).includes('ACK before fork'), { timeoutMs: 60_000, what: 'first reply' });
    await idle('coder@crew');

    const before = read(fx.rolloutFor(X));
    const f = await w.cli(['fork', 'coder@crew', '--as', 'scout', '--json']);
    expect(f.code, f.stdout + f.stderr).toBe(0);
    const NEW = f.json.result.conversationId as string;
    expect(f.json.result).toMatchObject({
      seat: 'scout@crew',
      outcome: 'forked',
      from: X,
      evidence: { source: 'writer_lock' },
    });
    expect(NEW).not.toBe(X);
    // Lineage: the shim's argv is `codex fork X` (no claim on X); the new thread's lock is held in the new pane.
    const scout = await idle('scout@crew');
    expect(scout.conversationId).toBe(NEW);
    expect(readFileSync(`/proc/${scout.pid}/cmdline`, 'utf8').split('\0')).toEqual(expect.arrayContaining(['fork', X]));
    const tree = processTree(Number(w.tmux.run(['display-message', '-p', '-t', scout.paneId!, '#{pane_pid}']).trim()));
    expect(locksOnFile(fx.lockPath(NEW)).some((l) => l.mode === 'WRITE' && tree.includes(l.pid))).toBe(true);
    expect(locksOnFile(fx.lockPath(X)).some((l) => tree.includes(l.pid))).toBe(false);
    expect(w.engine().store.rigs.seat('scout@crew')).toMatchObject({
      pod: 'team',
      runtime: 'codex',
      conversationId: NEW,
    });

    await turn('scout@crew', NEW, 'in the fork');
    expect(read(fx.rolloutFor(X)) === before, 'X rollout unchanged by the fork').toBe(true);
    // Codex 0.171 records the fork by reference: the new rollout's session_meta names X and where in it the fork starts.
    const meta = JSON.parse(read(fx.rolloutFor(NEW)).split('\n')[0]!) as {
      type: string;
      payload: { id: string; forked_from_id?: string; history_base?: { thread_id: string } };
    };
    expect(meta).toMatchObject({
      type: 'session_meta',
      payload: { id: NEW, forked_from_id: X, history_base: { thread_id: X } },
    });
    await turn('coder@crew', X, 'in the source');
    expect(read(fx.rolloutFor(NEW)).includes('in the source')).toBe(false);
    expect(read(fx.rolloutFor(X)).includes('in the fork')).toBe(false);

    // restart --keep-conversation: same pane; the shim and the native binary both gone before the
    // new pair starts; X's writer lock moves to the new process in the same pane.
    const src = await idle('coder@crew');
    const oldTree = processTree(Number(w.tmux.run(['display-message', '-p', '-t', src.paneId!, '#{pane_pid}']).trim()));
    const r = await w.cli(['restart', 'coder@crew', '--keep-conversation', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json.result).toMatchObject({ outcome: 'resumed', conversationId: X, paneId: src.paneId });
    const back = await idle('coder@crew');
    expect(back.paneId).toBe(src.paneId);
    expect(back.pid).not.toBe(src.pid);
    const newTree = processTree(
      Number(w.tmux.run(['display-message', '-p', '-t', back.paneId!, '#{pane_pid}']).trim()),
    );
    await waitFor(() => locksOnFile(fx.lockPath(X)).some((l) => l.mode === 'WRITE' && newTree.includes(l.pid)), {
      timeoutMs: 30_000,
      what: 'X lock in the restarted pane',
    });
    expect(oldTree.filter((p) => newTree.includes(p))).toEqual([]);
    await turn('coder@crew', X, 'after restart');
  }, 300_000);
});

/**
 * tmux 3.3a segfaults when a notice (a session made or gone, a client detached) is written to a
 * control client that has not finished identifying itself (control-timing.ts). The held client
 * never starts one while a command of its own runs one-shot, and a replacement waits until the
 * server no longer lists the client it replaces. Real tmux on a private -L server; where a test
 * holds a one-shot or makes the server keep listing a client, that is a forced fault, named so.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { liveExec } from '../../src/main/engine/deps';
import { socketPathForName } from '../../src/main/engine/home';
import { ControlConnection } from '../../src/main/engine/tmux/control';
import type { ControlTarget } from '../../src/main/engine/tmux/control-target';
import { controlArgs, probeSocket } from '../../src/main/engine/tmux/held';
import { oneShotArgs } from '../../src/main/engine/tmux/quote';
import { cleanTmuxEnv, TestTmux } from '../support/tmux';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('held tmux client: never identifying itself while the engine changes the server', () => {
  let tmux: TestTmux;
  let conn: ControlConnection | undefined;
  /** When each client process was started, and each one-shot's span (start, end). */
  let spawnedAt: number[];
  let oneShotSpans: [number, number][];
  beforeEach(() => {
    tmux = new TestTmux('rdt-ident');
    spawnedAt = [];
    oneShotSpans = [];
  });
  afterEach(() => {
    conn?.close();
    tmux.kill();
  });

  const server = () => ['-L', tmux.socketName, '-f', '/dev/null'];
  const realOneShot: ControlTarget['oneShot'] = (args, o) =>
    liveExec('tmux', ['-u', ...server(), ...oneShotArgs(args)], { ...o, env: cleanTmuxEnv() });

  function connection(oneShot: ControlTarget['oneShot']): ControlConnection {
    const socket = socketPathForName(tmux.socketName, process.getuid?.() ?? 0, process.env);
    return new ControlConnection({
      key: tmux.socketName,
      argv: ['tmux', '-u', ...server(), ...controlArgs()],
      env: cleanTmuxEnv(),
      probe: () => probeSocket(socket),
      absentText: `no server running on ${socket}`,
      oneShot: async (args, o) => {
        const span: [number, number] = [Date.now(), Number.POSITIVE_INFINITY];
        oneShotSpans.push(span);
        try {
          return await oneShot(args, o);
        } finally {
          span[1] = Date.now();
        }
      },
      onSpawn: () => void spawnedAt.push(Date.now()),
    });
  }

  it('no client is started while a one-shot of the connection runs (a forced fault holds the one-shot 600 ms)', async () => {
    // A server with no session: the first client cannot attach, so the command goes one-shot.
    tmux.run(['start-server', ';', 'set-option', '-g', 'exit-empty', 'off']);
    const held: ControlTarget['oneShot'] = async (args, o) => {
      if (args[0] === 'new-session') await sleep(600);
      return realOneShot(args, o);
    };
    conn = connection(held);
    const made = conn.run(['new-session', '-d', '-s', 'a', 'sleep', '600'], { timeoutMs: 5_000 });
    // Asked while the create runs one-shot: it waits for it, then goes through a client.
    await sleep(250);
    const asked = conn.run(['display-message', '-p', 'after'], { timeoutMs: 5_000 });
    expect((await made).code).toBe(0);
    expect((await asked).stdout).toBe('after\n');
    const create = oneShotSpans.find((s) => s[1] - s[0] >= 600)!;
    expect(create, 'the create ran one-shot').toBeDefined();
    const during = spawnedAt.filter((t) => t > create[0] && t < create[1]);
    expect(during, 'client processes started while the create ran').toEqual([]);
    expect(conn.connected).toBe(true);
  }, 20_000);

  it('a client that went is replaced only once the server no longer lists it (a forced fault: list-clients names it 700 ms longer)', async () => {
    tmux.newSession('one', ['sleep', '600']);
    let gonePid: number | undefined;
    let listedUntil = 0;
    const slowToForget: ControlTarget['oneShot'] = async (args, o) => {
      const r = await realOneShot(args, o);
      if (args[0] === 'list-clients' && gonePid !== undefined && Date.now() < listedUntil)
        return { ...r, code: 0, stdout: `${r.stdout}${gonePid}\n` };
      return r;
    };
    conn = connection(slowToForget);
    expect((await conn.run(['display-message', '-p', 'hello'], { timeoutMs: 5_000 })).stdout).toBe('hello\n');
    expect(spawnedAt).toHaveLength(1);
    gonePid = conn.pid!;
    listedUntil = Date.now() + 700;
    process.kill(gonePid, 'SIGKILL');
    await sleep(100);
    const next = await conn.run(['display-message', '-p', 'next'], { timeoutMs: 5_000 });
    expect(next.stdout).toBe('next\n');
    expect(spawnedAt, 'one new client').toHaveLength(2);
    expect(spawnedAt[1]!, 'started once the server no longer listed the old one').toBeGreaterThanOrEqual(listedUntil);
  }, 20_000);
  it("another control client of the engine's starts once the held client's lines are answered, and the held client writes nothing until it has attached", async () => {
    tmux.newSession('one', ['sleep', '600']);
    conn = connection(realOneShot);
    expect((await conn.run(['display-message', '-p', 'hello'], { timeoutMs: 5_000 })).code).toBe(0);
    const at: Record<string, number> = {};
    // A line tmux takes 400 ms over (run-shell holds the client's queue until its job ends).
    const slow = conn.run(['run-shell', 'sleep 0.4'], { timeoutMs: 5_000 }).then(() => void (at.slow = Date.now()));
    let asked: Promise<unknown> | undefined;
    await conn.quietWhile(async () => {
      at.start = Date.now();
      asked = conn!.run(['display-message', '-p', 'meanwhile'], { timeoutMs: 5_000 }).then(() => {
        at.answered = Date.now();
      });
      await sleep(300);
      at.end = Date.now();
    });
    await slow;
    await asked;
    expect(at.start!, 'started after the line in flight was answered').toBeGreaterThanOrEqual(at.slow!);
    expect(at.answered!, 'a line asked meanwhile was written after').toBeGreaterThanOrEqual(at.end!);
  }, 20_000);
});

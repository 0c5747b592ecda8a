import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { RIGDESK_BIN, RigWorld, shellRigYaml } from '../support/rig';
import { describeProcs, descendantsOf, killByPid, type ProcId, waitAllGone } from '../support/procs';
import { waitFor } from '../support/tmux';

/**
 * Every process an engine starts ends with it, whatever ends it (issue 32): each exit path below
 * lists the engine process's descendants by pid (a walk of /proc) while it runs, ends it that way,
 * and finds none of those processes running 3 s later. The rig makes every kind of child: the
 * engine's held tmux client, the activity watch's control client (one pane already pipes its output
 * elsewhere, so it gets a client instead of a pipe) and, for `serve`, a window's live terminal (an
 * attach client in a pty); for the CLI's own engine, its one-shot tmux commands. The uncaught error
 * is forced through a test fault (RIGDESK_TEST_FAULT).
 */
let w: RigWorld;
const started: ChildProcess[] = [];
const seen: ProcId[] = [];

beforeAll(async () => {
  w = new RigWorld();
  const up = await w.cli(['up', w.spec('duo.yaml', shellRigYaml('duo', ['lead', 'worker'])), '--json']);
  expect(up.code, up.stdout + up.stderr).toBe(0);
  w.tmux.run(['pipe-pane', '-t', 'worker@duo', `cat >> ${join(w.root, 'their-log.txt')}`]);
}, 60_000);

afterAll(() => {
  for (const p of started) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  killByPid(seen);
  w?.cleanup();
});

const heldClient = (p: ProcId) => p.argv.some((a) => a.includes('no-output'));
const oneShotTmux = (p: ProcId) => /(^|\/)tmux$/.test(p.argv[0] ?? '') && !p.argv.includes('-C');
const watchClient = (p: ProcId) => p.argv.includes('-r') && p.argv.includes('attach-session');
const viewer = (p: ProcId) => p.argv.includes('attach-session') && p.argv.includes('-t') && !p.argv.includes('-C');

function startServe(env: NodeJS.ProcessEnv = {}): Promise<{ proc: ChildProcess; url: URL }> {
  const proc = spawn(process.execPath, [RIGDESK_BIN, 'serve', '--json'], {
    env: { ...w.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(proc);
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  return waitFor(
    () => {
      const line = out.split('\n').find((l) => l.includes('"serving"'));
      return line ? { proc, url: new URL(JSON.parse(line).url as string) } : undefined;
    },
    { what: 'serve up', timeoutMs: 30_000 },
  );
}

/** A window's live terminal on a seat: the engine's process starts an attach client in a pty. */
async function openTerminal(url: URL): Promise<WebSocket> {
  const ws = new WebSocket(`ws://${url.host}/ws?token=${url.searchParams.get('token')}`, {
    headers: { origin: `http://${url.host}` },
  });
  await new Promise((res, rej) => (ws.once('open', res), ws.once('error', rej)));
  ws.send(JSON.stringify({ id: 1, method: 'terminal.open', params: { seat: 'lead@duo', cols: 80, rows: 24 } }));
  return ws;
}

/** The engine's children once every kind is up, then the same pids after `end` ended it. */
async function endAndCheck(
  proc: ChildProcess,
  kinds: ((p: ProcId) => boolean)[],
  end: () => void,
): Promise<{ code: number | null; before: ProcId[]; left: ProcId[] }> {
  const before = await waitFor(
    () => {
      const d = descendantsOf(proc.pid!);
      return kinds.every((k) => d.some(k)) ? d : undefined;
    },
    { what: "the engine's children", timeoutMs: 20_000 },
  );
  seen.push(...before);
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  end();
  const code = await exited;
  return { code, before, left: await waitAllGone(before, 3_000) };
}

describe('rigdesk serve ends every process its engine started', () => {
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    it(`on ${signal}`, async () => {
      const { proc, url } = await startServe();
      const ws = await openTerminal(url);
      const r = await endAndCheck(proc, [heldClient, watchClient, viewer], () => proc.kill(signal));
      ws.terminate();
      expect(r.code).toBe(0);
      expect(describeProcs(r.left), `before:\n${describeProcs(r.before)}`).toBe('');
    }, 60_000);
  }

  it('on an uncaught error (forced by a test fault)', async () => {
    const { proc, url } = await startServe({ RIGDESK_TEST_FAULT: 'serve.ready:throw-on-sigusr2' });
    const ws = await openTerminal(url);
    let err = '';
    proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    const r = await endAndCheck(proc, [heldClient, watchClient, viewer], () => proc.kill('SIGUSR2'));
    ws.terminate();
    expect(r.code).toBe(1);
    expect(err).toContain('test fault: an uncaught error');
    expect(describeProcs(r.left), `before:\n${describeProcs(r.before)}`).toBe('');
  }, 60_000);
});

describe("the CLI's own engine ends every process it started", () => {
  /** A send that waits for a busy seat: the CLI's engine asks tmux about it meanwhile. */
  function waitingSend(): ChildProcess {
    const p = spawn(
      process.execPath,
      [RIGDESK_BIN, 'send', 'lead@duo', 'echo sent', '--wait-for-idle', '30', '--json'],
      { env: w.env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    started.push(p);
    return p;
  }

  /**
   * The CLI's engine sends tmux one-shot commands (cli/main.ts says why), each a process of a few
   * milliseconds: its children are sampled until one of them is seen, then the CLI is ended.
   */
  async function sampledEnd(
    proc: ChildProcess,
    end: () => void,
  ): Promise<{ code: number | null; before: ProcId[]; left: ProcId[] }> {
    const before = new Map<number, ProcId>();
    await waitFor(
      () => {
        for (const p of descendantsOf(proc.pid!)) before.set(p.pid, p);
        return [...before.values()].some(oneShotTmux) || undefined;
      },
      { what: "a tmux command of the CLI's engine", timeoutMs: 20_000, intervalMs: 5 },
    );
    const seenNow = [...before.values()];
    seen.push(...seenNow);
    const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
    end();
    const code = await exited;
    expect(seenNow.filter(heldClient), 'no held control client').toEqual([]);
    return { code, before: seenNow, left: await waitAllGone(seenNow, 3_000) };
  }

  it('when the command ends by itself', async () => {
    w.tmux.run(['send-keys', '-t', 'lead@duo', 'sleep 4', 'Enter']);
    const send = waitingSend();
    const r = await sampledEnd(send, () => undefined);
    expect(r.code).toBe(0);
    expect(describeProcs(r.left), `before:\n${describeProcs(r.before)}`).toBe('');
  }, 60_000);

  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    it(`on ${signal}`, async () => {
      w.tmux.run(['send-keys', '-t', 'lead@duo', 'sleep 20', 'Enter']);
      const send = waitingSend();
      const r = await sampledEnd(send, () => send.kill(signal));
      w.tmux.run(['send-keys', '-t', 'lead@duo', 'C-c']);
      expect(r.code).toBe(128 + { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 }[signal]);
      expect(describeProcs(r.left), `before:\n${describeProcs(r.before)}`).toBe('');
    }, 60_000);
  }
});

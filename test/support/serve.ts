import { type ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { join } from 'node:path';
import { type EngineInfo, readEngineInfo } from '../../src/main/engine/rpc/server';
import { afterEach, beforeEach } from 'vitest';
import { RIGDESK_BIN, RigWorld } from './rig';
import { waitFor } from './tmux';

/** The real `rigdesk serve` of a world, and the raw engine socket the CLI talks to. */

export async function startServe(w: RigWorld): Promise<{ child: ChildProcess; info: EngineInfo }> {
  const child = spawn(process.execPath, [RIGDESK_BIN, 'serve'], { env: w.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  await waitFor(() => out.includes('serving'), { what: 'serve up' });
  return { child, info: readEngineInfo(join(w.home, 'engine.json'))! };
}

/** Ends a serve by its pid (SIGKILL for one that may be parked and never handle SIGTERM). */
export async function stopServe(child: ChildProcess | undefined, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  child.kill(signal);
  await new Promise((r) => child.once('exit', r));
}

/** One line to the socket, its first answer line parsed; 'no answer' after `timeoutMs`. */
export function rawCall(socket: string, frame: string, timeoutMs = 30_000): Promise<any> {
  // eslint-disable-line @typescript-eslint/no-explicit-any
  return new Promise((resolve, reject) => {
    const s = connect(socket);
    let buf = '';
    const t = setTimeout(() => (s.destroy(), resolve('no answer')), timeoutMs);
    s.on('connect', () => s.write(`${frame}\n`));
    s.on('data', (d) => {
      buf += d.toString();
      if (!buf.includes('\n')) return;
      clearTimeout(t);
      s.destroy();
      resolve(JSON.parse(buf.slice(0, buf.indexOf('\n'))));
    });
    s.on('error', (e) => (clearTimeout(t), reject(e)));
  });
}

/** One request with the engine's token, on a connection of its own: its result, or 'no answer'. */
export async function engineRequest(
  info: EngineInfo,
  method: string,
  params: unknown,
  timeoutMs?: number,
): Promise<any> {
  // eslint-disable-line @typescript-eslint/no-explicit-any
  const r = await rawCall(info.socket, JSON.stringify({ id: 1, token: info.token, method, params }), timeoutMs);
  return r === 'no answer' ? r : r.result;
}

/**
 * A world per test of the enclosing describe, with `serve()` starting its `rigdesk serve`; after
 * each, that serve is ended by its pid (`stop`: the signal) and the world shut down.
 */
export function servedWorldPerTest(stop: NodeJS.Signals = 'SIGTERM'): {
  w: RigWorld;
  child?: ChildProcess;
  serve: () => Promise<EngineInfo>;
} {
  const ctx = {} as { w: RigWorld; child?: ChildProcess; serve: () => Promise<EngineInfo> };
  beforeEach(() => {
    const w = new RigWorld();
    ctx.w = w;
    ctx.child = undefined;
    ctx.serve = async () => {
      const started = await startServe(w);
      ctx.child = started.child;
      return started.info;
    };
  });
  afterEach(async () => {
    await stopServe(ctx.child, stop);
    await ctx.w.shutdown();
  });
  return ctx;
}

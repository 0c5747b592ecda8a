import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { RIGDESK_BIN, RigWorld, shellRigYaml } from '../support/rig';
import { describeProcs, killByPid, procsNaming, type ProcId } from '../support/procs';
import { cleanTmuxEnv, waitFor } from '../support/tmux';

/**
 * The wedge of issue 32: SIGTERM (or SIGINT) to `rigdesk serve` in the same moment as
 * `tmux kill-server` on its socket, as a script's cleanup or a logout does. tmux 3.3a's server,
 * told to exit, waits for every client to go, and let the engine's control client go only once its
 * output was flushed into the engine's pipe; the engine, gone by then, left that output unflushed,
 * so the server lived on refusing every client and the client lived on, orphaned. Now the engine
 * ends its client itself (detach, then by its pid) before it exits.
 */
const ROUNDS = 10;

describe('serve ended together with kill-server (issue 32 wedge)', () => {
  let w: RigWorld | undefined;
  const started: ChildProcess[] = [];
  afterEach(() => {
    for (const p of started.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
    if (w) killByPid(procsNaming(w.tmux.socketName));
    w?.cleanup();
    w = undefined;
  });

  async function serveOnce(world: RigWorld): Promise<ChildProcess> {
    const serve = spawn(process.execPath, [RIGDESK_BIN, 'serve'], {
      env: world.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started.push(serve);
    let out = '';
    serve.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    await waitFor(() => out.includes('serving'), { what: 'serve up', timeoutMs: 30_000 });
    // The activity monitor has taken its first look (its pipes and the held client are up).
    await waitFor(() => procsNaming(world.tmux.socketName).some((p) => p.argv.some((a) => a.includes('no-output'))), {
      what: "the engine's control client",
      timeoutMs: 15_000,
    });
    return serve;
  }

  function killServer(world: RigWorld): Promise<void> {
    return new Promise((r) =>
      execFile('tmux', ['-L', world.tmux.socketName, 'kill-server'], { env: cleanTmuxEnv() }, () => r()),
    );
  }

  it(`${ROUNDS} rounds each of SIGTERM and SIGINT: 3 s later nothing names the socket, and up works again`, async () => {
    w = new RigWorld();
    const spec = w.spec('duo.yaml', shellRigYaml('duo', ['lead', 'worker']));
    const left: { round: string; procs: ProcId[] }[] = [];
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      for (let i = 1; i <= ROUNDS; i++) {
        const up = await w.cli(['up', spec, '--json']);
        expect(up.code, `${signal} round ${i}: up\n${up.stdout}${up.stderr}`).toBe(0);
        const serve = await serveOnce(w);
        const exited = new Promise((r) => serve.once('exit', r));
        serve.kill(signal);
        await killServer(w);
        await exited;
        await new Promise((r) => setTimeout(r, 3_000));
        const procs = procsNaming(w.tmux.socketName);
        if (procs.length > 0) {
          left.push({ round: `${signal} round ${i}`, procs });
          killByPid(procs);
          await new Promise((r) => setTimeout(r, 300));
        }
      }
    }
    expect(left.map((l) => `${l.round}:\n${describeProcs(l.procs)}`).join('\n')).toBe('');
    const again = await w.cli(['up', spec, '--json']);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    const ps = await w.cli(['ps', '--json']);
    expect(ps.json.seats.map((s: { state: string }) => s.state)).toEqual(['running', 'running']);
  }, 600_000);
});

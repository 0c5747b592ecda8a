/**
 * Journey: an omo (oh-my-opencode) seat, driven through the `rigdesk` CLI: OpenCode's own TUI with
 * oh-my-opencode's plugin, which Rigdesk installs into the seat's own OpenCode config from the
 * package on the seat's PATH, with the records that keep OpenCode from installing its plugin SDK
 * from the registry on every start (offline that took ~70 s of blank screen), and the plugin's
 * telemetry off. Its sessions are OpenCode's.
 *
 * Then the case the single-writer guard exists for: a headless `omo run --session-id X`, started by
 * a person, resuming the session the seat's pane owns. omo and OpenCode let two processes write X;
 * Rigdesk does not: while such a run lives, a send to the seat and a launch of the seat on X are
 * refused (CONVERSATION_LIVE_ELSEWHERE naming the run) and nothing is started; once it is over the
 * seat resumes X.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, lstatSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OMO_BIN, OMO_SERVER_TIMEOUT } from '../agents/omo-fixture';
import { OPENCODE_BIN } from '../agents/opencode-fixture';
import { agentProcessEnv, pidsWithEnv, rawCmdline } from '../agents/agent-run';
import { closedPort, type FakeModelServer } from '../agents/fake-model-server';
import { waitFor } from '../support/tmux';
import { expectOnlyLoopback, JourneyWorld, requireCli, startServer, waitForExit } from './support';

const SEAT = 'oo@omo';

describe('journey: an omo seat (OpenCode with oh-my-opencode) driven through rigdesk', () => {
  const installed = requireCli('omo', 'opencode');
  let server: FakeModelServer;
  let w: JourneyWorld;
  let X = '';
  const fx = () => w.fx.omo!;
  const text = () => fx().sessionText(X);
  /** OpenCode processes of the seat's data dir (TUIs and servers), but `except`. */
  const opencodesOfHome = (except: number[] = []) =>
    pidsWithEnv('XDG_DATA_HOME', fx().dataHome).filter((p) => {
      try {
        return !except.includes(p) && readFileSync(`/proc/${p}/comm`, 'utf8').trim().startsWith('opencode');
      } catch {
        return false;
      }
    });

  beforeAll(async () => {
    const s = await startServer({ slowChunks: 4, slowMs: 500 });
    server = s.server;
    w = new JourneyWorld(server, s.closed, ['omo']);
  });
  afterEach(async () => {
    server.release();
    await w?.endTestOthers();
  });
  afterAll(async () => {
    await w?.cleanup();
    await server?.close();
    if (server && installed()) expectOnlyLoopback(server);
  });

  it("up installs the local plugin into the seat's own config and launches OpenCode with it, up in seconds (no registry install), the plugin's agent in charge and its telemetry off", async () => {
    const configFile = join(fx().configDir, 'opencode.json');
    expect(JSON.parse(readFileSync(configFile, 'utf8')).plugin, 'the fixture has no plugin').toBeUndefined();
    const t0 = Date.now();
    const up = await w.up('omo', [{ id: 'oo', runtime: 'omo' }]);
    expect(up.json.seats[0]).toMatchObject({ outcome: 'launched', launched: { mode: 'fresh', runtime: 'omo' } });
    const plugin = JSON.parse(readFileSync(configFile, 'utf8')).plugin as string[];
    expect(plugin).toEqual([expect.stringMatching(/^file:\/\/.*\/oh-my-opencode\/dist\/index\.js$/)]);
    expect(existsSync(new URL(plugin[0]!)), 'the local package itself').toBe(true);
    expect(lstatSync(join(fx().configDir, 'node_modules', '@opencode-ai', 'plugin')).isSymbolicLink()).toBe(true);
    // The plugin's own agent on the TUI's status line: it loaded.
    await w.screenShows(SEAT, /Sisyphus/, "the plugin's agent", 60_000);
    const { row } = await w.seen(SEAT, { activity: 'idle' });
    const upMs = Date.now() - t0;
    console.info(`omo: seat up with the plugin ${upMs} ms after rigdesk up`);
    expect(upMs, 'OpenCode did not wait on a registry install').toBeLessThan(45_000);
    const log = existsSync(fx().logFile) ? readFileSync(fx().logFile, 'utf8') : '';
    expect(log).not.toMatch(/dependency install/);
    const env = readFileSync(`/proc/${row.pid}/environ`, 'utf8').split('\0');
    expect(env).toEqual(expect.arrayContaining(['OMO_SEND_ANONYMOUS_TELEMETRY=0', 'OMO_DISABLE_POSTHOG=1']));
    const doctor = await w.cli(['doctor', '--json']);
    const checks = Object.fromEntries(doctor.json.checks.map((c: { check: string }) => [c.check, c]));
    expect(checks[`omo plugin (${SEAT})`], doctor.stdout).toMatchObject({ ok: true });
    expect(checks['omo CLI']).toMatchObject({ ok: true });
  }, 150_000);

  it('send: delivered; the reply is in a session ps names from opencode.db', async () => {
    const sent = await w.cli(['send', SEAT, 'hello omo', '--verify', '--json']);
    expect(sent.json, sent.stdout + sent.stderr + w.screen(SEAT)).toMatchObject({
      ok: true,
      sent: { status: 'delivered', verified: true },
    });
    const named = await w.seen(SEAT, { activity: 'idle', named: true });
    X = named.row.conversationId!;
    expect(X).toMatch(/^ses_[0-9A-Za-z]{26}$/);
    expect(named.row.runtime).toBe('omo');
    // The seat reads idle between OpenCode naming X and the plugin's turn reaching the model; with
    // the suite's other agent files beside it the reply once took over 15 s (official CI).
    await waitFor(() => text().includes('ACK hello omo'), { timeoutMs: 90_000, what: 'the reply in X' });
  }, 120_000);

  it("tokens: a reply's figures, as the fake server reported them, add to ps's totals from OpenCode's database; no window is recorded there", async () => {
    const before = await w.row(SEAT);
    expect(before.tokensIn, 'the first reply was counted').toBeGreaterThan(0);
    const sent = await w.cli(['send', SEAT, 'USAGE:40001:321:1000:0 count these', '--verify', '--json']);
    expect(sent.json, sent.stdout + sent.stderr).toMatchObject({ ok: true });
    await waitFor(() => text().includes('ACK USAGE:40001:321:1000:0 count these'), {
      timeoutMs: 90_000,
      what: 'the reply in X',
    });
    const after = await waitFor(
      async () => {
        const r = await w.row(SEAT);
        return r.tokensOut !== before.tokensOut ? r : undefined;
      },
      { what: 'ps to count the reply' },
    );
    // OpenCode's step-finish: input without the cached part, cache.read beside it; together 40001.
    expect(after.tokensIn! - before.tokensIn!).toBe(40001);
    expect(after.tokensOut! - before.tokensOut!).toBe(321);
    expect(after.contextPct).toBeUndefined();
  }, 120_000);

  it('a headless `omo run --session-id X` while the seat writes X: a send is refused naming it; stopped, the seat is not launched on X while it runs, and nothing is started', async () => {
    const seatPid = (await w.row(SEAT)).pid!;
    server.hold();
    const held = server.held();
    const port = await closedPort();
    // The run's output goes to a file, shown if it never reaches the model (once, with three test
    // files of real agents running at once, it had not after 60 s; alone it takes 10-20 s).
    const runLog = join(w.dir(), 'omo-run.log');
    const runStarted = Date.now();
    /** omo's own way (it starts OpenCode's server), or attached to a server the person started. */
    const startRun = (attach?: string) => {
      const logFd = openSync(runLog, 'a');
      const where = attach ? ['--attach', attach] : ['--port', String(port)];
      const p = spawn(OMO_BIN, ['run', ...where, '--session-id', X, 'headless HOLD'], {
        cwd: w.dir(),
        env: agentProcessEnv(fx().handEnv(w.dir())),
        stdio: ['ignore', logFd, logFd],
      });
      closeSync(logFd);
      w.own(p.pid!);
      return { p, exited: new Promise<number | null>((r) => p.once('exit', (code) => r(code))) };
    };
    /** OpenCode's server, started the way omo starts it but with no 5 s limit: up when it says so. */
    const startOwnServer = async () => {
      const logFd = openSync(runLog, 'a');
      const p = spawn(OPENCODE_BIN, ['serve', '--hostname=127.0.0.1', `--port=${port}`], {
        cwd: w.dir(),
        env: agentProcessEnv(fx().handEnv(w.dir())),
        stdio: ['ignore', logFd, logFd],
      });
      closeSync(logFd);
      w.own(p.pid!);
      await waitFor(() => readFileSync(runLog, 'utf8').includes(`listening on http://127.0.0.1:${port}`), {
        timeoutMs: 120_000,
        what: 'OpenCode server the person started',
      });
      return p;
    };
    let { p: run, exited } = startRun();
    let ownServer: ReturnType<typeof spawn> | undefined;
    // omo gives the OpenCode server it starts 5 s, a constant with no setting; on a busy machine it
    // printed OMO_SERVER_TIMEOUT and quit before reaching the model (three times in a row in one
    // official CI run). A person would run it again, and after the second time start the server
    // themselves and attach omo to it (`omo run --attach`, its documented form): so does the test.
    // Either way the run's argv names X, which is what custody reads.
    let first: 'model' | 'again' | 'late' = 'again';
    for (let tries = 1; tries <= 3 && first === 'again'; tries++) {
      if (tries === 3) {
        ownServer = await startOwnServer();
        ({ p: run, exited } = startRun(`http://127.0.0.1:${port}`));
      } else if (tries > 1) ({ p: run, exited } = startRun());
      const current = run;
      first = await waitFor(
        () =>
          server.held() > held
            ? ('model' as const)
            : current.exitCode !== null && readFileSync(runLog, 'utf8').includes(OMO_SERVER_TIMEOUT)
              ? ('again' as const)
              : undefined,
        // Alone it takes 10-20 s; with the suite's other agent files running it took over 60 s in two
        // fresh-clone runs here (the host journey's twin waits 120 s for the same reason).
        { timeoutMs: 150_000, what: "the headless run's turn at the model" },
      ).catch(() => 'late' as const);
    }
    await waitFor(() => server.held() > held, {
      timeoutMs: first === 'late' ? 1 : 60_000,
      what: "the headless run's turn at the model",
    }).catch((e: Error) => {
      const requests = server.requests.slice(-5).map((r) => `${r.method} ${r.path}`);
      throw new Error(
        `${e.message} (${Date.now() - runStarted} ms after it started; exit ${run.exitCode ?? 'none yet'})\n--- the run's output:\n${readFileSync(runLog, 'utf8').slice(-4000)}\n--- the server's last requests: ${requests.join(', ')}`,
      );
    });
    console.info(
      `omo: the headless run at the model ${Date.now() - runStarted} ms after it started${ownServer ? ' (attached to its own server)' : ''}`,
    );
    const owner = { pid: run.pid, conversationId: X, headless: true, runtime: 'omo', source: 'argv' };

    const sent = await w.cli(['send', SEAT, 'typed while omo run writes', '--json']);
    expect(sent.json, sent.stdout).toMatchObject({ ok: false, code: 'CONVERSATION_LIVE_ELSEWHERE' });
    expect(sent.json.evidence.owners[0]).toMatchObject(owner);

    expect((await w.cli(['stop', SEAT, '--json'])).code).toBe(0);
    await waitForExit(seatPid, 15_000);
    const before = opencodesOfHome();
    const launch = await w.cli(['launch', SEAT, '--json']);
    expect(launch.json, launch.stdout).toMatchObject({ ok: false, code: 'CONVERSATION_LIVE_ELSEWHERE' });
    expect(launch.json.evidence.owners[0]).toMatchObject(owner);
    expect(w.w.sessions().filter((s) => s.seat === SEAT)).toEqual([]);
    expect(opencodesOfHome(), 'no OpenCode started beside the run').toEqual(before);
    expect(
      before.map((p) => rawCmdline(p).split('\0')[1]),
      "only the run's own server",
    ).toEqual(['serve']);

    server.release();
    expect(await exited, 'omo itself accepted the headless second writer').toBe(0);
    await waitFor(() => text().includes('ACK headless HOLD'), { timeoutMs: 60_000, what: "the run's reply in X" });
    ownServer?.kill('SIGTERM');
    await waitFor(() => opencodesOfHome().length === 0, { timeoutMs: 15_000, what: "the run's server gone" });
    const back = await w.cli(['launch', SEAT, '--json']);
    expect(back.json, back.stdout).toMatchObject({ ok: true, launched: { mode: 'resume', conversationId: X } });
    const { row } = await w.seen(SEAT, { activity: 'idle', named: true }, Date.now(), 60_000);
    expect(readFileSync(`/proc/${row.pid}/cmdline`, 'utf8').split('\0')).toEqual(expect.arrayContaining(['-s', X]));
    expect((await w.cli(['send', SEAT, 'back on X', '--verify', '--json'])).json.ok).toBe(true);
    await waitFor(() => text().includes('ACK back on X'), { timeoutMs: 30_000, what: "the resumed seat's reply in X" });
    expect((await w.cli(['down', 'omo', '--json'])).code).toBe(0);
  }, 360_000);
});

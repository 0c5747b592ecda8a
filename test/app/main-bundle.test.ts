import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEngineInfo } from '../../src/main/engine/rpc/server';
import { RENDERER_PRIVILEGES, RENDERER_SCHEME, RENDERER_URL, WINDOW_CSP } from '../../src/main/shell/renderer-protocol';
import { IPC } from '../../src/preload/channels';
import { REPO, RigWorld, shellRigYaml } from '../support/rig';
import { describeProcs, descendantsOf, waitAllGone } from '../support/procs';
import { waitFor } from '../support/tmux';

/**
 * The BUILT main process (out/main/index.js, as the app runs it) executed under Node, with
 * require('electron') answered by a recording stand-in (test/app/electron-stand-in.cjs): the
 * Electron binary cannot be had here. Everything behind the stand-in is real: the engine, its
 * SQLite store, a private tmux server, the engine socket and the `rigdesk` CLI talking to it.
 */
const MAIN = join(REPO, 'out', 'main', 'index.js');
const HOOK = join(REPO, 'test', 'app', 'electron-stand-in-hook.cjs');

interface Call {
  what: string;
  ready: boolean;
  [k: string]: unknown;
}

/** Every run this file started, stopped by its pid in teardown even when its test failed. */
const runs: MainRun[] = [];

/** One run of the built main bundle, with the stand-in's call log and its control channel. */
class MainRun {
  readonly child: ChildProcess;
  readonly log: string;
  private next = 1;
  private waiting = new Map<number, (m: Record<string, unknown>) => void>();
  readonly exited: Promise<number | null>;
  stderr = '';

  constructor(world: RigWorld, name: string, argv: string[], env: NodeJS.ProcessEnv = {}) {
    this.log = join(world.root, `${name}.jsonl`);
    this.child = spawn(process.execPath, ['-r', HOOK, MAIN, ...argv], {
      env: { ...world.env, ...env, RIGDESK_STAND_IN_LOG: this.log },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    this.child.stderr!.on('data', (d) => (this.stderr += String(d)));
    this.child.on('message', (m: { id: number }) => this.waiting.get(m.id)?.(m));
    this.exited = new Promise((r) => this.child.on('exit', (code) => r(code)));
    runs.push(this);
  }

  calls(what?: string): Call[] {
    const all = existsSync(this.log)
      ? readFileSync(this.log, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Call)
      : [];
    return what ? all.filter((c) => c.what === what) : all;
  }

  ask(op: string, args: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const id = this.next++;
    return new Promise((res) => {
      this.waiting.set(id, res);
      this.child.send({ id, op, ...args });
    });
  }

  /** Stops it the way the app quits (the engine gives its socket back), or by its pid. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode) return;
    void this.ask('quit');
    const code = await Promise.race([this.exited, new Promise((r) => setTimeout(() => r('late'), 10_000))]);
    if (code === 'late') this.child.kill('SIGKILL');
  }
}

describe('the built main process (Electron stand-in: no binary here)', () => {
  let world: RigWorld;
  let run: MainRun;
  beforeAll(async () => {
    if (!existsSync(MAIN)) throw new Error(`no built main bundle at ${MAIN}: run \`npm run build\` first`);
    world = new RigWorld();
    const spec = world.spec('duo.yaml', shellRigYaml('duo', ['lead', 'worker']));
    expect((await world.cli(['up', spec, '--json'])).code).toBe(0);
    run = new MainRun(world, 'first', ['rigdesk://seat/duo/worker']);
    // Up once the window has loaded; each test below waits for what it checks beyond that.
    await waitFor(() => run.calls('window.loadURL').length > 0 || run.child.exitCode !== null, {
      what: 'the window to load',
      timeoutMs: 60_000,
    });
    expect(run.child.exitCode, run.stderr).toBeNull();
  }, 90_000);
  afterAll(async () => {
    await Promise.all(runs.map((r) => r.stop()));
    world?.cleanup();
  });

  it('takes the single-instance lock before anything else, and registers the renderer scheme before ready', () => {
    const calls = run.calls();
    expect(calls[0]).toMatchObject({ what: 'app.requestSingleInstanceLock', granted: true });
    const reg = run.calls('protocol.registerSchemesAsPrivileged');
    expect(reg).toEqual([
      expect.objectContaining({
        ready: false,
        schemes: [{ scheme: RENDERER_SCHEME, privileges: RENDERER_PRIVILEGES }],
      }),
    ]);
    expect(run.calls('protocol.handle')).toEqual([expect.objectContaining({ scheme: RENDERER_SCHEME, ready: true })]);
  });

  it('serves the renderer scheme from the bundle folder, under the window CSP, and nothing outside it', async () => {
    const index = await run.ask('serve', { url: RENDERER_URL });
    expect(index).toMatchObject({ status: 200, headers: { 'content-security-policy': WINDOW_CSP } });
    expect(index.body).toBe(readFileSync(join(REPO, 'out', 'renderer', 'index.html'), 'utf8'));
    for (const bad of [
      `${RENDERER_SCHEME}://renderer/../main/index.js`,
      `${RENDERER_SCHEME}://renderer/%2e%2e/main/index.js`,
      `${RENDERER_SCHEME}://other/index.html`,
    ]) {
      expect((await run.ask('serve', { url: bad })).status, bad).not.toBe(200);
    }
    expect(run.calls('window.loadURL')).toEqual([expect.objectContaining({ url: RENDERER_URL })]);
  });

  it('registers rigdesk:// with the executable and the app folder (a development run)', () => {
    expect(run.calls('app.setAsDefaultProtocolClient')).toEqual([
      expect.objectContaining({ protocol: 'rigdesk', path: process.execPath, args: [REPO] }),
    ]);
  });

  it('one hardened window: sandboxed, isolated, no Node, the built preload; navigation, new windows and permissions refused', async () => {
    const wins = run.calls('new BrowserWindow');
    expect(wins).toHaveLength(1);
    const prefs = (wins[0]!.options as { webPreferences: Record<string, unknown> }).webPreferences;
    expect(prefs).toMatchObject({
      preload: join(REPO, 'out', 'preload', 'index.js'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webviewTag: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
    });
    expect(existsSync(prefs.preload as string)).toBe(true);
    expect(await run.ask('navigate', { event: 'will-navigate', url: 'https://example.invalid/' })).toEqual({
      id: expect.any(Number),
      prevented: true,
    });
    expect(await run.ask('navigate', { event: 'will-redirect', url: 'file:///etc/passwd' })).toMatchObject({
      prevented: true,
    });
    expect(
      await run.ask('navigate', { event: 'will-navigate', url: `${RENDERER_URL}#/seat/lead%40duo` }),
    ).toMatchObject({ prevented: false });
    expect(await run.ask('windowOpen', { url: 'https://example.invalid/' })).toMatchObject({
      result: { action: 'deny' },
    });
    expect(await run.ask('permission', { permission: 'media' })).toMatchObject({ granted: false });
    expect(await run.ask('headers')).toMatchObject({ responseHeaders: { 'Content-Security-Policy': [WINDOW_CSP] } });
  });

  it("answers the contract on its IPC channels, only for its own window's renderer", async () => {
    expect(run.calls('ipcMain.handle').map((c) => c.channel)).toEqual([IPC.request]);
    expect(run.calls('ipcMain.on').map((c) => c.channel)).toEqual([IPC.frameIn]);
    const wc = 1; // the stand-in's first webContents
    const ask = (frameUrl: string, sender = wc) =>
      run.ask('invoke', { channel: IPC.request, sender, frameUrl, args: [{ id: 5, method: 'topology', params: {} }] });
    expect(await ask(RENDERER_URL)).toMatchObject({ result: { id: 5, result: { ok: true, rigs: [{ name: 'duo' }] } } });
    expect(await ask('https://example.invalid/')).toMatchObject({ result: { id: null, result: { ok: false } } });
    expect(await ask(RENDERER_URL, 99)).toMatchObject({ result: { id: null, result: { ok: false } } });
  });

  it('puts a tray up with its menu', () => {
    expect(run.calls('new Tray')).toEqual([expect.objectContaining({ image: join(REPO, 'resources', 'tray.png') })]);
    expect(run.calls('tray.setContextMenu')).toEqual([
      expect.objectContaining({
        labels: ['Open Rigdesk', 'Put the rigdesk command on PATH…', 'separator', 'Quit Rigdesk'],
      }),
    ]);
  });

  it("serves the engine socket: the CLI, told to need a running engine, is answered by the app's engine", async () => {
    await waitFor(() => readEngineInfo(join(world.home, 'engine.json'))?.pid === run.child.pid, {
      what: `the app's engine socket (stderr: ${run.stderr})`,
      timeoutMs: 30_000,
    });
    const ps = await world.cli(['ps', '--json'], { RIGDESK_REQUIRE_ENGINE: '1' });
    expect(ps.code, ps.stderr).toBe(0);
    expect(JSON.stringify(ps.json)).toContain('worker@duo');
    expect(readEngineInfo(join(world.home, 'engine.json'))?.pid).toBe(run.child.pid);
  });

  it('routes the rigdesk:// link in argv to its seat, and a second instance’s link too', async () => {
    const focus = (seat: string) =>
      expect.objectContaining({ channel: IPC.push, args: [{ push: 'focus', data: { seat } }] });
    expect(run.calls('webContents.send')).toContainEqual(focus('worker@duo'));
    await run.ask('secondInstance', { argv: ['/opt/Rigdesk/rigdesk', 'rigdesk://seat/duo/lead'] });
    await waitFor(() => run.calls('webContents.send').some((c) => JSON.stringify(c.args).includes('lead@duo')), {
      what: 'the focus push for lead@duo',
    });
    expect(run.calls('window.focus').length).toBeGreaterThanOrEqual(2);
  });

  it('a second start without the lock quits before any window, tray or engine socket', async () => {
    const second = new MainRun(world, 'second', ['rigdesk://seat/duo/lead'], { RIGDESK_STAND_IN_LOCK: 'taken' });
    expect(await second.exited).toBe(0);
    const whats = second.calls().map((c) => c.what);
    expect(whats[0]).toBe('app.requestSingleInstanceLock');
    expect(whats).toContain('app.quit');
    for (const never of ['new BrowserWindow', 'new Tray', 'protocol.handle', 'ipcMain.handle'])
      expect(whats).not.toContain(never);
    expect(readEngineInfo(join(world.home, 'engine.json'))?.pid).toBe(run.child.pid);
  });

  it("under Electron without better-sqlite3's build for its ABI, it says which file is missing and how to get it, before opening anything", async () => {
    // ABI 9999 has no build anywhere: the process reads as that Electron (process.versions).
    const odd = new MainRun(world, 'no-binding', [], { RIGDESK_STAND_IN_ELECTRON: '45.5.0:9999' });
    expect(await odd.exited).toBe(1);
    const box = odd.calls('dialog.showErrorBox');
    expect(box).toEqual([expect.objectContaining({ title: 'Rigdesk cannot open its store' })]);
    expect(box[0]!.content).toContain(
      join('node_modules', 'better-sqlite3', 'lib', 'binding', `electron-v9999-${process.platform}-${process.arch}`),
    );
    expect(box[0]!.content).toContain('./scripts/setup');
    const whats = odd.calls().map((c) => c.what);
    for (const never of ['app.requestSingleInstanceLock', 'new BrowserWindow', 'new Tray'])
      expect(whats).not.toContain(never);
  });

  it('quitting gives the engine socket back, and ends every process its engine started, before the process ends', async () => {
    // Its held tmux client at least (the activity monitor's look started it), listed by pid.
    const before = await waitFor(
      () => {
        const d = descendantsOf(run.child.pid!);
        return d.some((p) => p.argv.some((a) => a.includes('no-output'))) ? d : undefined;
      },
      { what: "the app engine's tmux client" },
    );
    await run.stop();
    expect(await run.exited).toBe(0);
    expect(describeProcs(await waitAllGone(before, 3_000)), `before:\n${describeProcs(before)}`).toBe('');
    expect(existsSync(join(world.home, 'engine.json'))).toBe(false);
    expect(existsSync(join(world.home, 'engine.sock'))).toBe(false);
  });
});

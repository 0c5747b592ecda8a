/**
 * Tests against the real Codex CLI (node_modules/.bin/codex, 0.171.0), offline: a fake model server
 * on 127.0.0.1, every proxy variable pointing at a closed local port, an isolated HOME, CODEX_HOME,
 * TMPDIR and XDG dirs, the background daemon disabled, and private tmux servers.
 *
 * Facts the engine relies on, as these tests pin them (see also docs/agent-clis.md §3):
 * - the pane pid is the node shim (`node …/.bin/codex`, comm `node`); its direct child is the native
 *   binary (comm `codex`), which holds the thread's WRITE flock on
 *   `$CODEX_HOME/thread-writer-locks/<thread id>.lock` from startup, before the first prompt;
 * - the lock file outlives the process; only /proc/locks says whether it is held;
 * - `codex exec` outside a git repo needs `--skip-git-repo-check`, even in a trusted folder.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TestTmux, waitFor } from '../support/tmux';
import {
  killPids,
  killTmuxServer,
  locksOnFile,
  pidsWithCmdline,
  pidsWithEnv,
  ppidChain,
  procComm,
  processAlive,
  processTree,
  rawCmdline,
  runAgent,
  screenWithHistory,
  startInTmux,
  typeAndSubmit,
  waitForExit,
} from './agent-run';
import { CODEX_BIN, type CodexFixture, makeCodexFixture } from './codex-fixture';
import { closedPort, type FakeModelServer, startFakeModelServer } from './fake-model-server';

const LOCAL = ['127.0.0.1', '::ffff:127.0.0.1'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** The doc: an Enter sent right after typed text is dropped by the Codex composer. */
const ENTER_DELAY_MS = 600;
const IDLE = 'Ask Codex to do anything';

type Line = { type: string; payload: Record<string, unknown> };
const readJsonl = (path: string): Line[] =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Line);
const eventTypes = (lines: Line[]): string[] =>
  lines.filter((l) => l.type === 'event_msg').map((l) => String(l.payload.type));

describe('real Codex CLI against the fake model server', () => {
  let server: FakeModelServer;
  let fx: CodexFixture;
  let work: string;
  let tmux: TestTmux | undefined;
  let panePid: number | undefined;
  let paneId = '';
  let threadId: string | undefined;
  let holderPid: number | undefined;
  const strays: Array<{ pid: number; comm: string; cmdline: string }> = [];

  const screen = (): string => tmux!.capture(paneId);
  const onScreen = async (text: string, what: string, timeoutMs = 30_000): Promise<void> => {
    await waitFor(() => screen().includes(text), { timeoutMs, what }).catch((e: unknown) => {
      throw new Error(`${String(e)}\n--- screen ---\n${screen()}`);
    });
  };
  const expectAllLocal = (): void => {
    expect(server.requests.length).toBeGreaterThan(0);
    for (const r of server.requests) expect(LOCAL).toContain(r.remoteAddress);
  };
  /** Any process pointing into our CODEX_HOME that is an app-server (the daemon) must not exist. */
  const reapDaemons = async (): Promise<Array<{ pid: number; comm: string; cmdline: string }>> => {
    const mine = new Set([...pidsWithEnv('CODEX_HOME', fx.codexHome), ...pidsWithCmdline(fx.codexHome)]);
    const daemons = [...mine].filter((pid) => {
      try {
        return /app-server/.test(rawCmdline(pid));
      } catch {
        return false;
      }
    });
    const killed = await killPids(daemons);
    for (const d of readdirSync(fx.tmp))
      if (d.startsWith('codex-daemon-')) rmSync(join(fx.tmp, d), { recursive: true, force: true });
    return killed;
  };

  beforeAll(async () => {
    server = await startFakeModelServer();
    work = realpathSync(mkdtempSync(join(tmpdir(), 'rd-codex-cwd-')));
    fx = makeCodexFixture({ serverUrl: server.url, closedPort: await closedPort(), trustedCwds: [work] });
  });

  afterEach(async () => {
    const killed = await reapDaemons();
    strays.push(...killed);
    expect(killed, 'codex app-server (daemon) processes pointing into our CODEX_HOME').toEqual([]);
    expect(readdirSync(fx.tmp).filter((d) => d.startsWith('codex-daemon-'))).toEqual([]);
  });

  afterAll(async () => {
    if (tmux) killTmuxServer(tmux);
    if (panePid !== undefined) await waitForExit(panePid);
    if (holderPid !== undefined) await waitForExit(holderPid);
    if (fx) {
      // Anything still carrying our private CODEX_HOME is ours: end it by pid.
      await killPids([...new Set([...pidsWithEnv('CODEX_HOME', fx.codexHome), ...pidsWithCmdline(fx.codexHome)])]);
      await reapDaemons();
    }
    await server?.close();
    fx?.cleanup();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('codex exec "hello" prints ACK hello and "session id: <uuid>", and writes a rollout for that id with task_started/task_complete', async () => {
    const r = await runAgent(CODEX_BIN, fx.env, work, ['exec', '--skip-git-repo-check', 'hello']);
    expect(r.code, `stdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(0);
    // The reply alone goes to stdout; the header (with the session id) and warnings go to stderr.
    expect(r.stdout.trim()).toBe('ACK hello');
    const m = /^session id: (\S+)$/m.exec(r.stderr);
    expect(m, r.stderr).not.toBeNull();
    const id = m![1]!;
    expect(id).toMatch(UUID);

    const rollout = fx.rolloutFor(id);
    expect(rollout, `rollout for ${id}`).toBeDefined();
    expect(rollout!).toMatch(
      /\/sessions\/\d{4}\/\d{2}\/\d{2}\/rollout-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-[0-9a-f-]{36}\.jsonl$/,
    );
    const lines = readJsonl(rollout!);
    expect(lines[0]).toMatchObject({
      type: 'session_meta',
      payload: { id, session_id: id, cwd: work, originator: 'codex_exec', source: 'exec' },
    });
    const events = eventTypes(lines);
    expect(events).toContain('task_started');
    expect(events).toContain('task_complete');
    expect(events.indexOf('task_started')).toBeLessThan(events.lastIndexOf('task_complete'));

    // The exec session is not locked once exec has exited.
    expect(existsSync(fx.lockPath(id)) ? locksOnFile(fx.lockPath(id)) : []).toEqual([]);
    const mine = server.requests.filter((q) => q.route === 'responses');
    expect(mine.length).toBeGreaterThan(0);
    expect(mine[0]!.userAgent).toMatch(/^codex_exec\/0\.171\.0 /);
    expectAllLocal();
  });

  it('interactive codex in tmux: idle screen, a delayed Enter submits, and the native codex under the pane holds a WRITE flock on thread-writer-locks/<id>.lock naming the rollout', async () => {
    tmux = new TestTmux('rdt-codex');
    ({ paneId, panePid } = startInTmux(tmux, fx.env, 'codex1', work, [CODEX_BIN]));
    await onScreen(IDLE, 'codex idle composer');
    expect(screen()).not.toMatch(/Trust this folder|Sign in|API key/i);

    // The thread exists (and is locked) from startup, before any prompt: find the lock held by a
    // process in this pane's tree.
    const lockDir = join(fx.codexHome, 'thread-writer-locks');
    const heldByPane = (): { id: string; pid: number; mode: string; kind: string } | undefined => {
      const tree = processTree(panePid!);
      for (const name of existsSync(lockDir) ? readdirSync(lockDir) : []) {
        if (!name.endsWith('.lock') || name.startsWith('.')) continue;
        const l = locksOnFile(join(lockDir, name)).find((x) => tree.includes(x.pid));
        if (l) return { id: name.slice(0, -'.lock'.length), pid: l.pid, mode: l.mode, kind: l.kind };
      }
      return undefined;
    };
    const early = await waitFor(heldByPane, { timeoutMs: 10_000, what: 'a thread lock held under the pane' });
    expect(early.id).toMatch(UUID);
    // …and before its rollout exists: the lock file name is the first place the id shows up.
    expect(fx.rolloutFor(early.id)).toBeUndefined();

    await typeAndSubmit(tmux, paneId, 'hello tmux', ENTER_DELAY_MS);
    await onScreen('ACK hello tmux', 'ACK on screen');
    await onScreen('Worked for', 'turn done marker');

    const held = heldByPane()!;
    expect(held).toMatchObject({ id: early.id, kind: 'FLOCK', mode: 'WRITE' });
    threadId = held.id;
    holderPid = held.pid;
    expect(existsSync(fx.lockPath(threadId))).toBe(true);
    // Exactly one holder, and it is the native binary, a direct child of the pane's node shim.
    expect(locksOnFile(fx.lockPath(threadId)).map((l) => l.pid)).toEqual([holderPid]);
    expect(procComm(panePid!)).toBe('node');
    expect(rawCmdline(panePid!).split('\0')[1]).toBe(CODEX_BIN);
    expect(procComm(holderPid)).toBe('codex');
    expect(rawCmdline(holderPid).split('\0')[0]).toMatch(
      /@openai\/codex-linux-x64\/vendor\/x86_64-unknown-linux-musl\/bin\/codex$/,
    );
    expect(ppidChain(holderPid).slice(0, 2)).toEqual([holderPid, panePid]);

    const rollout = await waitFor(() => fx.rolloutFor(threadId!), {
      timeoutMs: 10_000,
      what: 'rollout for the locked thread',
    });
    await waitFor(() => eventTypes(readJsonl(rollout)).includes('task_complete'), {
      timeoutMs: 10_000,
      what: 'task_complete in rollout',
    });
    const lines = readJsonl(rollout);
    expect(lines[0]).toMatchObject({
      type: 'session_meta',
      payload: { id: threadId, cwd: work, originator: 'codex-tui' },
    });
    expect(JSON.stringify(lines)).toContain('ACK hello tmux');
    expect(server.requests.some((q) => q.userAgent?.startsWith('codex-tui/0.171.0 '))).toBe(true);
    expectAllLocal();
  });

  it('a second writer is refused by Codex itself: codex exec resume <live id> exits 1 with "already has an active writer"', async () => {
    expect(threadId).toBeDefined();
    const execRequests = (): number => server.requests.filter((q) => q.userAgent?.startsWith('codex_exec/')).length;
    const before = execRequests();
    const r = await runAgent(CODEX_BIN, fx.env, work, ['exec', '--skip-git-repo-check', 'resume', threadId!, 'x']);
    expect(r.code, `stdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(1);
    expect(r.stderr).toContain(`thread ${threadId} already has an active writer`);
    expect(r.stdout.trim()).toBe('');
    // It never reached the model, and the TUI still holds its lock.
    expect(execRequests()).toBe(before);
    expect(locksOnFile(fx.lockPath(threadId!)).map((l) => [l.pid, l.mode])).toEqual([[holderPid, 'WRITE']]);
    expectAllLocal();
  });

  it('codex resume <unknown uuid> prints "No saved session found with ID" and exits 1', async () => {
    const missing = '11111111-2222-3333-4444-555555555555';
    // Interactive resume needs a terminal ("Error: stdin is not a terminal" otherwise), so it runs in
    // a pane of its own server. A shell reports the exit status: with tmux 3.3a, a codex that exits
    // this fast often leaves #{pane_dead_status} empty (the pane process stays an unreaped zombie).
    // The message ends up in the pane's scrollback, not on the visible screen.
    const t2 = new TestTmux('rdt-codex-miss');
    try {
      const { paneId: p2 } = startInTmux(
        t2,
        fx.env,
        'missing',
        work,
        ['sh', '-c', '"$@"; echo "[exit $?]"', 'sh', CODEX_BIN, 'resume', missing],
        { remainOnExit: true },
      );
      const text = await waitFor(
        () => {
          const t = screenWithHistory(t2, p2);
          return /\[exit \d+\]/.test(t) ? t : undefined;
        },
        { timeoutMs: 15_000, what: 'codex resume to exit' },
      ).catch((e: unknown) => {
        throw new Error(`${String(e)}\n--- screen ---\n${screenWithHistory(t2, p2)}`);
      });
      expect(text).toContain('[exit 1]');
      expect(text).toContain(
        `ERROR: No saved session found with ID ${missing}. Run \`codex resume\` without an ID to choose from existing sessions.`,
      );
    } finally {
      killTmuxServer(t2);
    }
    expectAllLocal();
  });

  it('at a permission prompt the screen says "Would you like to run the following command?" and y runs it', async () => {
    expect(tmux).toBeDefined();
    await onScreen(IDLE, 'idle before RUN');
    const out = join(work, 'out.txt');
    await typeAndSubmit(tmux!, paneId, 'RUN: echo codex-tool-ok > out.txt', ENTER_DELAY_MS);
    await onScreen('Would you like to run the following command?', 'permission prompt');
    const s = screen();
    expect(s).toContain('$ echo codex-tool-ok > out.txt');
    expect(s).toContain('1. Yes, proceed (y)');
    expect(s).toContain('Press enter to confirm or esc to cancel');
    expect(existsSync(out)).toBe(false);

    tmux!.run(['send-keys', '-t', paneId, 'y']);
    await waitFor(() => existsSync(out) && readFileSync(out, 'utf8') === 'codex-tool-ok\n', {
      timeoutMs: 15_000,
      what: 'out.txt written by the approved command',
    });
    await onScreen('You approved codex to run echo codex-tool-ok > out.txt this time', 'approval echo');
    await onScreen('ACK tool result:', 'reply to the tool result');
    await waitFor(() => screen().includes(IDLE) && !/Working \(/.test(screen()), {
      timeoutMs: 15_000,
      what: 'idle after the tool turn',
    });
    expectAllLocal();
  });

  it('a 429 (LIMIT) shows "You’ve hit your usage limit" (U+2019) after a single request', async () => {
    expect(tmux).toBeDefined();
    const before = server.requests.filter((q) => q.trigger === 'limit').length;
    await typeAndSubmit(tmux!, paneId, 'LIMIT', ENTER_DELAY_MS);
    await onScreen('■ You\u2019ve hit your usage limit. Try again later.', 'usage limit line');
    await onScreen(IDLE, 'idle after the 429');
    expect(server.requests.filter((q) => q.trigger === 'limit').length - before).toBe(1);
    expectAllLocal();
  });

  it('after the tmux server is killed codex exits; its lock file stays on disk but nobody holds it, and no codex process is left', async () => {
    expect(threadId).toBeDefined();
    killTmuxServer(tmux!);
    tmux = undefined;
    expect(await waitForExit(panePid!)).toBe('exited');
    expect(await waitForExit(holderPid!)).toBe('exited');
    expect(processAlive(holderPid!)).toBe(false);
    expect(existsSync(fx.lockPath(threadId!))).toBe(true);
    expect(locksOnFile(fx.lockPath(threadId!))).toEqual([]);
    const left = [...new Set([...pidsWithEnv('CODEX_HOME', fx.codexHome), ...pidsWithCmdline(fx.codexHome)])];
    expect(left).toEqual([]);
    expect(strays).toEqual([]);
    expectAllLocal();
  });
});

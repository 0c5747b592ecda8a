/**
 * Tests against the real Pi coding agent (node_modules/.bin/pi, 0.73.1), offline: a fake model
 * server on 127.0.0.1 (Chat Completions), every proxy variable pointing at a closed local port, an
 * isolated HOME, PI_CODING_AGENT_DIR, TMPDIR and XDG dirs, PI_OFFLINE, provider retries off, and a
 * private tmux server.
 *
 * Facts the engine relies on, as these tests pin them (see also docs/agent-clis.md §4):
 * - the pane pid is pi itself (`#!/usr/bin/env node` execs in place), comm `pi`, and its
 *   /proc/<pid>/cmdline is `pi` followed by NUL bytes only: no argument (not even `--session`) is
 *   left to read;
 * - a session file is written only once the first assistant reply exists, so a fresh TUI has no
 *   file (and, with `--session <path>`, the path does not exist yet) until its first turn ends;
 * - Pi accepts a second writer on a live session and the file branches.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestTmux, waitFor } from '../support/tmux';
import {
  killPids,
  killTmuxServer,
  pidsWithEnv,
  procComm,
  rawCmdline,
  runAgent,
  startInTmux,
  typeAndSubmit,
  waitForExit,
} from './agent-run';
import { closedPort, type FakeModelServer, startFakeModelServer } from './fake-model-server';
import { makePiFixture, PI_BIN, type PiFixture } from './pi-fixture';

const LOCAL = ['127.0.0.1', '::ffff:127.0.0.1'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** The footer's token/context line, e.g. `0.0%/128k (auto)` (Pi is ready once it is drawn). */
const READY = /\d+\.\d%\/128k \(auto\)/;
const WORKING = 'Working...';

type Entry = {
  type: string;
  id: string;
  parentId?: string | null;
  cwd?: string;
  message?: { role: string; content: Array<{ type: string; text?: string }> };
};
const readEntries = (path: string): Entry[] =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Entry);
const textOf = (e: Entry): string => (e.message?.content ?? []).map((c) => c.text ?? '').join('');

describe('real Pi coding agent against the fake model server', () => {
  let server: FakeModelServer;
  let fx: PiFixture;
  let work: string;
  let tmux: TestTmux | undefined;
  /** TUI A: plain `pi`. TUI B: `pi --session <chosen path>`. */
  const panes: Record<'a' | 'b', { paneId: string; panePid: number } | undefined> = { a: undefined, b: undefined };
  let chosenPath = '';
  let chosenId = '';
  /** TUI A's session (in the default session dir). */
  let idA = '';
  let fileA = '';

  const screen = (which: 'a' | 'b'): string => tmux!.capture(panes[which]!.paneId);
  const onScreen = async (
    which: 'a' | 'b',
    cond: (s: string) => boolean,
    what: string,
    timeoutMs = 20_000,
  ): Promise<void> => {
    await waitFor(() => cond(screen(which)), { timeoutMs, what }).catch((e: unknown) => {
      throw new Error(`${String(e)}\n--- screen ---\n${screen(which)}`);
    });
  };
  const idle = (s: string): boolean => READY.test(s) && !s.includes(WORKING);
  const expectAllLocal = (): void => {
    expect(server.requests.length).toBeGreaterThan(0);
    for (const r of server.requests) expect(LOCAL).toContain(r.remoteAddress);
  };
  const sessionFiles = (): string[] => {
    const dir = fx.sessionDirFor(work);
    return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.jsonl')) : [];
  };

  beforeAll(async () => {
    // SLOW: 8 chunks 500 ms apart (4 s), enough to see "Working..." and to slip a second writer in.
    server = await startFakeModelServer({ slowChunks: 8, slowMs: 500 });
    work = realpathSync(mkdtempSync(join(tmpdir(), 'rd-pi-cwd-')));
    fx = makePiFixture({ serverUrl: server.url, closedPort: await closedPort() });
    chosenPath = join(fx.root, 'chosen', 'seat-1.jsonl');
  });

  afterAll(async () => {
    if (tmux) killTmuxServer(tmux);
    for (const p of Object.values(panes)) if (p) await waitForExit(p.panePid);
    if (fx) await killPids(pidsWithEnv('PI_CODING_AGENT_DIR', fx.agentDir));
    await server?.close();
    fx?.cleanup();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('pi -p "hello" prints ACK hello and writes <ts>_<id>.jsonl under the cwd\'s session dir, first line type session with that id', async () => {
    const r = await runAgent(PI_BIN, fx.env, work, ['-p', 'hello']);
    expect({ code: r.code, stdout: r.stdout.trim() }, `stderr: ${r.stderr}`).toEqual({ code: 0, stdout: 'ACK hello' });
    const files = sessionFiles();
    expect(files).toHaveLength(1);
    const m = /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z_([0-9a-f-]{36})\.jsonl$/.exec(files[0]!);
    expect(m, files[0]).not.toBeNull();
    const id = m![1]!;
    expect(id).toMatch(UUID);
    expect(fx.sessionFileFor(work, id)).toBe(join(fx.sessionDirFor(work), files[0]!));
    const entries = readEntries(fx.sessionFileFor(work, id)!);
    expect(entries[0]).toMatchObject({ type: 'session', version: 3, id, cwd: work });
    expect(entries.some((e) => e.message?.role === 'assistant' && textOf(e) === 'ACK hello')).toBe(true);
    const mine = server.requests.filter((q) => q.route === 'chat_completions');
    expect(mine.length).toBeGreaterThan(0);
    expect(mine[0]!.userAgent).toMatch(/^OpenAI\/JS /);
    expectAllLocal();
  });

  it('interactive pi in tmux: hello gets ACK hello, SLOW shows "Working...", and /proc/<pid>/cmdline is just "pi" padded with NULs', async () => {
    tmux = new TestTmux('rdt-pi');
    const before = new Set(sessionFiles());
    panes.a = startInTmux(tmux, fx.env, 'pia', work, [PI_BIN]);
    const { panePid } = panes.a;
    await onScreen('a', idle, 'pi ready');
    expect(screen('a')).toContain('pi v0.73.1');

    // Process identity: the pane pid is pi itself (no shim), its argv rewritten to "pi" + NULs.
    expect(procComm(panePid)).toBe('pi');
    const raw = rawCmdline(panePid);
    expect(raw.startsWith('pi\0')).toBe(true);
    expect(raw.slice(2)).toMatch(/^\0+$/);
    expect(raw.split('\0').filter((s) => s !== '')).toEqual(['pi']);
    expect(readlinkSync(`/proc/${panePid}/cwd`)).toBe(work);
    expect(readFileSync(`/proc/${panePid}/environ`, 'utf8').split('\0')).toContain(
      `PI_CODING_AGENT_DIR=${fx.agentDir}`,
    );
    // Nothing written for this TUI yet: the file appears with the first reply.
    expect(sessionFiles().filter((f) => !before.has(f))).toEqual([]);

    await typeAndSubmit(tmux, panes.a.paneId, 'hello');
    await onScreen('a', (s) => s.includes('ACK hello') && idle(s), 'ACK hello, then idle');
    const fresh = await waitFor(
      () => {
        const n = sessionFiles().filter((f) => !before.has(f));
        return n.length === 1 ? n[0]! : undefined;
      },
      { timeoutMs: 5_000, what: 'a session file for TUI A' },
    );
    idA = /_([0-9a-f-]{36})\.jsonl$/.exec(fresh)![1]!;
    fileA = join(fx.sessionDirFor(work), fresh);
    expect(fx.sessionFileFor(work, idA)).toBe(fileA);
    expect(readEntries(fileA)[0]).toMatchObject({ type: 'session', id: idA, cwd: work });

    await typeAndSubmit(tmux, panes.a.paneId, 'tick SLOW');
    await onScreen('a', (s) => s.includes(WORKING), '"Working..." during SLOW', 10_000);
    expect(screen('a')).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Working\.\.\./);
    await onScreen('a', (s) => s.includes('tick8') && idle(s), 'SLOW done, idle again', 15_000);
    expectAllLocal();
  });

  it('pi --session <new path>.jsonl creates the session at exactly that path (after the first reply); the id is read from its first line', async () => {
    expect(existsSync(chosenPath)).toBe(false);
    panes.b = startInTmux(tmux!, fx.env, 'pib', work, [PI_BIN, '--session', chosenPath]);
    await onScreen('b', idle, 'pi B ready');
    // The argument is invisible in /proc as well.
    expect(
      rawCmdline(panes.b.panePid)
        .split('\0')
        .filter((s) => s !== ''),
    ).toEqual(['pi']);
    expect(existsSync(chosenPath)).toBe(false);

    const defaultDirBefore = sessionFiles().length;
    await typeAndSubmit(tmux!, panes.b.paneId, 'first');
    await onScreen('b', (s) => s.includes('ACK first') && idle(s), 'ACK first');
    await waitFor(() => existsSync(chosenPath), { timeoutMs: 5_000, what: chosenPath });
    const entries = readEntries(chosenPath);
    expect(entries[0]).toMatchObject({ type: 'session', version: 3, cwd: work });
    chosenId = entries[0]!.id;
    expect(chosenId).toMatch(UUID);
    expect(readdirSync(join(fx.root, 'chosen'))).toEqual(['seat-1.jsonl']);
    // Nothing went to the default session dir for this one, and so `--session <id>` cannot find it:
    // a session at a chosen path is addressed by that path only.
    expect(sessionFiles().length).toBe(defaultDirBefore);
    const byId = await runAgent(PI_BIN, fx.env, work, ['-p', '--session', chosenId, 'x']);
    expect({ code: byId.code, stderr: byId.stderr.trim() }).toEqual({
      code: 1,
      stderr: `No session found matching '${chosenId}'`,
    });
    expectAllLocal();
  });

  it('a second writer is accepted by Pi itself: pi -p --session <live id> "B" exits 0 while the TUI is busy, and the file branches', async () => {
    expect(idA).not.toBe('');
    // The TUI's reply is held open until the headless writer is done, so the second writer lands
    // mid-turn however long a loaded machine takes to start it.
    server.hold();
    await typeAndSubmit(tmux!, panes.a!.paneId, 'busy HOLD');
    await onScreen('a', (s) => s.includes(WORKING), 'TUI A working', 10_000);

    const r = await runAgent(PI_BIN, fx.env, work, ['-p', '--session', idA, 'B from headless']);
    expect({ code: r.code, stdout: r.stdout.trim() }, `stderr: ${r.stderr}`).toEqual({
      code: 0,
      stdout: 'ACK B from headless',
    });
    server.release();
    await onScreen('a', (s) => s.includes('ACK busy HOLD') && s.includes('tick8') && idle(s), 'TUI A done', 15_000);
    expect(screen('a')).not.toContain('ACK B from headless');

    await waitFor(
      () => readEntries(fileA).some((e) => e.message?.role === 'assistant' && textOf(e).startsWith('ACK busy HOLD')),
      { timeoutMs: 5_000, what: 'TUI reply in the file' },
    );
    const entries = readEntries(fileA);
    expect(entries.filter((e) => e.type === 'session')).toHaveLength(1);
    const busy = entries.find((e) => e.message?.role === 'user' && textOf(e) === 'busy HOLD')!;
    const children = entries.filter((e) => e.parentId === busy.id);
    // Two children of the TUI's prompt: the headless prompt (its reply below it) and the TUI's own reply.
    expect(children.map((e) => [e.message?.role, textOf(e).slice(0, 15)])).toEqual([
      ['user', 'B from headless'],
      ['assistant', 'ACK busy HOLD t'],
    ]);
    const headless = children[0]!;
    expect(entries.filter((e) => e.parentId === headless.id).map((e) => textOf(e))).toEqual(['ACK B from headless']);
    expectAllLocal();
  });

  it('pi --session <unknown uuid> prints "No session found matching" on stderr and exits 1', async () => {
    const missing = '11111111-2222-3333-4444-555555555555';
    const r = await runAgent(PI_BIN, fx.env, work, ['--session', missing]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(`No session found matching '${missing}'`);
    expect(r.stdout).toBe('');
    expectAllLocal();
  });

  it('a 429 (LIMIT) shows "Error: 429" and returns to idle without hanging on retry-after', async () => {
    const before = server.requests.filter((q) => q.trigger === 'limit').length;
    const t0 = Date.now();
    await typeAndSubmit(tmux!, panes.a!.paneId, 'LIMIT');
    await onScreen(
      'a',
      (s) => s.includes('Error: 429 Rate limit reached (fake server LIMIT)'),
      'Error: 429 line',
      15_000,
    );
    await onScreen(
      'a',
      (s) => /Error: Retry failed after \d+ attempts: 429/.test(s) && idle(s),
      'idle after the 429',
      15_000,
    );
    expect(Date.now() - t0).toBeLessThan(10_000);
    // One request plus Pi's own agent-level retry (settings retry.maxRetries 1); no SDK retries.
    expect(server.requests.filter((q) => q.trigger === 'limit').length - before).toBe(2);
    expectAllLocal();
  });

  it('after the tmux server is killed both pi processes exit and none is left', async () => {
    killTmuxServer(tmux!);
    tmux = undefined;
    for (const p of Object.values(panes)) if (p) expect(await waitForExit(p.panePid)).toBe('exited');
    expect(pidsWithEnv('PI_CODING_AGENT_DIR', fx.agentDir)).toEqual([]);
    expectAllLocal();
  });
});

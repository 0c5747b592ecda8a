/**
 * Facts about the real omp (oh-my-pi, @oh-my-pi/pi-coding-agent 18.2.3 on bun 1.4.5) that the
 * adapter rests on, checked against the CLI itself offline (the fake model server over Chat
 * Completions, every proxy at a closed port, an isolated HOME and agent dir, a private tmux server):
 *
 * - where it writes a session (the folder rule under HOME, the temp root or neither; the 256-byte
 *   title slot; the header) and that it opens a session file Rigdesk wrote, under that file's id;
 * - its process (`bun …/omp --resume X`, comm `omp`: argv is not rewritten) and its clients file,
 *   which names the process but not the session;
 * - its screens (idle, working with spinner and timer, the approval box, a 429, the setup wizard
 *   that `setupVersion: 2` keeps away), its title glyphs, and that a tool runs in its own process;
 * - that it accepts a second writer, by id prefix and from another folder, and the file branches;
 * - how it says a session is missing, headless and in a pane.
 *
 * omp probes 127.0.0.1 ports 11434, 8080 and 1234 for local models on every start: these tests
 * run only with nothing listening there (skipped with why, and failed under CI, otherwise).
 */
import { mkdirSync, readFileSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestTmux, waitFor } from '../support/tmux';
import {
  endTmuxAgents,
  killPids,
  pidsWithEnv,
  procComm,
  processTree,
  rawCmdline,
  runAgent,
  startInTmux,
  typeAndSubmit,
  waitForExit,
} from './agent-run';
import { closedPort, type FakeModelServer, startFakeModelServer } from './fake-model-server';
import { makeOmpFixture, OMP_BIN, ompEntries, ompPortsProblem, type OmpFixture, textOf } from './omp-fixture';
import { omp } from '../../src/main/engine/runtimes';
import { wrapForPane } from '../../src/main/engine/runtimes/env';
import {
  ompFolderFor,
  ompHeaderId,
  ompResumeCandidates,
  writeOmpSession,
} from '../../src/main/engine/runtimes/omp-sessions';
import { prepareOmpSetup } from '../../src/main/engine/runtimes/omp-settings';
import { OMP_SCREEN, readOmpPrompt, readOmpScreen } from '../../src/main/engine/runtimes/screens/omp';
import { liveEvidenceIO } from '../../src/main/engine/evidence-io';
import { stripSgr } from '../../src/main/engine/runtimes/types';
import { expectOnlyLoopback, requireCli } from '../journeys/support';

const busyPorts = ompPortsProblem();

describe.skipIf(!!busyPorts)('the real omp, offline', () => {
  const installed = requireCli('omp');
  let server: FakeModelServer;
  let fx: OmpFixture;
  let work: string;
  const tmux = new TestTmux('rdomp');
  /** The seat-like TUI: `omp --resume X` on a session file written the way Rigdesk writes it. */
  let tui: { paneId: string; panePid: number } | undefined;
  let X = '';

  const capture = (pane: string) => {
    const styled = tmux.run(['capture-pane', '-p', '-e', '-t', pane]).split('\n');
    return {
      plain: styled.map(stripSgr),
      styled,
      title: tmux.run(['display-message', '-p', '-t', pane, '#{pane_title}']).trim(),
    };
  };
  const read = (pane: string) => readOmpScreen(capture(pane));
  const shows = async (
    pane: string,
    ok: (s: ReturnType<typeof capture>) => boolean,
    what: string,
    timeoutMs = 30_000,
  ) =>
    waitFor(() => ok(capture(pane)), { timeoutMs, intervalMs: 100, what }).catch((e: Error) => {
      throw new Error(`${e.message}\n--- screen ---\n${capture(pane).plain.join('\n')}`);
    });
  const idle = (s: ReturnType<typeof capture>) => readOmpScreen(s).activity === 'idle' && !readOmpScreen(s).needsInput;

  beforeAll(async () => {
    server = await startFakeModelServer({ slowChunks: 6, slowMs: 500, retryAfter: 1 });
    fx = makeOmpFixture({ serverUrl: server.url, closedPort: await closedPort() });
    work = join(fx.root, 'work');
    mkdirSync(work);
  });
  afterAll(async () => {
    await endTmuxAgents(tmux, fx ? ['PI_CODING_AGENT_DIR', fx.agentDir] : undefined);
    await server?.close();
    if (server && installed()) expectOnlyLoopback(server);
    fx?.cleanup();
  });

  it('omp -p writes <ts>_<id>.jsonl (title slot, then the header) in the folder the adapter names for the cwd: under HOME, under the temp root, elsewhere', async () => {
    const inHome = join(fx.home, 'proj');
    const inTmp = join(fx.tmp, 'scratch');
    for (const d of [inHome, inTmp]) mkdirSync(d);
    for (const [cwd, text] of [
      [work, 'hello'],
      [inHome, 'from home'],
      [inTmp, 'from tmp'],
    ] as const) {
      const before = new Set(fx.sessionFiles());
      const r = await runAgent(OMP_BIN, fx.env, cwd, ['-p', text], 60_000);
      expect({ code: r.code, stdout: r.stdout.trim() }, r.stderr).toEqual({ code: 0, stdout: `ACK ${text}` });
      const made = fx.sessionFiles().filter((f) => !before.has(f));
      expect(made).toHaveLength(1);
      const [folder, name] = made[0]!.split('/');
      expect(folder).toBe(ompFolderFor(realpathSync(cwd), fx.home, fx.tmp));
      const file = join(fx.agentDir, 'sessions', made[0]!);
      const raw = readFileSync(file, 'utf8');
      expect(Buffer.byteLength(raw.split('\n')[0]!) + 1, 'the title slot').toBe(256);
      const id = ompHeaderId(raw)!;
      expect(name).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-\\d\\d-\\d{3}Z_${id}\\.jsonl$`));
      expect(omp.transcriptPath!(fx.agentDir, cwd, id, liveEvidenceIO)).toBe(file);
      expect(ompEntries(raw)[1]).toMatchObject({ type: 'session', version: 3, id, cwd: realpathSync(cwd) });
    }
    expect(ompFolderFor(realpathSync(join(fx.home, 'proj')), fx.home, fx.tmp)).toBe('-proj');
    expect(ompFolderFor(realpathSync(join(fx.tmp, 'scratch')), fx.home, fx.tmp)).toBe('-tmp-scratch');
    const chat = server.requests.filter((q) => q.route === 'chat_completions');
    expect(chat.length).toBeGreaterThan(0);
    expect(chat[0]!.userAgent).toBe('omp/18.2.3');
  });

  it('first-run setup: plain omp opens its wizard; with setupVersion 2 written into its agent dir (as Rigdesk does for a seat) it opens at the editor', async () => {
    const wizard = startInTmux(tmux, fx.env, 'wizard', work, [OMP_BIN]);
    await shows(wizard.paneId, (s) => /Setup step 1 of 5/.test(s.plain.join('\n')), 'the setup wizard', 45_000);
    expect(read(wizard.paneId).activity, 'the wizard is no editor: not idle').toBeUndefined();
    tmux.run(['kill-session', '-t', 'wizard']);
    await waitForExit(wizard.panePid, 10_000);
    expect(prepareOmpSetup({ seatEnv: { PI_CODING_AGENT_DIR: fx.agentDir }, dryRun: false })).toMatchObject({
      ok: true,
    });
    const plain = startInTmux(tmux, fx.env, 'plain', work, [OMP_BIN]);
    await shows(plain.paneId, idle, 'plain omp at its editor', 45_000);
    expect(capture(plain.paneId).plain.join('\n')).not.toContain('Setup step');
    tmux.run(['kill-session', '-t', 'plain']);
    await waitForExit(plain.panePid, 10_000);
  });

  it('a session file written before launch is opened as that id by `omp --resume <id>`; the process keeps that argv (comm omp) and its clients file names no session', async () => {
    X = '0e0e0e0e-1111-4222-8333-444455556666';
    const file = writeOmpSession({
      home: fx.agentDir,
      cwd: work,
      id: X,
      userHome: fx.home,
      tmp: fx.tmp,
      now: new Date(),
    });
    const before = fx.sessionFiles().length;
    tui = startInTmux(tmux, fx.env, 'tui', work, [OMP_BIN, '--resume', X]);
    await shows(tui.paneId, idle, 'omp --resume X at its editor', 45_000);
    const pid = tui.panePid;
    expect(procComm(pid)).toBe('omp');
    const argv = rawCmdline(pid).split('\0').filter(Boolean);
    expect(argv).toEqual(['bun', OMP_BIN, '--resume', X]);
    expect(
      omp.matches({ pid, ppid: 0, pgid: 0, sid: 0, tpgid: 0, ttyNr: 0, startTime: '0', comm: 'omp', argv, uid: 0 }),
    ).toBe(true);
    expect(omp.conversationFromArgv(argv)).toBe(X);
    const daemons = join(fx.home, '.omp', 'run', 'daemons');
    const clients = readdirSync(daemons).flatMap((h) =>
      readdirSync(join(daemons, h, 'clients')).map((f) => join(daemons, h, 'clients', f)),
    );
    const mine = clients.filter((f) => f.split('/').pop()!.startsWith(`${pid}-`));
    expect(mine).toHaveLength(1);
    const client = JSON.parse(readFileSync(mine[0]!, 'utf8')) as Record<string, unknown>;
    expect(client.pid).toBe(pid);
    expect(JSON.stringify(client)).not.toContain(X);

    await typeAndSubmit(tmux, tui.paneId, 'hello omp', 300);
    await shows(tui.paneId, (s) => s.plain.join('\n').includes('ACK hello omp') && idle(s), 'ACK hello omp, then idle');
    await waitFor(() => fx.sessionText(X).includes('ACK hello omp'), { what: 'the reply in X' });
    expect(fx.sessionFileFor(X)).toBe(file);
    expect(fx.sessionFiles().length, 'no other session file').toBe(before);
    expect(ompEntries(readFileSync(file, 'utf8')).filter((e) => e.type === 'session')).toHaveLength(1);
  });

  it('working: a held reply shows the spinner and turn timer in the status line (and a spinner in the pane title); idle again after', async () => {
    server.hold();
    await typeAndSubmit(tmux, tui!.paneId, 'tick HOLD', 300);
    await shows(tui!.paneId, (s) => readOmpScreen(s).activity === 'working', 'working', 15_000);
    const s = capture(tui!.paneId);
    expect(s.plain.some((l) => OMP_SCREEN.working.test(l))).toBe(true);
    expect(s.title).toMatch(/^π [\u2801-\u28ff] /);
    server.release();
    await shows(tui!.paneId, (c) => c.plain.join('\n').includes('tick6') && idle(c), 'the held reply done');
    expect(capture(tui!.paneId).title).toMatch(/^π > /);
  });

  it('permission: bash asks in an "Allow tool:" box (title `π !`), Approve selected; Down moves it; Enter approves; the tool runs inside omp (no child for sleep)', async () => {
    const out = join(work, 'omp-out.txt');
    await typeAndSubmit(tmux, tui!.paneId, 'RUN: sleep 2 && echo omp-tool-ok > omp-out.txt && cat omp-out.txt', 300);
    await shows(tui!.paneId, (s) => readOmpScreen(s).needsInput === 'permission', 'the approval box', 20_000);
    const s = capture(tui!.paneId);
    expect(s.title).toMatch(/^π ! /);
    const p = readOmpPrompt(s.plain)!;
    expect(p.asked).toEqual([
      'Allow tool: bash',
      'Command: sleep 2 && echo omp-tool-ok > omp-out.txt && cat omp-out.txt',
    ]);
    expect(p.approveReady).toBe(true);
    tmux.run(['send-keys', '-t', tui!.paneId, 'Down']);
    await shows(tui!.paneId, (c) => readOmpPrompt(c.plain)?.approveReady === false, 'Deny selected');
    tmux.run(['send-keys', '-t', tui!.paneId, 'Up']);
    await shows(tui!.paneId, (c) => readOmpPrompt(c.plain)?.approveReady === true, 'Approve selected again');
    tmux.run(['send-keys', '-t', tui!.paneId, ...omp.promptKeys!.approve]);
    const seen = new Set<string>();
    let looks = 0;
    await waitFor(
      () => {
        looks++;
        for (const pid of processTree(tui!.panePid).slice(1)) {
          try {
            seen.add(`${procComm(pid)}: ${rawCmdline(pid).split('\0').join(' ').trim()}`);
          } catch {
            /* gone */
          }
        }
        try {
          return readFileSync(out, 'utf8').trim() === 'omp-tool-ok';
        } catch {
          return false;
        }
      },
      { timeoutMs: 20_000, intervalMs: 50, what: 'the approved command ran' },
    );
    expect(looks, 'looked at the process tree while the command ran').toBeGreaterThan(10);
    // Only a process of the approved command counts: omp runs other shells of its own now and then
    // (a CI run saw a `bash` and a `head` beside it).
    expect(
      [...seen].filter((c) => /^(sleep|cat):/.test(c) || c.includes('omp-out.txt')),
      [...seen].join('\n'),
    ).toEqual([]);
    await shows(
      tui!.paneId,
      (c) => c.plain.join('\n').includes('ACK tool result: omp-tool-ok') && idle(c),
      'idle after the tool',
    );
  });

  it('a 429 shows `Error: 429` above the spinner while omp retries: a usage limit; Escape twice ends it', async () => {
    await typeAndSubmit(tmux, tui!.paneId, 'LIMIT', 300);
    await shows(tui!.paneId, (s) => readOmpScreen(s).needsInput === 'usage_limit', 'the 429 line', 60_000);
    expect(read(tui!.paneId).activity).toBe('working');
    expect(server.requests.some((q) => q.trigger === 'limit')).toBe(true);
    await waitFor(
      () => {
        // Looked at before the key: the last Escape is long read when idle is seen (an Escape
        // right before the next test's first letter would make it Alt+letter).
        if (read(tui!.paneId).activity === 'idle') return true;
        tmux.run(['send-keys', '-t', tui!.paneId, 'Escape']);
        return false;
      },
      { timeoutMs: 15_000, intervalMs: 700, what: 'the retries stopped' },
    );
  });

  it('a second writer: `omp -p --resume <id prefix>` from another folder while the TUI is busy exits 0 and writes into X, and X branches', async () => {
    const elsewhere = join(fx.root, 'elsewhere');
    mkdirSync(elsewhere);
    const prefix = X.slice(0, 8);
    expect(ompResumeCandidates(fx.agentDir, prefix, elsewhere, liveEvidenceIO)).toEqual([X]);
    server.hold();
    await typeAndSubmit(tmux, tui!.paneId, 'busy HOLD', 300);
    await shows(tui!.paneId, (s) => readOmpScreen(s).activity === 'working', 'TUI busy', 15_000);
    const b = await runAgent(OMP_BIN, fx.env, elsewhere, ['-p', '--resume', prefix, 'B from headless'], 60_000);
    expect({ code: b.code, stdout: b.stdout.trim() }, b.stderr).toEqual({ code: 0, stdout: 'ACK B from headless' });
    server.release();
    await shows(tui!.paneId, (s) => s.plain.join('\n').includes('ACK busy HOLD') && idle(s), 'TUI done');
    const entries = ompEntries(readFileSync(fx.sessionFileFor(X)!, 'utf8'));
    const busy = entries.find((e) => e.message?.role === 'user' && textOf(e) === 'busy HOLD')!;
    const children = entries
      .filter((e) => e.parentId === busy.id)
      .map((e) => [e.message?.role, textOf(e).slice(0, 15)]);
    // Two children of the TUI's prompt: the headless prompt (its reply below it) and the TUI's own reply.
    expect(children).toHaveLength(2);
    expect(children).toEqual(
      expect.arrayContaining([
        ['user', 'B from headless'],
        ['assistant', 'ACK busy HOLD t'],
      ]),
    );
  });

  it('a missing session: `omp --resume <id>` exits 1 in the words the adapter knows, headless and in a pane (restore reads the screen), and so does a file named for the id whose header is gone', async () => {
    const missing = '11111111-2222-4333-8444-555555555555';
    const r = await runAgent(OMP_BIN, fx.env, work, ['--resume', missing], 45_000);
    expect(r.code).toBe(1);
    expect(omp.missingConversation.exec(r.stderr)?.[1]).toBe(missing);
    const lost = '22222222-3333-4444-8555-666666666666';
    const f = writeOmpSession({
      home: fx.agentDir,
      cwd: work,
      id: lost,
      userHome: fx.home,
      tmp: fx.tmp,
      now: new Date(),
    });
    writeFileSync(f, '{"type":"message","id":"x","parentId":null}\n');
    const pane = startInTmux(
      tmux,
      { ...fx.env, SHELL: '/bin/sh' },
      'missing',
      work,
      wrapForPane([OMP_BIN, '--resume', lost]),
    );
    await shows(pane.paneId, (s) => /\[rigdesk\] omp exited with status 1/.test(s.plain.join('\n')), 'omp to exit');
    expect(omp.missingConversation.exec(capture(pane.paneId).plain.join('\n'))?.[1]).toBe(lost);
  });

  it('after the tmux server is killed every omp exits and none is left', async () => {
    const pids = [tui!.panePid];
    tmux.kill();
    for (const p of pids) expect(await waitForExit(p, 15_000)).toBe('exited');
    expect(pidsWithEnv('PI_CODING_AGENT_DIR', fx.agentDir)).toEqual([]);
    await killPids([]);
  });
});

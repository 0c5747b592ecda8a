/**
 * Facts about the real OpenCode CLI (opencode-ai 1.18.33) that the adapter rests on, checked
 * against the binary itself, offline against the fake model server: how it says a session is
 * missing (restore's rollback signature), how its process looks (comm, argv naming the session only
 * when given `-s`), where its Bun binary unpacks its libraries (TMPDIR), and that a session it
 * creates lands in opencode.db with the cwd as its directory.
 */
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeOpencodeFixture, OPENCODE_BIN, type OpencodeFixture } from './opencode-fixture';
import { endTmuxAgents, runAgent, startInTmux, typeAndSubmit } from './agent-run';
import { closedPort, startFakeModelServer, type FakeModelServer } from './fake-model-server';
import { TestTmux, waitFor } from '../support/tmux';
import { liveProcReader } from '../../src/main/engine/proc';
import { opencode } from '../../src/main/engine/runtimes';
import { wrapForPane } from '../../src/main/engine/runtimes/env';
import { OPENCODE_SCREEN } from '../../src/main/engine/runtimes/screens/opencode';
import { expectOnlyLoopback, requireCli } from '../journeys/support';

const MISSING = 'ses_doesnotexist0000000000000';
const BOX = /╹▀{8,}/;

describe('the real OpenCode CLI, offline', () => {
  const installed = requireCli('opencode');
  let server: FakeModelServer;
  let fx: OpencodeFixture;
  let work: string;
  const tmux = new TestTmux('rdoc');
  /** A shell's env in `work`: OpenCode takes its folder from $PWD before its real cwd. */
  const env = () => ({ ...fx.env, PWD: work });

  beforeAll(async () => {
    server = await startFakeModelServer();
    fx = makeOpencodeFixture({ serverUrl: server.url, closedPort: await closedPort() });
    work = join(fx.root, 'work');
    mkdirSync(work);
  });
  afterAll(async () => {
    // OpenCode keeps writing into its TMPDIR while it exits: its folders go only once it is gone.
    await endTmuxAgents(tmux, fx ? ['TMPDIR', fx.tmp] : undefined);
    fx?.cleanup();
    await server?.close();
    if (server && installed()) expectOnlyLoopback(server);
  });

  it('a missing session: `opencode run -s <id>` fails (rc 1) in the words the adapter knows', async () => {
    const r = await runAgent(OPENCODE_BIN, env(), work, ['run', '-s', MISSING, 'hi'], 45_000);
    expect(r.code).toBe(1);
    expect(`${r.stdout}${r.stderr}`).toMatch(opencode.missingConversation);
  });

  it('a missing session in the TUI, run as Rigdesk runs a seat: the words stay on the visible screen after it exits (restore reads them there)', async () => {
    const p = startInTmux(
      tmux,
      { ...env(), SHELL: '/bin/sh' },
      'missing',
      work,
      wrapForPane([OPENCODE_BIN, '-s', MISSING]),
    );
    await waitFor(() => /\[rigdesk\] opencode exited with status 1/.test(tmux.capture(p.paneId)), {
      timeoutMs: 45_000,
      what: 'opencode -s <missing> to exit',
    });
    const visible = tmux.capture(p.paneId);
    expect(visible, visible).toMatch(opencode.missingConversation);
    expect(opencode.missingConversation.exec(visible)?.[1]).toBe(MISSING);
  });

  it('a fresh TUI names no session on its command line; the session it creates is in opencode.db under its cwd; its libraries unpack into TMPDIR', async () => {
    const p = startInTmux(tmux, env(), 'fresh', work, [OPENCODE_BIN]);
    await waitFor(() => BOX.test(tmux.capture(p.paneId)), { timeoutMs: 45_000, what: 'the TUI up' });
    // tmux runs a lone command through `sh -c`: the agent is the pane process or its child.
    const snap = liveProcReader().snapshot();
    const pid = [p.panePid, ...(snap.children.get(p.panePid) ?? [])].find(
      (x) => snap.byPid.get(x)?.comm === 'opencode',
    )!;
    const proc = liveProcReader().read(pid)!;
    expect(proc.comm).toBe('opencode');
    expect(opencode.matches(proc)).toBe(true);
    expect(opencode.conversationFromArgv(proc.argv)).toBeUndefined();
    expect(readdirSync(fx.tmp).length, 'Bun unpacked its .so files into TMPDIR').toBeGreaterThan(0);
    expect(fx.sessionsIn(work), 'no session before the first prompt').toEqual([]);
    await typeAndSubmit(tmux, p.paneId, 'first prompt', 300);
    await waitFor(
      () => fx.sessionsIn(work).length === 1 && fx.sessionText(fx.sessionsIn(work)[0]!.id).includes('ACK first prompt'),
      { timeoutMs: 45_000, what: 'the session and its reply' },
    );
    await waitFor(() => OPENCODE_SCREEN.idle.test(tmux.capture(p.paneId)), { timeoutMs: 30_000, what: 'idle footer' });
    const id = fx.sessionsIn(work)[0]!.id;
    expect(id).toMatch(/^ses_[0-9A-Za-z]{26}$/);
    expect(opencode.transcriptPath!(fx.dataHome, work, id, undefined as never)).toBe(fx.dbPath);
    tmux.run(['kill-session', '-t', 'fresh']);

    // Resumed with -s, the process names it, and the adapter reads it from the live argv.
    const r = startInTmux(tmux, env(), 'resumed', work, [OPENCODE_BIN, '-s', id]);
    await waitFor(() => BOX.test(tmux.capture(r.paneId)), { timeoutMs: 45_000, what: 'the resumed TUI up' });
    expect(opencode.conversationFromArgv(liveProcReader().read(r.panePid)!.argv)).toBe(id);
  }, 200_000); // four waits of up to 45 s each, and one of 30 s: the test as a whole allows their sum
});

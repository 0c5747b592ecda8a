/**
 * Journey (issue 6): a second writer on a live Pi conversation. Pi itself accepts one silently,
 * headless (`pi -p --session X`) and in a second interactive pane (`pi --session X`), and both write
 * into X's session file beside the seat. Pi rewrites its command line, so nothing proves which
 * conversation another Pi writes: Rigdesk's answer is doubt. While another Pi runs in the seat's
 * folder with the same agent dir, launching the seat on X is refused with
 * CONVERSATION_OWNER_UNKNOWN; once it is gone the seat resumes X by id.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PI_BIN } from '../agents/pi-fixture';
import { agentProcessEnv, runAgent, startInTmux } from '../agents/agent-run';
import type { FakeModelServer } from '../agents/fake-model-server';
import { killTmuxServer } from '../agents/claude-run';
import { waitFor } from '../support/tmux';
import { pi } from '../../src/main/engine/runtimes';
import type { CliResult } from '../support/rig';
import {
  typeInto,
  expectOnlyLoopback,
  JourneyWorld,
  processAlive,
  requireCli,
  startServer,
  transcriptOf,
  waitForExit,
  waitForReplyInTranscript,
} from './support';

const SEAT = 'pi@dup';
/** Pi's editor: the empty line between two full-width rules (its idle screen). */
const PI_EDITOR = /^─{8,}\n\s*\n─{8,}$/m;

describe('journey: a second writer on a live Pi conversation', () => {
  const installed = requireCli('pi');
  let server: FakeModelServer;
  let closed: number;
  let j: JourneyWorld | undefined;
  /** What `rigdesk send` to the live seat answered while a second Pi was open on X (see the it.fails below). */
  let sendWhileSecondPiLive: CliResult | undefined;

  beforeAll(async () => {
    ({ server, closed } = await startServer({ slowChunks: 5, slowMs: 1000 }));
  });
  afterEach(async () => {
    await j?.cleanup();
    j = undefined;
  });
  afterAll(async () => {
    await server?.close();
    if (server && installed()) expectOnlyLoopback(server);
  });

  it('Pi takes a second writer (headless and a second pane); Rigdesk refuses to launch the seat on X while another Pi lives there, and resumes X once it is gone', async () => {
    const w = (j = new JourneyWorld(server, closed, ['pi']));
    const env = w.envOf('pi');
    const home = w.homeOf('pi');
    const work = w.dir();
    await w.up('dup', [{ id: 'pi', runtime: 'pi' }]);
    const { row } = await w.seen(SEAT, { activity: 'idle' });
    const X = row.conversationId!;
    expect(X, "Rigdesk names a Pi seat's conversation from launch").toMatch(/^[0-9a-f-]{36}$/);
    expect((await w.cli(['send', SEAT, 'first turn', '--verify', '--json'])).json.ok).toBe(true);
    const file = await waitForReplyInTranscript(pi, home, work, X, 'ACK first turn');

    // 1. The CLI itself: a headless second writer on X while the seat runs is accepted, rc 0.
    const b = await runAgent(PI_BIN, env, work, ['-p', '--session', X, 'second writer B']);
    expect(b.code, b.stderr).toBe(0);
    expect(b.stdout).toContain('ACK second writer B');
    await waitForReplyInTranscript(pi, home, work, X, 'ACK second writer B');
    expect(await w.row(SEAT)).toMatchObject({ state: 'running', pid: row.pid, conversationId: X });

    // 2. A second interactive pane on X, on a person's own tmux server: Pi opens it without a word.
    const hand = w.otherTmux();
    const pane = startInTmux(hand, env, 'mine', work, [PI_BIN, '--session', X]);
    await waitFor(() => PI_EDITOR.test(hand.capture(pane.paneId)), {
      timeoutMs: 30_000,
      what: 'the second Pi pane at its editor',
    });
    await typeInto(hand, pane.paneId, 'hand pane C', pi);
    await waitForReplyInTranscript(pi, home, work, X, 'ACK hand pane C');
    sendWhileSecondPiLive = await w.cli(['send', SEAT, 'typed while a second Pi is open', '--json']);
    // Rigdesk will not open another writer on X: stopped, the seat does not come back while that Pi runs.
    expect((await w.cli(['stop', SEAT, '--json'])).code).toBe(0);
    await waitForExit(row.pid!, 10_000);
    const relaunch = await w.cli(['launch', SEAT, '--json']);
    expect(relaunch.code, relaunch.stdout).toBe(1);
    expect(relaunch.json.code).toBe('CONVERSATION_OWNER_UNKNOWN');
    expect(relaunch.json.evidence.candidates.map((c: { pid: number }) => c.pid)).toContain(pane.panePid);
    expect(w.w.sessions().filter((s) => s.seat === SEAT)).toEqual([]);
    killTmuxServer(hand);
    await waitForExit(pane.panePid, 10_000);

    // 3. A headless Pi on X. Right after it starts, before Pi renames itself (its modules take
    // seconds to load), it is `node …/bin/pi -p --session X …` and its argv names X; after that
    // its command line is just "pi", and the doubt refuses. Either way the seat stays down.
    const headless = spawn(PI_BIN, ['-p', '--session', X, 'headless SLOW'], {
      cwd: work,
      env: agentProcessEnv(env),
      stdio: 'ignore',
    });
    w.own(headless.pid!);
    const early = await w.cli(['launch', SEAT, '--json']);
    expect(['CONVERSATION_LIVE_ELSEWHERE', 'CONVERSATION_OWNER_UNKNOWN'], early.stdout).toContain(early.json.code);
    await waitFor(
      () => processAlive(headless.pid!) && readFileSync(`/proc/${headless.pid}/comm`, 'utf8').trim() === 'pi',
      { what: 'headless pi renamed itself' },
    );
    const refused = await w.cli(['launch', SEAT, '--json']);
    expect(refused.json.code, refused.stdout).toBe('CONVERSATION_OWNER_UNKNOWN');
    expect(refused.json.evidence.candidates[0]).toMatchObject({ pid: headless.pid, cwd: work });
    expect(refused.json.evidence.candidates[0].pane).toBeUndefined();
    expect(await waitForExit(headless.pid!, 30_000)).toBe('exited');
    expect(
      readFileSync(transcriptOf(pi, home, work, X)!, 'utf8').includes('ACK headless SLOW tick2 tick3 tick4 tick5'),
      'the headless reply is in X',
    ).toBe(true);

    // 4. Nobody else writes X now: the seat resumes it by id, and its next reply lands in the same file.
    const back = await w.cli(['launch', SEAT, '--json']);
    expect(back.code, back.stdout).toBe(0);
    expect(back.json.launched).toMatchObject({ mode: 'resume', conversationId: X });
    await w.seen(SEAT, { activity: 'idle' });
    expect((await w.cli(['send', SEAT, 'back on X', '--verify', '--json'])).json.ok).toBe(true);
    expect(await waitForReplyInTranscript(pi, home, work, X, 'ACK back on X')).toBe(file);
    expect((await w.row(SEAT)).conversationId).toBe(X);
  });

  // The send path gives the guard the seat's folder and home, so Pi's doubt rule runs for sends too.
  it('Pi: a send to the live seat is refused (CONVERSATION_OWNER_UNKNOWN) while a second Pi is open in its folder', () => {
    expect(sendWhileSecondPiLive, 'the journey above ran').toBeDefined();
    expect(sendWhileSecondPiLive!.json.code).toBe('CONVERSATION_OWNER_UNKNOWN');
  });
});

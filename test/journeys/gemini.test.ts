/**
 * Journey (issue 8): the real Gemini CLI in Rigdesk seats, offline against the fake model server's
 * Gemini API, driven through the `rigdesk` CLI only: bring a rig up (ids chosen up front with
 * `--session-id`), send and find the reply in the conversation's own transcript, working → idle
 * within 2 s of the pane title changing, a permission prompt answered from Rigdesk, a second writer
 * (headless and interactive, both accepted by Gemini itself) refused by Rigdesk, a restore after a
 * simulated reboot, and Gemini's session cleanup kept from deleting a seat's transcript.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GEMINI_BIN, makeGeminiFixture } from '../agents/gemini-fixture';
import { agentProcessEnv, killTmuxServer, runAgent, startInTmux } from '../agents/agent-run';
import type { FakeModelServer } from '../agents/fake-model-server';
import { waitFor } from '../support/tmux';
import { gemini } from '../../src/main/engine/runtimes';
import { GEMINI_SCREEN } from '../../src/main/engine/runtimes/screens/gemini';
import { missingReported } from '../../src/main/engine/restore/verify';
import {
  expectOnlyLoopback,
  expectWithin,
  JourneyWorld,
  processAlive,
  requireCli,
  startServer,
  transcriptOf,
  waitForExit,
  waitForReplyInTranscript,
} from './support';

const SEAT = 'gm@gem';
const TWO = 'two@gem';
const minute = (): number => Math.floor(Date.now() / 60_000);

describe('journey: Gemini CLI seats, driven through rigdesk', () => {
  const installed = requireCli('gemini');
  let server: FakeModelServer;
  let j: JourneyWorld;
  let X = '';
  let Y = '';
  let startedMinute = 0;
  const title = (seat: string): string =>
    j.w.tmux.tryRun(['display-message', '-p', '-t', seat, '#{pane_title}']).out.trim();
  const send = async (seat: string, text: string): Promise<void> => {
    const sent = await j.cli(['send', seat, text, '--verify', '--json']);
    expect(sent.json, `${sent.stdout}${sent.stderr}\n${j.screen(seat)}`).toMatchObject({
      ok: true,
      sent: { status: 'delivered' },
    });
  };
  /** The reply in the conversation's transcript; on a timeout, what the seat and the server saw. */
  const reply = (seat: string, id: string, text: string): Promise<string> =>
    waitForReplyInTranscript(gemini, j.homeOf('gemini'), j.dir(), id, text).catch((e: Error) => {
      throw new Error(
        `${e.message}\n--- ${seat} (${title(seat)}):\n${j.screen(seat)}\n--- last requests: ${JSON.stringify(server.requests.slice(-6).map((r) => [r.route, r.trigger]))}`,
      );
    });
  /**
   * A (re)launched seat once it takes input. Gemini draws its input box and sets its title to Ready
   * a moment before it reads keys: a paste right then was seen lost (Rigdesk then answers
   * SEND_UNCONFIRMED, as it should), so the journey lets a fresh seat settle before typing.
   */
  const settled = async (seat: string) => {
    const seen = await j.seen(seat, { activity: 'idle', named: true });
    await new Promise((r) => setTimeout(r, 2000));
    return seen;
  };
  const titleShows = async (seat: string, re: RegExp, what: string): Promise<number> => {
    await waitFor(() => re.test(title(seat)), {
      timeoutMs: 45_000,
      intervalMs: 20,
      what: `${what} in ${seat}'s pane title`,
    });
    return Date.now();
  };

  beforeAll(async () => {
    const s = await startServer({ slowChunks: 6, slowMs: 1000 });
    server = s.server;
    j = new JourneyWorld(server, s.closed, ['gemini'], ['work', 'strict']);
  });
  // A second writer a test started (a hand pane, a headless run) never outlives that test.
  afterEach(async () => {
    await j?.endTestOthers();
  });
  afterAll(async () => {
    await j?.cleanup();
    await server?.close();
    if (server && installed()) expectOnlyLoopback(server);
  });

  it("up launches each seat with an id chosen up front, and turns session cleanup off in the seat's own settings only", async () => {
    const settings = join(j.homeOf('gemini'), '.gemini', 'settings.json');
    expect(
      JSON.parse(readFileSync(settings, 'utf8')).general.sessionRetention,
      "the fixture leaves Gemini's default",
    ).toBeUndefined();
    const up = await j.up('gem', [
      { id: 'gm', runtime: 'gemini' },
      { id: 'two', runtime: 'gemini' },
    ]);
    startedMinute = minute();
    X = up.json.seats[0].launched.conversationId;
    Y = up.json.seats[1].launched.conversationId;
    expect(up.json.seats[0].launched).toMatchObject({ mode: 'fresh', runtime: 'gemini' });
    expect(X).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    for (const [seat, id] of [
      [SEAT, X],
      [TWO, Y],
    ] as const) {
      const { row } = await j.seen(seat, { activity: 'idle', named: true });
      expect(row).toMatchObject({ runtime: 'gemini', state: 'running', session: 'present', conversationId: id });
      // Both of Gemini's processes (launcher and relaunched child) carry the id Rigdesk chose.
      expect(readFileSync(`/proc/${row.pid}/cmdline`, 'utf8').split('\0')).toEqual(
        expect.arrayContaining(['--session-id', id]),
      );
    }
    expect(JSON.parse(readFileSync(settings, 'utf8')).general).toMatchObject({
      sessionRetention: { enabled: false },
      enableAutoUpdate: false,
    });
  }, 120_000);

  it("send is delivered and the reply lands in the conversation's own transcript (found through projects.json)", async () => {
    const sent = await j.cli(['send', SEAT, 'hello gemini', '--verify', '--json']);
    expect(sent.json, sent.stdout + sent.stderr).toMatchObject({
      ok: true,
      sent: { status: 'delivered', verified: true },
    });
    const file = await waitForReplyInTranscript(gemini, j.homeOf('gemini'), j.dir(), X, 'ACK hello gemini');
    // Gemini's short name for the folder is its base name.
    expect(file).toMatch(
      new RegExp(
        `/\\.gemini/tmp/${basename(j.dir())}/chats/session-\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-${X.slice(0, 8)}\\.jsonl$`,
      ),
    );
    expect(JSON.parse(readFileSync(file, 'utf8').split('\n')[0]!)).toMatchObject({ sessionId: X });
  });

  it('working → idle: ps shows each within 2 s of the pane title changing', async () => {
    await j.seen(SEAT, { activity: 'idle' });
    expect((await j.cli(['send', SEAT, 'slow one SLOW', '--json'])).json.ok).toBe(true);
    const busy = await titleShows(SEAT, GEMINI_SCREEN.titleWorking, '✦ Working…');
    const working = await j.seen(SEAT, { activity: 'working' }, busy);
    expectWithin(working, 2000, 'working');
    const ready = await titleShows(SEAT, GEMINI_SCREEN.titleIdle, '◇ Ready');
    const idle = await j.seen(SEAT, { activity: 'idle' }, ready);
    expectWithin(idle, 2000, 'idle');
    await waitForReplyInTranscript(
      gemini,
      j.homeOf('gemini'),
      j.dir(),
      X,
      'ACK slow one SLOW tick2 tick3 tick4 tick5 tick6',
    );
    console.log(`gemini activity: working reported ${working.ms} ms, idle ${idle.ms} ms after the title changed`);
  }, 120_000);

  it('a permission prompt is answered from Rigdesk: a plain send is held; prompts shows it, answer approves it, recorded', async () => {
    const work = j.dir();
    expect((await j.cli(['send', SEAT, 'RUN: touch from-gemini.txt', '--json'])).json.ok).toBe(true);
    const asked = await titleShows(SEAT, GEMINI_SCREEN.titleAction, '✋ Action Required');
    expectWithin(await j.seen(SEAT, { activity: 'needs_input', needsInput: 'permission' }, asked), 2000, 'needs_input');
    await j.approveFromRigdesk(SEAT, 'touch from-gemini.txt', () => existsSync(join(work, 'from-gemini.txt')));
  }, 120_000);

  it("a 429 hides behind Gemini's spinner: working at first, then unknown with the reason once the spinner has run 30 s with nothing drawn, and Escape brings it back to idle", async () => {
    const limits = () => server.requests.filter((r) => r.trigger === 'limit').length;
    const before = limits();
    await send(SEAT, 'LIMIT please');
    await j.seen(SEAT, { activity: 'working' });
    await waitFor(() => limits() >= before + 2, { timeoutMs: 30_000, what: 'Gemini retrying the 429' });
    // Nothing on screen names the 429: only the spinner and the Working… title.
    const shown = j.screen(SEAT);
    expect(shown).toMatch(GEMINI_SCREEN.working);
    expect(shown).not.toMatch(/429|RESOURCE_EXHAUSTED|exhausted|quota|Trying to reach|taking a bit longer/i);
    expect(title(SEAT)).toMatch(GEMINI_SCREEN.titleWorking);
    const unknown = await j.unknownBehindSpinner(SEAT);
    expect(unknown).toMatchObject({ state: 'running', session: 'present' });
    expect((unknown as { activityWhy?: string }).activityWhy, 'ps says why it cannot tell').toMatch(
      /429.*cannot be told/,
    );
    j.w.tmux.run(['send-keys', '-t', SEAT, 'Escape']);
    await j.seen(SEAT, { activity: 'idle' });
  }, 150_000);

  it('Gemini takes a second writer (headless and a second pane); Rigdesk refuses to send to or launch the seat while one lives (CONVERSATION_LIVE_ELSEWHERE)', async () => {
    const env = j.envOf('gemini');
    const home = j.homeOf('gemini');
    const work = j.dir();
    const row = await j.row(SEAT);
    // 1. By hand, headless: Gemini accepts a second writer on X while the seat runs, rc 0.
    const b = await runAgent(GEMINI_BIN, env, work, ['--resume', X, '-p', 'second writer B'], 90_000);
    expect(b.code, b.stderr).toBe(0);
    expect(b.stdout).toContain('ACK second writer B');
    await waitForReplyInTranscript(gemini, home, work, X, 'ACK second writer B');
    // 2. While a headless writer of X runs, Rigdesk will not type into X.
    const headless = spawn(GEMINI_BIN, ['--resume', X, '-p', 'headless SLOW'], {
      cwd: work,
      env: agentProcessEnv(env),
      stdio: 'ignore',
    });
    j.own(headless.pid!);
    await waitFor(
      () => processAlive(headless.pid!) && readFileSync(`/proc/${headless.pid}/cmdline`, 'utf8').includes(X),
      { what: 'headless gemini running' },
    );
    const refused = await j.cli(['send', SEAT, 'typed while another writes', '--json']);
    expect(refused.json.code, refused.stdout).toBe('CONVERSATION_LIVE_ELSEWHERE');
    expect(refused.json.evidence.owners[0]).toMatchObject({
      pid: headless.pid,
      conversationId: X,
      headless: true,
      runtime: 'gemini',
      source: 'argv',
    });
    expect(await waitForExit(headless.pid!, 60_000)).toBe('exited');
    const text = readFileSync(transcriptOf(gemini, home, work, X)!, 'utf8');
    expect(text).toContain('ACK headless SLOW tick2 tick3');
    expect(text).not.toContain('typed while another writes');
    // 3. By hand, a second interactive pane on X on a person's own tmux server: accepted, it replies.
    const hand = j.otherTmux();
    const pane = startInTmux(hand, env, 'mine', work, [GEMINI_BIN, '--resume', X]);
    const handTitle = () => hand.tryRun(['display-message', '-p', '-t', pane.paneId, '#{pane_title}']).out;
    await waitFor(
      () => GEMINI_SCREEN.titleIdle.test(handTitle()) && /Type your message/.test(hand.capture(pane.paneId)),
      { timeoutMs: 60_000, what: 'the second gemini pane ready' },
    );
    hand.run(['send-keys', '-t', pane.paneId, '-l', 'hand pane C']);
    await new Promise((r) => setTimeout(r, 500));
    hand.run(['send-keys', '-t', pane.paneId, 'Enter']);
    // Gemini may swallow an Enter that comes right after typed text (§2.1); a person presses it again.
    const took = () => readFileSync(transcriptOf(gemini, home, work, X)!, 'utf8').includes('hand pane C');
    await waitFor(() => took() || (hand.run(['send-keys', '-t', pane.paneId, 'Enter']), false), {
      timeoutMs: 20_000,
      intervalMs: 3000,
      what: 'the hand pane took its prompt',
    }).catch((e: Error) => {
      throw new Error(
        `${e.message}\nhand pane (${handTitle()}):\n${hand.capture(pane.paneId)}\nfiles: ${j.fx
          .gemini!.sessionFiles(X)
          .map((f) => `${f} ${readFileSync(f, 'utf8').length}`)
          .join(', ')}`,
      );
    });
    await waitForReplyInTranscript(gemini, home, work, X, 'ACK hand pane C');
    const blocked = await j.cli(['send', SEAT, 'typed while a second pane writes', '--json']);
    expect(blocked.json.code).toBe('CONVERSATION_LIVE_ELSEWHERE');
    expect(blocked.json.evidence.owners.map((o: { paneId?: string }) => o.paneId)).toContain(pane.paneId);
    // Rigdesk opens no second writer either: stopped, the seat does not come back on X.
    expect((await j.cli(['stop', SEAT, '--json'])).code).toBe(0);
    await waitForExit(row.pid!, 15_000);
    const relaunch = await j.cli(['launch', SEAT, '--json']);
    expect(relaunch.json.code, relaunch.stdout).toBe('CONVERSATION_LIVE_ELSEWHERE');
    expect(relaunch.json.evidence.owners[0]).toMatchObject({ paneId: pane.paneId, conversationId: X, headless: false });
    expect(j.w.sessions().filter((s) => s.seat === SEAT)).toEqual([]);
    killTmuxServer(hand);
    await waitForExit(pane.panePid, 15_000);
    const back = await j.cli(['launch', SEAT, '--json']);
    expect(back.json.launched, back.stdout).toMatchObject({ mode: 'resume', conversationId: X });
    await j.seen(SEAT, { activity: 'idle', named: true });
  }, 300_000);

  it('restore after a reboot: the seat with a transcript resumes on its id; the one whose transcript is gone awaits a decision, no pane', async () => {
    // Gemini writes a conversation's file with its first message.
    await send(TWO, 'doomed');
    await reply(TWO, Y, 'ACK doomed');
    const pids = [(await j.row(SEAT)).pid!, (await j.row(TWO)).pid!];
    j.w.tmux.kill(); // the simulated reboot
    for (const p of pids) await waitForExit(p, 15_000);
    const gone = j.fx.gemini!.sessionFiles(Y);
    expect(gone.length).toBeGreaterThan(0);
    for (const f of gone) rmSync(f);
    const r = await j.cli(['restore', 'gem', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const by = Object.fromEntries(r.json.seats.map((s: { seat: string }) => [s.seat, s]));
    expect(by[SEAT]).toMatchObject({ outcome: 'resumed', conversationId: X });
    expect(by[TWO]).toMatchObject({ outcome: 'awaiting_decision' });
    expect(j.w.sessions().map((s) => s.seat)).toEqual([SEAT]);
    const { row } = await settled(SEAT);
    expect(readFileSync(`/proc/${row.pid}/cmdline`, 'utf8').split('\0')).toEqual(
      expect.arrayContaining(['--resume', X]),
    );
    await send(SEAT, 'after reboot');
    const file = await reply(SEAT, X, 'ACK after reboot');
    // Gemini itself, asked for the conversation whose files are gone: exit 42 and the words Rigdesk
    // reads as "missing" for exactly that id.
    const lost = await runAgent(GEMINI_BIN, j.envOf('gemini'), j.dir(), ['--resume', Y, '-p', 'anyone there'], 90_000);
    expect(lost.code, lost.stdout + lost.stderr).toBe(42);
    expect(missingReported('gemini', lost.stdout + lost.stderr, Y)).toBe(true);
    expect(missingReported('gemini', lost.stdout + lost.stderr, X)).toBe(false);
    expect(readFileSync(file, 'utf8')).toContain('ACK hello gemini');
  }, 180_000);

  it("session cleanup: by hand under Gemini's default a resume in a later minute then any start deletes the transcript (exit 42); the Rigdesk seat on the same sequence keeps its own", async () => {
    const work = j.dir();
    // By hand, with the CLI's default settings, in its own home (nothing of Rigdesk's).
    const bare = makeGeminiFixture({
      serverUrl: server.url,
      closedPort: Number(new URL(j.envOf('gemini').HTTPS_PROXY!).port),
      root: join(j.w.root, 'bare'),
    });
    const Z = '0b7a9e9c-5d1e-4c53-9a3a-1d3f3a1e2b40';
    const alpha = await runAgent(GEMINI_BIN, bare.env, work, ['--session-id', Z, '-p', 'alpha'], 90_000);
    expect(alpha.stdout, alpha.stderr).toContain('ACK alpha');
    const alphaMinute = minute();
    // The seat's resumes so far (after the second writer, after the reboot) already ran in later
    // minutes than X began, unless this whole file ran inside one minute: then wait for the next.
    await waitFor(() => minute() > alphaMinute && minute() > startedMinute, {
      timeoutMs: 65_000,
      intervalMs: 500,
      what: 'the next clock minute',
    });
    const beta = await runAgent(GEMINI_BIN, bare.env, work, ['--resume', Z, '-p', 'beta'], 90_000);
    expect(beta.stdout, beta.stderr).toContain('ACK beta');
    expect(bare.sessionFiles(Z).length, 'a resume in a later minute writes a stub beside the transcript').toBe(2);
    // The seat: one more resume in this later minute (a stub), one turn.
    const before = (await j.row(SEAT)).pid!;
    expect((await j.cli(['stop', SEAT, '--json'])).code).toBe(0);
    await waitForExit(before, 15_000);
    expect((await j.cli(['launch', SEAT, '--json'])).json.launched).toMatchObject({
      mode: 'resume',
      conversationId: X,
    });
    await settled(SEAT);
    await send(SEAT, 'in a later minute');
    await reply(SEAT, X, 'ACK in a later minute');
    expect(j.fx.gemini!.sessionFiles(X).length, 'the seat has stubs too').toBeGreaterThan(1);
    // Any next start in that folder runs Gemini's cleanup: by hand, and with the seat's own home.
    expect((await runAgent(GEMINI_BIN, bare.env, work, ['-p', 'gamma'], 90_000)).stdout).toContain('ACK gamma');
    expect((await runAgent(GEMINI_BIN, j.envOf('gemini'), work, ['-p', 'gamma seat home'], 90_000)).stdout).toContain(
      'ACK gamma seat home',
    );
    expect(bare.sessionFiles(Z), "Gemini's default cleanup deleted every file of Z").toEqual([]);
    const lost = await runAgent(GEMINI_BIN, bare.env, work, ['--resume', Z, '-p', 'after'], 90_000);
    expect(lost.code).toBe(42);
    expect(lost.stdout + lost.stderr).toMatch(gemini.missingConversation);
    // The seat's conversation survived: its transcript is there, and the seat resumes it once more.
    const last = (await j.row(SEAT)).pid!;
    expect((await j.cli(['stop', SEAT, '--json'])).code).toBe(0);
    await waitForExit(last, 15_000);
    const again = await j.cli(['launch', SEAT, '--json']);
    expect(again.json.launched, again.stdout).toMatchObject({ mode: 'resume', conversationId: X });
    await settled(SEAT);
    await send(SEAT, 'still here');
    const file = await reply(SEAT, X, 'ACK still here');
    expect(readFileSync(file, 'utf8')).toContain('ACK hello gemini');
    bare.cleanup();
  }, 400_000);

  it('a seat whose settings would keep cleanup on and that Rigdesk may not change is refused (RUNTIME_CONFIG_UNSAFE), and doctor says so', async () => {
    // The folder's own workspace settings turn cleanup on (they outrank the seat's user settings).
    const strict = j.dir('strict');
    mkdirSync(join(strict, '.gemini'), { recursive: true });
    writeFileSync(
      join(strict, '.gemini', 'settings.json'),
      JSON.stringify({ general: { sessionRetention: { enabled: true } } }),
    );
    // A seat without its own GEMINI_CLI_HOME: its settings are a person's, which Rigdesk never writes.
    const shared = makeGeminiFixture({ serverUrl: server.url, closedPort: 9, root: join(j.w.root, 'person') });
    const personEnv = Object.fromEntries(Object.entries(shared.env).filter(([k]) => k !== 'GEMINI_CLI_HOME'));
    const personSettings = readFileSync(shared.settingsPath, 'utf8');
    const env = (e: Record<string, string>) =>
      Object.entries(e)
        .map(([k, v]) => `          ${k}: ${JSON.stringify(v)}`)
        .join('\n');
    const spec = j.w.spec(
      'bad.yaml',
      `${[
        'name: bad',
        'pods:',
        '  - id: team',
        '    members:',
        '      - id: ws',
        '        runtime: gemini',
        '        cwd: "./strict"',
        '        env:',
        env(j.envOf('gemini')),
        '      - id: person',
        '        runtime: gemini',
        '        cwd: "./work"',
        '        env:',
        env(personEnv),
      ].join('\n')}\n`,
    );
    const up = await j.cli(['up', spec, '--json']);
    expect(up.code).toBe(1);
    const seats = Object.fromEntries(up.json.evidence.seats.map((s: { seat: string }) => [s.seat, s]));
    expect(seats['ws@bad']).toMatchObject({ outcome: 'refused', code: 'RUNTIME_CONFIG_UNSAFE' });
    expect(seats['ws@bad'].message).toContain(join(strict, '.gemini', 'settings.json'));
    expect(seats['person@bad']).toMatchObject({ outcome: 'refused', code: 'RUNTIME_CONFIG_UNSAFE' });
    expect(readFileSync(shared.settingsPath, 'utf8'), "a person's settings are never written").toBe(personSettings);
    expect(j.w.sessions().filter((s) => s.seat.endsWith('@bad'))).toEqual([]);
    const doc = await j.cli(['doctor', '--json']);
    const checks = (doc.json.checks ?? doc.json.evidence?.checks) as { check: string; ok: boolean; detail: string }[];
    expect(checks.find((c) => c.check === 'gemini session retention (ws@bad)')).toMatchObject({ ok: false });
    expect(checks.find((c) => c.check === 'gemini session retention (person@bad)')).toMatchObject({ ok: false });
    expect(checks.find((c) => c.check === `gemini session retention (${SEAT})`)).toMatchObject({ ok: true });
    shared.cleanup();
  });
});

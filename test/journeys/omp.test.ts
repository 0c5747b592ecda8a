/**
 * Journey: an omp (oh-my-pi) seat, the real CLI on bun against the fake model server, driven
 * through the `rigdesk` CLI only.
 *
 * omp has no `--session-id`: Rigdesk binds a fresh seat the way it binds Pi's, by writing the
 * session file omp would write (title slot and a header naming an id it chose) and starting
 * `omp --resume <id>`, so the id is on the command line from the start. omp's first-run setup is
 * settled in the seat's own agent dir. Then: working, idle and a permission prompt read from its
 * screen (its tools run in its own process) and answered from Rigdesk; a second writer, which omp
 * itself accepts, refused by Rigdesk (a person's `omp --resume X` in their own tmux server; a
 * headless `omp -p --resume X`; a plain `omp` in the seat's folder, whose conversation nothing
 * names); a restore after the tmux server dies; and a session omp cannot open rolled back to a
 * decision.
 *
 * omp probes 127.0.0.1 ports 11434, 8080 and 1234 on every start: skipped (failed under CI) when
 * something listens there.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OMP_BIN, ompPortsProblem } from '../agents/omp-fixture';
import { agentProcessEnv, pidsWithEnv, rawCmdline, startInTmux } from '../agents/agent-run';
import type { FakeModelServer } from '../agents/fake-model-server';
import { killTmuxServer } from '../agents/claude-run';
import { waitFor } from '../support/tmux';
import { omp } from '../../src/main/engine/runtimes';
import { OMP_SCREEN, readOmpScreen } from '../../src/main/engine/runtimes/screens/omp';
import { ompHeaderId } from '../../src/main/engine/runtimes/omp-sessions';
import { ps } from '../../src/main/engine/services/ps';
import {
  altered,
  expectActivity,
  expectOnlyLoopback,
  expectWithin,
  JourneyWorld,
  processAlive,
  requireCli,
  sensitive,
  startServer,
  transcriptOf,
  waitForExit,
  waitForReplyInTranscript,
  type Want,
} from './support';
import type { PsRow } from '../../src/shared/contract';

const SEAT = 'om@omp';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const busyPorts = ompPortsProblem();

describe.skipIf(!!busyPorts)('journey: an omp seat driven through rigdesk', () => {
  const installed = requireCli('omp');
  let server: FakeModelServer;
  let w: JourneyWorld;
  let X = '';
  let home = '';
  let work = '';
  let file = '';

  const detect = async (): Promise<PsRow | undefined> => {
    const r = await ps(w.w.engine());
    if (!r.ok) throw new Error(r.message);
    return r.seats.find((x) => x.seat === SEAT);
  };
  const detected = (want: Want) => async () => expectActivity(await detect(), want, SEAT);
  /** Every live omp process with the seat's agent dir, but `except`. */
  const ompsOfHome = (except: number[] = []) =>
    pidsWithEnv('PI_CODING_AGENT_DIR', home).filter((p) => {
      try {
        return !except.includes(p) && rawCmdline(p).split('\0')[1] === OMP_BIN;
      } catch {
        return false;
      }
    });
  const describePids = (pids: number[]) =>
    pids
      .map((p) => {
        try {
          return `${p} (${readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]?.split(' ').slice(0, 2).join(' ')}): ${rawCmdline(p).replace(/\0/g, ' ')}`;
        } catch {
          return `${p} gone`;
        }
      })
      .join('; ');

  beforeAll(async () => {
    const s = await startServer({ slowChunks: 6, slowMs: 500, retryAfter: 1 });
    server = s.server;
    w = new JourneyWorld(server, s.closed, ['omp']);
    home = w.homeOf('omp');
    work = w.dir();
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

  it('up writes the session file and launches `omp --resume X` on an id Rigdesk chose, its setup settled in its own agent dir; ps shows it idle on X', async () => {
    const up = await w.up('omp', [{ id: 'om', runtime: 'omp' }]);
    const launched = up.json.seats[0].launched;
    expect(launched).toMatchObject({ mode: 'fresh', runtime: 'omp' });
    expect(launched.conversationId).toMatch(UUID);
    X = launched.conversationId;
    file = transcriptOf(omp, home, work, X)!;
    expect(file, 'the session file Rigdesk wrote before launch').toBeDefined();
    expect(ompHeaderId(readFileSync(file, 'utf8'))).toBe(X);
    const cfg = readFileSync(join(home, 'config.yml'), 'utf8');
    expect(cfg).toMatch(/^setupVersion: 2$/m);
    expect(cfg, "the seat's own settings kept").toContain('approval: { bash: prompt }');
    const { row } = await w.seen(SEAT, { activity: 'idle', named: true });
    expect(row).toMatchObject({ runtime: 'omp', state: 'running', session: 'present', conversationId: X });
    expect(readFileSync(`/proc/${row.pid}/cmdline`, 'utf8').split('\0')).toEqual(
      expect.arrayContaining([OMP_BIN, '--resume', X]),
    );
    expect(w.screen(SEAT)).not.toContain('Setup step');
    const doctor = await w.cli(['doctor', '--json']);
    const checks = Object.fromEntries(doctor.json.checks.map((c: { check: string }) => [c.check, c]));
    expect(checks[`omp setup (${SEAT})`], doctor.stdout).toMatchObject({
      ok: true,
      detail: expect.stringContaining('setupVersion 2'),
    });
    expect(checks['omp CLI']).toMatchObject({ ok: true });
  }, 120_000);

  it('send: delivered, and the reply lands in the file Rigdesk named', async () => {
    const sent = await w.cli(['send', SEAT, 'hello omp', '--verify', '--json']);
    expect(sent.json, sent.stdout + sent.stderr + w.screen(SEAT)).toMatchObject({
      ok: true,
      sent: { status: 'delivered', verified: true },
    });
    expect(await waitForReplyInTranscript(omp, home, work, X, 'ACK hello omp')).toBe(file);
  });

  it("tokens: a reply's figures, as the fake server reported them, add to ps's totals; its share of the window models.yml declares is the context", async () => {
    const row = () => w.row(SEAT);
    const before = await row();
    // The first reply's figures were the server's estimate: only what this one adds is compared.
    expect(before.tokensIn).toBeGreaterThan(0);
    const sent = await w.cli(['send', SEAT, 'USAGE:70001:555:2000:0 count these', '--verify', '--json']);
    expect(sent.json, sent.stdout + sent.stderr).toMatchObject({ ok: true });
    await waitForReplyInTranscript(omp, home, work, X, 'ACK USAGE:70001:555:2000:0 count these');
    const after = await waitFor(
      async () => {
        const r = await row();
        return r.tokensOut !== before.tokensOut ? r : undefined;
      },
      { what: 'ps to count the reply' },
    );
    // In omp's records: input without the cached part, cacheRead beside it; together the 70001.
    expect(after.tokensIn! - before.tokensIn!).toBe(70001);
    expect(after.tokensOut! - before.tokensOut!).toBe(555);
    // (70001 + 555) of the 128000 the fixture's models.yml declares for fake-model.
    expect(after.contextPct).toBe(55.1);
  });

  it('working (spinner and turn timer) while a reply is held, then idle, each reported within 2 s of the screen', async () => {
    server.hold();
    expect((await w.cli(['send', SEAT, 'slow one HOLD', '--json'])).json.ok).toBe(true);
    const spun = await w.screenShows(SEAT, /^ [\u2801-\u28ff] \d+s > /m, 'the spinner and timer');
    const working = await w.seen(SEAT, { activity: 'working' }, spun);
    expectWithin(working, 2000, 'working');
    await sensitive(
      detected({ activity: 'working' }),
      (c) => altered(OMP_SCREEN, { spinner: /^[|/\\-]$/ }, c),
      'the spinner glyphs',
    );
    server.release();
    const done = await w.screenShows(SEAT, /ACK slow one HOLD tick2 tick3 tick4 tick5 tick6/, 'the whole reply');
    await waitFor(() => readOmpScreen({ plain: w.screen(SEAT).split('\n'), styled: [] }).activity === 'idle', {
      what: 'the status line back to π',
    });
    const idle = await w.seen(SEAT, { activity: 'idle' }, done);
    expectWithin(idle, 2000, 'idle');
    await sensitive(
      detected({ activity: 'idle' }),
      (c) => altered(OMP_SCREEN, { editor: /^└─(?: (.*))?$/ }, c),
      'the editor corner',
    );
    console.info(`omp: working reported ${working.ms} ms, idle ${idle.ms} ms after the screen changed`);
  });

  it("a permission prompt (omp's `Allow tool:` box): a plain send is held; rigdesk prompts shows it and rigdesk answer approves it", async () => {
    const out = join(work, 'from-omp.txt');
    expect((await w.cli(['send', SEAT, 'RUN: echo ok > from-omp.txt && cat from-omp.txt', '--json'])).json.ok).toBe(
      true,
    );
    const asked = await w.screenShows(SEAT, /^╭─ Allow tool: bash/m, 'the approval box');
    const seen = await w.seen(SEAT, { activity: 'needs_input', needsInput: 'permission' }, asked);
    expectWithin(seen, 2000, 'needs_input (permission)');
    await sensitive(
      detected({ activity: 'needs_input', needsInput: 'permission' }),
      (c) => altered(OMP_SCREEN, { permission: /^╭─ Approve tool: (\S+)/ }, c),
      'the box header',
    );
    const answered = await w.approveFromRigdesk(
      SEAT,
      'Command: echo ok > from-omp.txt && cat from-omp.txt',
      () => existsSync(out) && readFileSync(out, 'utf8').trim() === 'ok',
    );
    expect(answered.keys).toEqual(['Enter']);
    await waitForReplyInTranscript(omp, home, work, X, 'ACK tool result: ok');
  });

  it("a person's `omp --resume X` in their own tmux server while the seat is stopped: rigdesk launch refuses naming that pane, and starts no omp", async () => {
    const seatPid = (await w.row(SEAT)).pid!;
    expect((await w.cli(['stop', SEAT, '--json'])).code).toBe(0);
    await waitForExit(seatPid, 10_000);
    const hand = w.otherTmux('rdj-omp');
    const pane = startInTmux(hand, w.envOf('omp'), 'mine', work, [OMP_BIN, '--resume', X]);
    await waitFor(
      () => readOmpScreen({ plain: hand.capture(pane.paneId).split('\n'), styled: [] }).activity === 'idle',
      {
        timeoutMs: 45_000,
        what: "the person's omp at its editor",
      },
    );
    const refused = await w.cli(['launch', SEAT, '--json']);
    expect(refused.code, refused.stdout).toBe(1);
    expect(refused.json.code).toBe('CONVERSATION_LIVE_ELSEWHERE');
    expect(refused.json.evidence.owners[0]).toMatchObject({
      pid: pane.panePid,
      paneId: pane.paneId,
      conversationId: X,
      source: 'argv',
      headless: false,
    });
    expect(refused.json.evidence.owners[0].server).toContain(hand.socketName);
    expect(refused.json.hint).toContain(hand.socketName);
    expect(w.w.sessions().filter((s) => s.seat === SEAT)).toEqual([]);
    expect(
      ompsOfHome([pane.panePid]),
      `no omp started beside the person: ${describePids(ompsOfHome([pane.panePid]))}`,
    ).toEqual([]);
    killTmuxServer(hand);
    await waitForExit(pane.panePid, 10_000);

    // A plain `omp` (its conversation named nowhere) in the seat's folder and agent dir: doubt.
    const plain = w.otherTmux('rdj-omp');
    const p2 = startInTmux(plain, w.envOf('omp'), 'plain', work, [OMP_BIN]);
    await waitFor(() => processAlive(p2.panePid) && readFileSync(`/proc/${p2.panePid}/comm`, 'utf8').trim() === 'omp', {
      what: 'the plain omp loaded',
    });
    const doubted = await w.cli(['launch', SEAT, '--json']);
    expect(doubted.json, doubted.stdout).toMatchObject({ ok: false, code: 'CONVERSATION_OWNER_UNKNOWN' });
    expect(doubted.json.evidence.candidates.map((c: { pid: number }) => c.pid)).toEqual([p2.panePid]);
    expect(w.w.sessions().filter((s) => s.seat === SEAT)).toEqual([]);
    killTmuxServer(plain);
    await waitForExit(p2.panePid, 10_000);

    const back = await w.cli(['launch', SEAT, '--json']);
    expect(back.json, back.stdout).toMatchObject({ ok: true, launched: { mode: 'resume', conversationId: X } });
    await w.seen(SEAT, { activity: 'idle', named: true });
  }, 120_000);

  it('a headless `omp -p --resume X` while the seat runs: send, restart on X and fork are refused, and once the seat is stopped so is launch, starting no omp', async () => {
    const seatPid = (await w.seen(SEAT, { activity: 'idle', named: true })).row.pid!;
    server.hold();
    const held = server.held();
    const headless = spawn(OMP_BIN, ['-p', '--resume', X, 'headless HOLD'], {
      cwd: work,
      env: agentProcessEnv(w.envOf('omp')),
      stdio: 'ignore',
    });
    w.own(headless.pid!);
    const exited = new Promise<number | null>((r) => headless.once('exit', (code) => r(code)));
    // Its request held at the fake server: it is writing X now.
    await waitFor(() => server.held() > held, { timeoutMs: 30_000, what: 'the headless omp mid-turn' });
    const owner = { pid: headless.pid, conversationId: X, headless: true, runtime: 'omp', source: 'argv' };

    const sent = await w.cli(['send', SEAT, 'typed while another writes', '--json']);
    expect(sent.json, sent.stdout).toMatchObject({ ok: false, code: 'CONVERSATION_LIVE_ELSEWHERE' });
    expect(sent.json.evidence.owners[0]).toMatchObject(owner);
    const restart = await w.cli(['restart', SEAT, '--keep-conversation', '--json']);
    expect(restart.json, restart.stdout).toMatchObject({ ok: false, code: 'CONVERSATION_LIVE_ELSEWHERE' });
    expect(restart.json.evidence.owners[0]).toMatchObject(owner);
    expect((await w.row(SEAT)).pid, 'the seat was not touched').toBe(seatPid);
    const fork = await w.cli(['fork', SEAT, '--as', 'twin', '--json']);
    expect(fork.json, fork.stdout).toMatchObject({ ok: false });
    expect((await w.rows()).map((r) => r.seat)).toEqual([SEAT]);

    expect((await w.cli(['stop', SEAT, '--json'])).code).toBe(0);
    await waitForExit(seatPid, 10_000);
    const launch = await w.cli(['launch', SEAT, '--json']);
    expect(launch.json, launch.stdout).toMatchObject({ ok: false, code: 'CONVERSATION_LIVE_ELSEWHERE' });
    expect(launch.json.evidence.owners[0]).toMatchObject(owner);
    expect(w.w.sessions().filter((s) => s.seat === SEAT)).toEqual([]);
    expect(ompsOfHome([headless.pid!]), 'no omp started beside the headless one').toEqual([]);

    server.release();
    expect(await exited, 'omp itself accepted the headless second writer').toBe(0);
    await waitForReplyInTranscript(omp, home, work, X, 'ACK headless HOLD');
    const back = await w.cli(['launch', SEAT, '--json']);
    expect(back.json, back.stdout).toMatchObject({ ok: true, launched: { mode: 'resume', conversationId: X } });
    await w.seen(SEAT, { activity: 'idle', named: true });
  }, 120_000);

  it('restart --keep-conversation replaces omp in its pane on X; fresh starts it on a new id Rigdesk chose, X left on disk', async () => {
    const before = (await w.seen(SEAT, { activity: 'idle', named: true })).row;
    const r = await w.cli(['restart', SEAT, '--keep-conversation', '--json']);
    expect(r.json, r.stdout + r.stderr).toMatchObject({ ok: true, result: { outcome: 'resumed', conversationId: X } });
    const after = (await w.seen(SEAT, { activity: 'idle', named: true })).row;
    expect(after).toMatchObject({ conversationId: X, paneId: before.paneId });
    expect(after.pid).not.toBe(before.pid);
    expect(readFileSync(`/proc/${after.pid}/cmdline`, 'utf8').split('\0')).toEqual(
      expect.arrayContaining(['--resume', X]),
    );

    const fresh = await w.cli(['fresh', SEAT, '--reason', 'journey: start over', '--json']);
    expect(fresh.json, fresh.stdout + fresh.stderr).toMatchObject({ ok: true });
    const { row } = await w.seen(SEAT, { activity: 'idle', named: true });
    expect(row.conversationId).toMatch(UUID);
    expect(row.conversationId).not.toBe(X);
    expect(existsSync(file), "X's file stays").toBe(true);
    X = row.conversationId!;
    file = transcriptOf(omp, home, work, X)!;
    expect(ompHeaderId(readFileSync(file, 'utf8'))).toBe(X);
    expect((await w.cli(['send', SEAT, 'fresh start', '--verify', '--json'])).json.ok).toBe(true);
    expect(await waitForReplyInTranscript(omp, home, work, X, 'ACK fresh start')).toBe(file);
  }, 120_000);

  it('restore after the tmux server is killed: the seat comes back on X, proven by its argv, and its next reply lands in the same file', async () => {
    const before = (await w.seen(SEAT, { activity: 'idle' })).row.pid!;
    w.w.tmux.kill();
    await waitForExit(before, 15_000);
    const r = await w.cli(['restore', 'omp', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json.seats[0]).toMatchObject({ seat: SEAT, plan: 'resume', outcome: 'resumed', conversationId: X });
    const { row } = await w.seen(SEAT, { activity: 'idle', named: true });
    expect(readFileSync(`/proc/${row.pid}/cmdline`, 'utf8').split('\0')).toEqual(
      expect.arrayContaining(['--resume', X]),
    );
    expect((await w.cli(['send', SEAT, 'after reboot', '--verify', '--json'])).json.ok).toBe(true);
    expect(await waitForReplyInTranscript(omp, home, work, X, 'ACK after reboot')).toBe(file);
  }, 120_000);

  it('a session omp cannot open (its file lost its header): restore launches, omp says it is missing, and the pane is rolled back to a decision', async () => {
    const before = (await w.seen(SEAT, { activity: 'idle' })).row.pid!;
    w.w.tmux.kill();
    await waitForExit(before, 15_000);
    writeFileSync(file, '{"type":"message","id":"lost","parentId":null}\n');
    const r = await w.cli(['restore', 'omp', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json.seats[0]).toMatchObject({
      seat: SEAT,
      plan: 'resume',
      outcome: 'awaiting_decision',
      conversationId: X,
    });
    expect(r.json.seats[0].evidence.screen).toMatch(omp.missingConversation);
    expect(w.w.sessions(), 'the pane was removed').toEqual([]);
    const ds = (await w.cli(['decisions', '--rig', 'omp', '--json'])).json.decisions;
    expect(ds[0]).toMatchObject({ seat: SEAT, reason: 'conversation_missing_reported', conversationId: X });
    const kinds = (await w.cli(['events', '--seat', SEAT, '--json'])).json.events.map((e: { kind: string }) => e.kind);
    expect(kinds).toContain('restore.rolled_back');
    expect(ompsOfHome(), 'no omp left running').toEqual([]);
  }, 120_000);
});

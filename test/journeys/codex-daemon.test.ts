/**
 * Journey: Codex seats in a home whose background daemon is on (Codex 0.171's default), with the
 * real Codex CLI against the fake model server.
 *
 * With the daemon, the daemon and not the TUI in the pane runs the turns and holds the thread's
 * writer lock: a turn goes on after its pane is gone, the lock outlives the TUI, and a second
 * `codex resume` attaches to the same live thread. Rigdesk's seats therefore run `--no-daemon`, so
 * the seat's TUI is its thread's one writer and a stop ends it; a person's own Codex in the same
 * home keeps its daemon; and a thread the daemon holds is refused in the daemon's name.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODEX_BIN } from '../agents/codex-fixture';
import { locksOnFile, pidsWithEnv, processTree, rawCmdline, startInTmux } from '../agents/agent-run';
import type { FakeModelServer } from '../agents/fake-model-server';
import { waitFor } from '../support/tmux';
import { codex } from '../../src/main/engine/runtimes';
import { CODEX_SCREEN } from '../../src/main/engine/runtimes/screens/codex';
import {
  expectOnlyLoopback,
  JourneyWorld,
  requireCli,
  startServer,
  transcriptOf,
  typeInto,
  waitForReplyInTranscript,
} from './support';

const SEAT = 'cx@dm';

describe('journey: Codex seats in a home whose background daemon is on', () => {
  const installed = requireCli('codex');
  let server: FakeModelServer;
  let j: JourneyWorld;
  let home: string;
  let work: string;
  let conv: string;

  /** Processes of this home (by CODEX_HOME in their environment), and which of them are the daemon. */
  const homeProcs = () => pidsWithEnv('CODEX_HOME', home);
  const daemons = () => homeProcs().filter((p) => rawCmdline(p).split('\0').includes('--managed-daemon'));
  const lockFile = (id: string) => `${home}/thread-writer-locks/${id}.lock`;
  /** Who holds a thread's writer lock now (none once the lock file is gone). */
  const writers = (id: string): number[] => {
    try {
      return locksOnFile(lockFile(id))
        .filter((l) => l.mode === 'WRITE')
        .map((l) => l.pid);
    } catch {
      return [];
    }
  };
  const lockHolder = (id: string): number | undefined => writers(id)[0];
  /** The threads of this home whose writer lock `pid` holds. */
  const threadsHeldBy = (pid: number): string[] =>
    readdirSync(`${home}/thread-writer-locks`)
      .filter((f) => f.endsWith('.lock') && !f.startsWith('.'))
      .map((f) => f.slice(0, -'.lock'.length))
      .filter((id) => writers(id).includes(pid));
  const rollout = (): string => {
    const file = transcriptOf(codex, home, work, conv);
    return file ? readFileSync(file, 'utf8') : '';
  };

  beforeAll(async () => {
    const s = await startServer({ slowChunks: 4, slowMs: 500 });
    server = s.server;
    j = new JourneyWorld(s.server, s.closed, ['codex']);
    j.fx.codex!.enableDaemon();
    home = j.homeOf('codex');
    work = j.dir();
  });
  afterAll(async () => {
    await j?.fx.codex?.endDaemon();
    await j?.cleanup();
    await server?.close();
    if (server && installed()) expectOnlyLoopback(server);
  });

  it('a seat runs without the daemon: after a turn no daemon of its home runs, and its own TUI holds the writer lock', async () => {
    await j.up('dm', [{ id: 'cx', runtime: 'codex' }]);
    const { row } = await j.seen(SEAT, { activity: 'idle', named: true });
    conv = row.conversationId!;
    const sent = await j.cli(['send', SEAT, 'hello daemon', '--verify', '--json']);
    expect(sent.json, sent.stdout + sent.stderr).toMatchObject({ ok: true, sent: { verified: true } });
    await waitForReplyInTranscript(codex, home, work, conv, 'ACK hello daemon');
    expect(rawCmdline(row.pid!).split('\0')).toContain('--no-daemon');
    expect(daemons()).toEqual([]);
    expect(processTree(row.pid!)).toContain(lockHolder(conv));
  });

  it("stop after a turn: within 5 s no process of the seat's home runs and the lock is free; launch resumes the same conversation", async () => {
    const stop = await j.cli(['stop', SEAT, '--json']);
    expect(stop.json, stop.stdout + stop.stderr).toMatchObject({ ok: true });
    const t0 = Date.now();
    await waitFor(() => homeProcs().length === 0 && lockHolder(conv) === undefined, {
      timeoutMs: 5_000,
      intervalMs: 50,
      what: 'no process of the home, and the lock free',
    });
    console.log(`codex-daemon: home empty and lock free ${Date.now() - t0} ms after rigdesk stop returned`);
    const launch = await j.cli(['launch', SEAT, '--json']);
    expect(launch.json, launch.stdout + launch.stderr).toMatchObject({ ok: true });
    const { row } = await j.seen(SEAT, { activity: 'idle', named: true });
    expect(row.conversationId).toBe(conv);
    expect((await j.cli(['send', SEAT, 'after the stop', '--verify', '--json'])).json).toMatchObject({ ok: true });
    await waitForReplyInTranscript(codex, home, work, conv, 'ACK after the stop');
    expect(rollout()).toContain('ACK hello daemon');
  });

  it('restart --keep-conversation, fork and fresh keep their guarantees with the daemon on: one writer each, and no daemon', async () => {
    const paneTree = (paneId: string) =>
      processTree(Number(j.w.tmux.run(['display-message', '-p', '-t', paneId, '#{pane_pid}']).trim()));
    const src = await j.row(SEAT);
    const r = await j.cli(['restart', SEAT, '--keep-conversation', '--json']);
    expect(r.json, r.stdout + r.stderr).toMatchObject({
      ok: true,
      result: { outcome: 'resumed', conversationId: conv, paneId: src.paneId },
    });
    const back = (await j.seen(SEAT, { activity: 'idle', named: true })).row;
    expect(back.conversationId).toBe(conv);
    await waitFor(() => paneTree(back.paneId!).includes(lockHolder(conv) ?? -1), {
      timeoutMs: 30_000,
      what: "the thread's lock in the restarted pane",
    });
    expect(writers(conv)).toHaveLength(1);
    // fork: a new seat on a new thread, its lock in its own pane; the source's stays where it was.
    const f = await j.cli(['fork', SEAT, '--as', 'cy', '--json']);
    expect(f.json, f.stdout + f.stderr).toMatchObject({
      ok: true,
      result: { seat: 'cy@dm', outcome: 'forked', from: conv },
    });
    const forked = f.json.result.conversationId as string;
    const cy = (await j.seen('cy@dm', { activity: 'idle', named: true })).row;
    expect(cy.conversationId).toBe(forked);
    expect(paneTree(cy.paneId!)).toContain(lockHolder(forked));
    expect(paneTree(back.paneId!)).toContain(lockHolder(conv));
    // fresh: the fork's seat starts over on a new thread of its own.
    const fresh = await j.cli(['fresh', 'cy@dm', '--reason', 'journey: start over', '--json']);
    expect(fresh.json, fresh.stdout + fresh.stderr).toMatchObject({ ok: true });
    await waitFor(
      async () => {
        const row = await j.row('cy@dm');
        return (
          row.conversationId !== undefined &&
          row.conversationId !== forked &&
          paneTree(row.paneId!).includes(lockHolder(row.conversationId) ?? -1)
        );
      },
      { timeoutMs: 45_000, what: 'cy on a new thread, its lock in its pane' },
    );
    expect(daemons()).toEqual([]);
    expect((await j.cli(['stop', 'cy@dm', '--json'])).json).toMatchObject({ ok: true });
  });

  it("a person's own Codex on another thread in the same home keeps its daemon through a stop of the seat, and its turn completes", async () => {
    const hand = j.otherTmux();
    const pane = startInTmux(hand, j.envOf('codex'), 'mine', work, [CODEX_BIN]);
    await waitFor(
      () =>
        hand
          .capture(pane.paneId)
          .split('\n')
          .some((l) => CODEX_SCREEN.placeholder.test(l)),
      { timeoutMs: 60_000, what: "the person's Codex at its composer" },
    );
    server.hold();
    await typeInto(hand, pane.paneId, 'mine HOLD', codex, codex.submitDelayMs);
    await waitFor(() => server.held() >= 1, { timeoutMs: 30_000, what: "the person's reply in flight" });
    // The daemon that runs the person's turn (it holds their thread's lock).
    const daemon = daemons().find((d) => threadsHeldBy(d).length > 0);
    expect(daemon, `daemons ${JSON.stringify(daemons().map((d) => rawCmdline(d).replace(/\0/g, ' ')))}`).toBeDefined();
    const stop = await j.cli(['stop', SEAT, '--json']);
    expect(stop.json, stop.stdout + stop.stderr).toMatchObject({ ok: true });
    expect(daemons()).toContain(daemon);
    // The stop says what it left running in the seat's home, and why.
    const theirs = threadsHeldBy(daemon!);
    expect(theirs.length).toBeGreaterThan(0);
    expect(theirs).not.toContain(conv);
    expect(stop.json.stopped.leftRunning).toEqual([
      expect.objectContaining({
        what: 'daemon',
        runtime: 'codex',
        pid: daemon,
        home,
        conversations: expect.arrayContaining(theirs),
        why: expect.stringContaining('leaves it running'),
      }),
    ]);
    server.release();
    await waitFor(() => hand.capture(pane.paneId).includes('ACK mine HOLD tick2 tick3 tick4'), {
      timeoutMs: 30_000,
      what: "the person's turn complete",
    });
    expect(daemons()).toContain(daemon);
    expect(threadsHeldBy(daemon!)).toEqual(theirs);
    // ps --all shows it as what it is.
    const ps = await j.cli(['ps', '--all', '--json']);
    expect(ps.json.others).toEqual(
      expect.arrayContaining([expect.objectContaining({ runtime: 'codex', pid: daemon, service: 'daemon', home })]),
    );
  });

  it('stop during a slow turn: the turn ends with the seat, and its conversation gets nothing more from it', async () => {
    expect((await j.cli(['launch', SEAT, '--json'])).json).toMatchObject({ ok: true });
    await j.seen(SEAT, { activity: 'idle', named: true });
    server.hold();
    const held = server.held();
    expect((await j.cli(['send', SEAT, 'long HOLD', '--verify', '--json'])).json).toMatchObject({ ok: true });
    await waitFor(() => server.held() > held, { timeoutMs: 30_000, what: "the seat's reply in flight" });
    expect(rollout()).toContain('long HOLD');
    const stopped = await j.cli(['stop', SEAT, '--json']);
    expect(stopped.json, stopped.stdout + stopped.stderr).toMatchObject({ ok: true });
    await waitFor(() => lockHolder(conv) === undefined, {
      timeoutMs: 5_000,
      intervalMs: 50,
      what: "the seat's lock free",
    });
    server.release();
    await new Promise((r) => setTimeout(r, 3000));
    expect(rollout()).not.toContain('ACK long HOLD');
  });

  it('a launch refused because the daemon holds the thread names the daemon and its home, not a pane', async () => {
    // A person resumes the seat's conversation through their daemon (it attaches; the daemon
    // writes), then closes their pane: the daemon goes on holding the thread, in no pane.
    const hand = j.otherTmux('rdj-hand2');
    const pane = startInTmux(hand, j.envOf('codex'), 'theirs', work, [CODEX_BIN, 'resume', conv]);
    await waitFor(() => daemons().includes(lockHolder(conv) ?? -1), {
      timeoutMs: 60_000,
      what: "the daemon holding the seat's thread",
    });
    const daemon = lockHolder(conv)!;
    const tui = processTree(pane.panePid);
    hand.run(['kill-session', '-t', 'theirs']);
    await waitFor(() => tui.every((p) => !homeProcs().includes(p)), {
      timeoutMs: 10_000,
      what: "the person's TUI gone",
    });
    expect(lockHolder(conv)).toBe(daemon);
    const refused = await j.cli(['launch', SEAT, '--json']);
    expect(refused.code, refused.stdout).toBe(1);
    expect(refused.json, refused.stdout).toMatchObject({ ok: false, code: 'CONVERSATION_LIVE_ELSEWHERE' });
    expect(refused.json.message).toContain(`the Codex daemon of ${home} (pid ${daemon})`);
    expect(refused.json.message).not.toContain('tmux pane');
    expect(refused.json.hint).toContain(`close the Codex that has it open (a codex resume in CODEX_HOME=${home})`);
    expect(refused.json.evidence.owners).toEqual([
      expect.objectContaining({ pid: daemon, service: 'daemon', home, source: 'writer_lock' }),
    ]);
    expect(refused.json.evidence.owners[0].paneId).toBeUndefined();
  });
});

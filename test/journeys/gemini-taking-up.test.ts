/**
 * Journey: a stop never leaves a Gemini conversation unresumable.
 *
 * A resumed Gemini first records a new, empty session under the conversation's id; when the
 * conversation began in the same minute that record lands in the conversation's own file, and
 * until the resume is taken up (a fraction of a second on an idle machine) the file reads as a
 * session with nothing in it. A Gemini ended then leaves it so: every later resume answers "No
 * previous sessions found". The real Gemini is held in that moment with SIGSTOP (a forced fault),
 * and `rigdesk stop` must wait for it rather than end it.
 */
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GEMINI_BIN } from '../agents/gemini-fixture';
import { processTree, procStat, runAgent } from '../agents/agent-run';
import type { FakeModelServer } from '../agents/fake-model-server';
import { waitFor } from '../support/tmux';
import { gemini } from '../../src/main/engine/runtimes';
import { geminiTakingUp } from '../../src/main/engine/runtimes/gemini-resume';
import {
  expectOnlyLoopback,
  JourneyWorld,
  processAlive,
  requireCli,
  startServer,
  transcriptOf,
  waitForReplyInTranscript,
} from './support';

const SEAT = 'gm@gem';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const minute = (): number => Math.floor(Date.now() / 60_000);
/** Signals each pid that still runs. */
const signal = (pids: number[], sig: NodeJS.Signals) => {
  for (const p of pids) {
    try {
      process.kill(p, sig);
    } catch {
      /* gone */
    }
  }
};

describe('journey: a stop while Gemini takes up its conversation', () => {
  const installed = requireCli('gemini');
  let server: FakeModelServer;
  let j: JourneyWorld;
  /** What this test stopped: continued whatever happens, so the world's cleanup can end it. */
  let held: number[] = [];

  beforeAll(async () => {
    const s = await startServer({});
    server = s.server;
    j = new JourneyWorld(server, s.closed, ['gemini'], ['work']);
  });
  afterEach(async () => {
    signal(held, 'SIGCONT');
    await j?.endTestOthers();
  });
  afterAll(async () => {
    await j?.cleanup();
    await server?.close();
    if (server && installed()) expectOnlyLoopback(server);
  });

  /**
   * Watches X's transcript and stops (SIGSTOP) the resuming Gemini's processes in the pane the
   * moment the resume's empty record is there
   * and not yet taken up; resolves with the processes it stopped.
   */
  function holdWhileTakingUp(X: string): Promise<number[]> {
    return waitFor(
      () => {
        const path = transcriptOf(gemini, j.homeOf('gemini'), j.dir(), X);
        if (!path || !geminiTakingUp(readFileSync(path, 'utf8'))) return undefined;
        // The pane's program's descendants (Gemini's launcher and the child that writes), never the
        // pane's own process: tmux continues a pane whose own process stops.
        const pane = Number(j.w.tmux.tryRun(['display-message', '-p', '-t', SEAT, '#{pane_pid}']).out.trim());
        held = pane > 0 ? processTree(pane).slice(1) : [];
        if (held.length === 0) return undefined;
        signal(held, 'SIGSTOP');
        // A short-lived child of Gemini's can end between the listing and the signal (seen under a
        // busy core): only what is still there after the signal is held.
        held = held.filter((p) => (procStat(p)?.state ?? 'Z') !== 'Z');
        if (held.length === 0) return undefined;
        // Stopped inside the moment, or it passed while we stopped it: look again.
        if (geminiTakingUp(readFileSync(path, 'utf8'))) return held;
        signal(held, 'SIGCONT');
        return undefined;
      },
      { timeoutMs: 60_000, intervalMs: 10, what: "the resumed Gemini taking up X in X's own file" },
    );
  }

  /**
   * A conversation that began in this minute, with a reply in it: the resume must come in the
   * minute the conversation began, so this starts with a minute. `first` brings the rig up.
   */
  async function conversationOfThisMinute(first: boolean): Promise<{ X: string; began: number }> {
    await waitFor(() => new Date().getSeconds() < 4, { timeoutMs: 65_000, intervalMs: 250, what: 'a new minute' });
    const began = minute();
    const started = first
      ? (await j.up('gem', [{ id: 'gm', runtime: 'gemini' }])).json.seats[0].launched
      : (await j.cli(['fresh', SEAT, '--reason=a conversation of this minute', '--json'])).json.result;
    const X: string = started.conversationId;
    await j.seen(SEAT, { activity: 'idle', named: true });
    await sleep(2000); // Gemini draws its box a moment before it reads keys
    const sent = await j.cli(['send', SEAT, 'hello gemini', '--verify', '--json']);
    expect(sent.json, sent.stdout).toMatchObject({ ok: true });
    await waitForReplyInTranscript(gemini, j.homeOf('gemini'), j.dir(), X, 'ACK hello gemini');
    return { X, began };
  }

  /** Restarts the seat on X and holds its new Gemini in the moment it takes X up. */
  async function restartAndHold(X: string, began: number): Promise<number[]> {
    const holding = holdWhileTakingUp(X);
    const restart = await j.cli(['restart', SEAT, '--keep-conversation', '--json']);
    expect(restart.json, restart.stdout + restart.stderr).toMatchObject({ ok: true, result: { outcome: 'resumed' } });
    const pids = await holding.catch((e: Error) => {
      throw new Error(`${e.message} (the conversation began in minute ${began}, it is now ${minute()})`);
    });
    expect(pids.length).toBeGreaterThan(0);
    return pids;
  }

  /** After 3 s the held Gemini is still the seat's: the command waits for it rather than ending it. */
  async function stillWaiting(pids: number[]): Promise<void> {
    await sleep(3000);
    expect(j.w.sessions().map((s) => s.seat)).toContain(SEAT);
    // A short-lived child (a `ps` of Gemini's) may have been ending as the hold came: it is a zombie
    // now, its stopped parent unable to reap it. It ended by itself; the command ended nothing.
    const endedByItself = (p: number) => {
      const st = procStat(p);
      return st?.state === 'Z' && pids.includes(st.ppid) && processAlive(st.ppid);
    };
    expect(
      processAlive(pids[0]!) && pids.every((p) => processAlive(p) || endedByItself(p)),
      JSON.stringify(pids.map((p) => [p, procStat(p)])),
    ).toBe(true);
    signal(pids, 'SIGCONT');
  }

  it("`stop` waits until the seat's Gemini has taken up its conversation (held there by SIGSTOP); the conversation stays resumable", async () => {
    const { X, began } = await conversationOfThisMinute(true);
    const pids = await restartAndHold(X, began);
    const stopping = j.cli(['stop', SEAT, '--json']);
    await stillWaiting(pids);
    const stopped = await stopping;
    expect(stopped.json, stopped.stdout).toMatchObject({ ok: true, stopped: { outcome: 'removed' } });
    await waitFor(() => pids.every((p) => !processAlive(p)), { timeoutMs: 15_000, what: "the seat's Gemini gone" });
    // The conversation is whole: a resume by hand answers in it.
    const again = await runAgent(GEMINI_BIN, j.envOf('gemini'), j.dir(), ['--resume', X, '-p', 'still there'], 90_000);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain('ACK still there');
  }, 240_000);

  it('a second `restart` waits the same way, and the seat comes back on its conversation and answers in it', async () => {
    const { X, began } = await conversationOfThisMinute(false);
    const pids = await restartAndHold(X, began);
    const restarting = j.cli(['restart', SEAT, '--keep-conversation', '--json']);
    await stillWaiting(pids);
    const again = await restarting;
    expect(again.json, again.stdout + again.stderr).toMatchObject({
      ok: true,
      result: { outcome: 'resumed', conversationId: X },
    });
    await j.seen(SEAT, { activity: 'idle', named: true });
    // Gemini draws its input box a moment before it reads keys, and a resumed one on a busy machine
    // takes longer to: a paste in that moment is lost (and Rigdesk says SEND_UNCONFIRMED).
    await sleep(5000);
    const sent = await j.cli(['send', SEAT, 'after two restarts', '--verify', '--json']);
    expect(sent.json, sent.stdout).toMatchObject({ ok: true });
    await waitForReplyInTranscript(gemini, j.homeOf('gemini'), j.dir(), X, 'ACK after two restarts');
  }, 240_000);
});

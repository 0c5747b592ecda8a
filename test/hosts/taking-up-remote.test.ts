/**
 * An end of a Gemini seat on another host waits while Gemini takes up its conversation there
 * (untilTakenUp), read on that host: real sshd on 127.0.0.1, a Gemini home laid out on the host
 * as Gemini lays it out, with the transcript the test writes as Gemini does (a resume caught in
 * the middle is a forced fault), and a clock the test steps (each poll's sleep moves it on).
 */
import { describe, expect, it } from 'vitest';
import { addHost } from '../../src/main/engine/services/hosts';
import { untilTakenUp } from '../../src/main/engine/seats/taking-up';
import { sshdMissing, sshWorldPerTest } from '../support/sshd';
import { emptied, header, ID, mark, messages, steppedClock, transcriptName } from '../support/taking-up';

/** Short, so a refusal takes a few polls over ssh rather than 150. */
const WAIT_MS = 2_000;

describe.skipIf(!!sshdMissing())('untilTakenUp on another host (real sshd, a Gemini home on the host)', () => {
  const world = sshWorldPerTest();

  /** A Gemini seat on host box whose one project (the seat's cwd) holds this conversation's transcript. */
  function setup(polls: { onPoll?: (n: number) => void } = {}) {
    const { w, sshd } = world;
    const home = `${sshd.remoteDir}/gemini-home`;
    const cwd = `${sshd.remoteDir}/work`;
    sshd.writeHost(`${home}/.gemini/projects.json`, JSON.stringify({ projects: { [cwd]: 'work' } }));
    sshd.asRemote(['mkdir', '-p', cwd]);
    // Gemini's own layout under its home (joined as on the host, which is POSIX).
    const transcript = [home, '.gemini', 'tmp', 'work', 'chats', transcriptName].join('/');
    const { clock, polls: n } = steppedClock(polls.onPoll);
    const engine = w.engine({ clock });
    const added = addHost(engine, sshd.hostsAddRequest('box'));
    expect(added.ok).toBe(true);
    const seat = { seat: 'g@r', runtime: 'gemini', env: { GEMINI_CLI_HOME: home }, cwd, host: 'box' };
    const trips = () => engine.hosts.get('box')!.exec.roundTrips;
    return { engine, seat, transcript, polls: n, trips, write: (s: string) => sshd.writeHost(transcript, s) };
  }

  it('a conversation not being taken up on the host is ended at once', async () => {
    const s = setup();
    s.write(header + messages);
    expect(await untilTakenUp(s.engine.ports, s.seat, ID, WAIT_MS)).toEqual({ ok: true, waitedMs: 0 });
    expect(s.polls()).toBe(0);
  });

  it("a resume's new record in the host's file: waits until the resume mark lands there; each later look is one round trip", async () => {
    const trips: number[] = [];
    const s = setup({
      onPoll: (n) => {
        trips.push(s.trips());
        if (n === 3) s.write(header + messages + header + emptied + mark);
      },
    });
    s.write(header + messages + header + emptied);
    const r = await untilTakenUp(s.engine.ports, s.seat, ID, WAIT_MS);
    expect(r).toEqual({ ok: true, waitedMs: 600 });
    expect(s.polls()).toBe(3);
    // The first look finds the file (projects.json, the chats folder, the file: a few round trips
    // at most); every later look reads that file alone.
    expect(trips[0]).toBeLessThanOrEqual(4);
    expect([...trips.slice(1), s.trips()].map((t, i) => t - trips[i]!)).toEqual([1, 1, 1]);
  });

  it("still taking up on the host after the wait: CONVERSATION_LOADING, naming the host's transcript and the host", async () => {
    const s = setup();
    s.write(header + messages + header + emptied);
    const r = await untilTakenUp(s.engine.ports, s.seat, ID, WAIT_MS);
    expect(r).toMatchObject({
      ok: false,
      code: 'CONVERSATION_LOADING',
      hint: expect.stringContaining('g@r'),
      evidence: { conversationId: ID, transcript: s.transcript, waitedMs: WAIT_MS, host: 'box' },
    });
  });

  it('a host that does not answer says nothing: the end goes ahead (and meets the host itself)', async () => {
    const s = setup();
    s.write(header + messages + header + emptied);
    await world.sshd.kill();
    expect(await untilTakenUp(s.engine.ports, s.seat, ID, WAIT_MS)).toEqual({ ok: true, waitedMs: 0 });
    expect(s.polls()).toBe(0);
  });
});

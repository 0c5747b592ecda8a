/**
 * An end of a seat waits while its agent takes up its conversation (untilTakenUp): a real engine
 * over a real Gemini home layout on disk, whose transcript the test writes as Gemini does, and a
 * clock the test steps (each poll's sleep moves it on by the poll's length).
 */
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TAKING_UP_WAIT_MS, untilTakenUp } from '../../src/main/engine/seats/taking-up';
import { RigWorld } from '../support/rig';
import { emptied, header, ID, mark, messages, steppedClock, transcriptName } from '../support/taking-up';

describe('untilTakenUp: ending a Gemini seat waits until its resume has taken up the conversation', () => {
  let w: RigWorld;
  let dir: string;
  afterEach(async () => {
    await w?.shutdown();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A Gemini home whose one project (the seat's cwd) holds this conversation's transcript. */
  function setup(polls: { onPoll?: (n: number) => void } = {}) {
    dir = mkdtempSync(join(tmpdir(), 'rd-takingup-'));
    const home = join(dir, 'gemini-home');
    const cwd = join(dir, 'work');
    const chats = join(home, '.gemini', 'tmp', 'work', 'chats');
    mkdirSync(chats, { recursive: true });
    mkdirSync(cwd);
    writeFileSync(join(home, '.gemini', 'projects.json'), JSON.stringify({ projects: { [cwd]: 'work' } }));
    const transcript = join(chats, transcriptName);
    const { clock, polls: n } = steppedClock(polls.onPoll);
    w = new RigWorld();
    const engine = w.engine({ clock });
    const seat = { seat: 'g@r', runtime: 'gemini', env: { GEMINI_CLI_HOME: home }, cwd, host: 'local' };
    return { engine, seat, transcript, polls: n };
  }

  it('a conversation not being taken up is ended at once', async () => {
    const s = setup();
    writeFileSync(s.transcript, header + messages);
    expect(await untilTakenUp(s.engine.ports, s.seat, ID)).toEqual({ ok: true, waitedMs: 0 });
    expect(s.polls()).toBe(0);
  });

  it("a resume's new record in the file: waits until the resume mark, then goes ahead", async () => {
    const s = setup({ onPoll: (n) => n === 5 && appendFileSync(s.transcript, mark) });
    writeFileSync(s.transcript, header + messages + header + emptied);
    const r = await untilTakenUp(s.engine.ports, s.seat, ID);
    expect(r).toEqual({ ok: true, waitedMs: 1000 });
    expect(s.polls()).toBe(5);
  });

  it('still taking up after the wait: CONVERSATION_LOADING, with the transcript and the wait as evidence', async () => {
    const s = setup();
    writeFileSync(s.transcript, header + messages + header + emptied);
    const r = await untilTakenUp(s.engine.ports, s.seat, ID);
    expect(r).toMatchObject({
      ok: false,
      code: 'CONVERSATION_LOADING',
      hint: expect.stringContaining('g@r'),
      evidence: { conversationId: ID, transcript: s.transcript, waitedMs: TAKING_UP_WAIT_MS },
    });
  });

  it('a runtime that cannot say, a seat on a host Rigdesk does not know, or no conversation: no wait', async () => {
    const s = setup();
    writeFileSync(s.transcript, header + messages + header + emptied);
    const ok = { ok: true, waitedMs: 0 };
    expect(await untilTakenUp(s.engine.ports, { ...s.seat, runtime: 'claude-code' }, ID)).toEqual(ok);
    expect(await untilTakenUp(s.engine.ports, { ...s.seat, host: 'box' }, ID)).toEqual(ok);
    expect(await untilTakenUp(s.engine.ports, s.seat, null)).toEqual(ok);
    expect(s.polls()).toBe(0);
  });
});

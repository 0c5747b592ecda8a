import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../agents/fake-model-server';
import { answerPrompt } from '../../src/main/engine/prompts/answer';
import { codex } from '../../src/main/engine/runtimes';
import { expectOnlyLoopback, JourneyWorld, requireCli, startServer } from '../journeys/support';
import { waitFor } from '../support/tmux';

/**
 * Every answer a permission prompt offers, from the CLI, on the real Claude Code and Codex CLIs
 * (fake model server): allow always takes the CLI's own wider approval, deny with a message
 * refuses and the message reaches the model (its `ACK <message>` reply), and what the CLI does
 * next proves the choice (the tool ran or not). An answer whose prompt changed between the read
 * and the keys is refused with nothing typed (a forced fault: the prompt is answered in the
 * terminal at that moment).
 */

const CL = 'cl@pc';
const CX = 'cx@pc';

describe('answering a prompt with every choice it offers (real Claude Code and Codex)', () => {
  const installed = requireCli('claude-code', 'codex');
  let server: FakeModelServer;
  let closed: number;
  let j: JourneyWorld;
  beforeAll(async () => {
    ({ server, closed } = await startServer({}));
  });
  afterAll(async () => {
    await server?.close();
    if (server && installed()) expectOnlyLoopback(server);
  });
  afterEach(async () => {
    await j?.cleanup();
  });

  async function atPrompt(seat: string, cmd: string) {
    await j.type(seat, `RUN: ${cmd}`, seat === CX ? codex.submitDelayMs! : 0);
    await j.seen(seat, { activity: 'needs_input' });
    const list = await j.cli(['prompts', '--json']);
    const item = list.json.prompts.find((p: { seat: string }) => p.seat === seat);
    expect(item, list.stdout).toBeDefined();
    return item as { choices: string[]; offers: { choice: string; label: string }[]; fingerprint: string };
  }

  async function start() {
    j = new JourneyWorld(server, closed, ['claude-code', 'codex']);
    await j.up('pc', [
      { id: 'cl', runtime: 'claude-code' },
      { id: 'cx', runtime: 'codex' },
    ]);
    await j.seen(CL, { activity: 'idle' });
    await j.seen(CX, { activity: 'idle' });
  }

  it('allow always: each CLI takes its own wider approval, and the tool runs', async () => {
    await start();
    const cl = await atPrompt(CL, 'touch always-cl.txt');
    expect(cl.choices).toEqual(['approve', 'allow_always', 'deny', 'deny_with_message']);
    expect(cl.offers.find((o) => o.choice === 'allow_always')?.label).toMatch(/^Yes, and/);
    const a = await j.cli(['answer', CL, 'allow-always', `--prompt=${cl.fingerprint}`, '--json']);
    expect(a.json, a.stdout).toMatchObject({ ok: true, answered: { choice: 'allow_always', keys: ['2'] } });
    await waitFor(() => existsSync(join(j.dir(), 'always-cl.txt')), { timeoutMs: 30_000, what: "Claude's tool ran" });

    const cx = await atPrompt(CX, 'touch always-cx.txt');
    expect(cx.offers.find((o) => o.choice === 'allow_always')?.label).toMatch(/don't ask again/);
    const b = await j.cli(['answer', CX, 'allow-always', '--json']);
    expect(b.json, b.stdout).toMatchObject({ ok: true, answered: { choice: 'allow_always', keys: ['p'] } });
    await waitFor(() => existsSync(join(j.dir(), 'always-cx.txt')), { timeoutMs: 30_000, what: "Codex's tool ran" });
    // The same command again runs with no prompt: Codex kept the approval.
    await j.seen(CX, { activity: 'idle' });
    rmSync(join(j.dir(), 'always-cx.txt'));
    await j.type(CX, 'RUN: touch always-cx.txt', codex.submitDelayMs!);
    await waitFor(() => existsSync(join(j.dir(), 'always-cx.txt')), {
      timeoutMs: 30_000,
      what: 'the command ran again without a prompt',
    });
    expect(j.screen(CX)).not.toMatch(/Would you like to run the following command\?[\s\S]*\$ touch always-cx\.txt\s*$/);
  }, 240_000);

  it('deny with a message: the tool does not run and the model gets the message', async () => {
    await start();
    for (const [seat, file] of [
      [CL, 'denied-cl.txt'],
      [CX, 'denied-cx.txt'],
    ] as const) {
      await atPrompt(seat, `touch ${file}`);
      const msg = `please use mkdir ${seat.slice(0, 2)} instead`;
      const r = await j.cli(['answer', seat, 'deny', '--message', msg, '--json']);
      expect(r.json, r.stdout).toMatchObject({
        ok: true,
        answered: { choice: 'deny_with_message', message: { verified: true } },
      });
      // The model's reply quotes what it got (Claude prefixes its own "[Request interrupted …]" line).
      await j.screenShows(seat, new RegExp(`[●•] ACK[\\s\\S]*${msg}`), 'the reply to the message');
      expect(existsSync(join(j.dir(), file))).toBe(false);
    }
    const kinds = (await j.cli(['events', '--json'])).json.events.map((e: { kind: string }) => e.kind);
    expect(kinds.filter((k: string) => k === 'seat.prompt_answered')).toHaveLength(2);
  }, 240_000);

  it("a question's options, and an answer in one's own words (Claude's AskUserQuestion)", async () => {
    j = new JourneyWorld(server, closed, ['claude-code']);
    await j.up('pc', [{ id: 'cl', runtime: 'claude-code' }]);
    await j.seen(CL, { activity: 'idle' });
    const ask = async () => {
      await j.type(CL, 'ASK: Which colour? | Red | Blue');
      await j.screenShows(CL, /Enter to select/, 'the question');
      const list = await j.cli(['prompts', '--json']);
      return list.json.prompts.find((p: { seat: string }) => p.seat === CL);
    };
    const q = await ask();
    expect(q).toMatchObject({
      reason: 'question',
      choices: ['option', 'other', 'deny'],
      offers: [
        { choice: 'option', label: 'Red', option: 1 },
        { choice: 'option', label: 'Blue', option: 2 },
        { choice: 'other' },
        { choice: 'deny' },
      ],
    });
    const two = await j.cli(['answer', CL, '2', '--json']);
    expect(two.json, two.stdout).toMatchObject({ ok: true, answered: { choice: 'option', option: 2, keys: ['2'] } });
    await j.screenShows(CL, /Which colour\? → Blue/, 'the option taken');
    await j.seen(CL, { activity: 'idle' });
    await ask();
    const own = await j.cli(['answer', CL, 'other', '--message', 'Green please', '--json']);
    expect(own.json, own.stdout).toMatchObject({ ok: true, answered: { choice: 'other' } });
    await j.screenShows(CL, /Which colour\? → Green please/, 'the answer in its own words');
  }, 240_000);

  it("a question's options, and an answer in one's own words (Codex's request_user_input)", async () => {
    j = new JourneyWorld(server, closed, ['codex']);
    await j.up('pc', [{ id: 'cx', runtime: 'codex' }]);
    await j.seen(CX, { activity: 'idle' });
    const ask = async () => {
      await j.type(CX, 'ASK: Which colour | Red | Blue', codex.submitDelayMs!);
      await j.screenShows(CX, /enter to submit answer/, 'the question');
      await j.seen(CX, { activity: 'needs_input' });
      const list = await j.cli(['prompts', '--json']);
      return list.json.prompts.find((p: { seat: string }) => p.seat === CX);
    };
    const q = await ask();
    expect(q).toMatchObject({
      reason: 'question',
      offers: [
        { choice: 'option', label: 'Red', option: 1 },
        { choice: 'option', label: 'Blue', option: 2 },
        { choice: 'option', label: 'None of the above', option: 3 },
        { choice: 'other' },
        { choice: 'deny' },
      ],
    });
    const two = await j.cli(['answer', CX, '2', '--json']);
    expect(two.json, two.stdout).toMatchObject({ ok: true, answered: { choice: 'option', option: 2, keys: ['2'] } });
    // What Codex hands the model is the proof: the fake server echoes the tool's result.
    await j.screenShows(CX, /ACK tool result: .*"answers":\["Blue"\]/, 'the option reached the model');
    await j.seen(CX, { activity: 'idle' });
    await ask();
    const own = await j.cli(['answer', CX, 'other', '--message', 'Green please', '--json']);
    expect(own.json, own.stdout).toMatchObject({ ok: true, answered: { choice: 'other' } });
    await j.screenShows(
      CX,
      /ACK tool result: .*"answers":\["None of the above","user_note: Green please"\]/,
      'the answer in its own words reached the model',
    );
  }, 240_000);

  it('a prompt answered in the terminal between the read and the keys is refused PROMPT_CHANGED, nothing typed (forced fault)', async () => {
    await start();
    await atPrompt(CL, 'touch changed.txt');
    const e = j.w.engine();
    const r = await answerPrompt(e.ports, CL, 'approve', {
      by: 'test',
      beforeRevalidate: async () => {
        j.w.tmux.run(['send-keys', '-t', CL, 'Escape']); // the person answers in the terminal
        await waitFor(() => !/Do you want to proceed\?/.test(j.screen(CL)) || undefined, { what: 'the prompt gone' });
      },
    });
    expect(r).toMatchObject({ ok: false, code: 'PROMPT_CHANGED' });
    await new Promise((res) => setTimeout(res, 1500));
    expect(existsSync(join(j.dir(), 'changed.txt'))).toBe(false);
    const evs = e.store.events.list({ seat: CL }).map((x) => x.kind);
    expect(evs).toContain('seat.prompt_answer_refused');
    expect(evs).not.toContain('seat.prompt_answered');
  }, 240_000);
});

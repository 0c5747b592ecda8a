import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runtimeById } from '../../src/main/engine/runtimes';
import { typeInto } from '../journeys/support';
import { waitFor } from '../support/tmux';
import { type Chrome, chromiumMissing, openWindow } from './chromium';
import { type AgentAppWorld, agentAppWorld } from './claude-world';
import { strictUrl } from './helpers';

const missing = chromiumMissing();
const codex = runtimeById('codex');

/**
 * A real Codex seat answered from the Decisions card: its command approval (allow always, then
 * deny with a message) and its question (its request_user_input, which the fake model server asks
 * for on `ASK:`): an option by its button, and an answer in one's own words through the card's
 * message box. What Codex then does proves the choice: the command ran or not, and what it hands
 * the model back (the fake server's `ACK …` reply, on the pane).
 */
describe.skipIf(!!missing)("a real Codex seat's question in the window", () => {
  let w: AgentAppWorld;
  let chrome: Chrome;
  let page: Page;
  let errors: string[] = [];

  beforeAll(async () => {
    w = await agentAppWorld('codex');
    ({ chrome, page, errors } = await openWindow(strictUrl(w.serve, '#/decisions')));
  }, 120_000);
  afterAll(async () => {
    await chrome?.close();
    await w?.cleanup();
  }, 60_000);

  const pane = () => w.engine.store.sessions.live('lead@act')!.paneId;
  const screen = () => w.world.tmux.capture(pane()).replace(/\s+/g, '');
  const item = () => page.locator('[data-prompt="lead@act"]');
  const idle = () => page.locator('[data-seat-row="lead@act"][data-state="idle"]').waitFor({ timeout: 60_000 });
  const type = async (text: string) => {
    await idle();
    // As a person types: Codex drops an Enter that comes right after the text, and on a loaded
    // machine one that comes before it has drawn the text; one left in its box gets another.
    await typeInto(w.world.tmux, pane(), text, codex, 700);
  };
  /** Clicks the card's button; when it never shows, says what the pane and the seat's row showed. */
  const pick = async (name: string, exact = false) => {
    await item()
      .getByRole('button', { name, exact })
      .click({ timeout: 30_000 })
      .catch(async (e: Error) => {
        const row = await page.locator('[data-seat-row="lead@act"]').getAttribute('data-state');
        throw new Error(`${e.message}\nseat row: ${row}\npane:\n${w.world.tmux.capture(pane())}`);
      });
  };
  const ask = () => type('ASK: Pick a side | Left | Right');
  const sentVerified = (text: string) =>
    w.engine.store.events
      .list({ seat: 'lead@act', kind: 'seat.send' })
      .some((e) => e.data.preview === text && e.data.verified === true);
  const answered = () => w.engine.store.events.list({ seat: 'lead@act', kind: 'seat.prompt_answered' }).at(-1)?.data;

  it('approve (once) from the card: the command runs', async () => {
    await type('RUN: touch once-card.txt');
    await pick('Approve', true);
    await waitFor(() => existsSync(join(w.work, 'once-card.txt')), { timeoutMs: 30_000, what: 'the command ran' });
    expect(answered()).toMatchObject({ choice: 'approve', keys: ['y'], by: 'window' });
  });

  it('allow always from the card: the command runs', async () => {
    await type('RUN: touch always-card.txt');
    await pick('Allow always');
    await waitFor(() => existsSync(join(w.work, 'always-card.txt')), { timeoutMs: 30_000, what: 'the command ran' });
    expect(answered()).toMatchObject({ choice: 'allow_always', keys: ['p'], by: 'window' });
  });

  it('deny with a message from the card: nothing runs, and the message reaches the model', async () => {
    await type('RUN: mkdir refused-card');
    await pick('Deny with a message…');
    const box = item().getByRole('textbox', { name: 'message to lead@act' });
    await box.fill('leave the folder alone');
    await box.press('Enter');
    // The reply to the message itself, and the engine's send of it over (verified): a message left
    // in Codex's box also shows after an earlier ACK, and the send's one more Enter, still to come,
    // would land on whatever the next step types.
    await waitFor(() => screen().includes('•ACKleavethefolderalone') && sentVerified('leave the folder alone'), {
      timeoutMs: 30_000,
      what: "the model's reply to the message, and the send of it verified",
    });
    expect(existsSync(join(w.work, 'refused-card'))).toBe(false);
    expect(answered()).toMatchObject({ choice: 'deny_with_message', by: 'window' });
  });

  it('an option from the card: Codex hands the model that option', async () => {
    await ask();
    await pick('2. Right');
    await waitFor(() => screen().includes('ACKtoolresult:{"answers":{"choice":{"answers":["Right"]}}}'), {
      timeoutMs: 30_000,
      what: 'the option reached the model',
    });
    expect(answered()).toMatchObject({ choice: 'option', by: 'window' });
  });

  it("an answer in one's own words from the card's box: Codex hands the model None of the above with the note", async () => {
    await ask();
    await pick('Other…');
    const box = item().getByRole('textbox', { name: 'message to lead@act' });
    await box.fill('the middle one');
    await box.press('Enter');
    await waitFor(() => screen().includes('"answers":["Noneoftheabove","user_note:themiddleone"]'), {
      timeoutMs: 30_000,
      what: 'the answer in its own words reached the model',
    });
    expect(answered()).toMatchObject({ choice: 'other', by: 'window' });
    expect(errors).toEqual([]);
  });
});

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../src/main/engine/api';
import { waitFor } from '../support/tmux';
import { type Chrome, chromiumMissing, openWindow } from './chromium';
import { type ClaudeAppWorld, claudeAppWorld } from './claude-world';
import { strictUrl } from './helpers';

const missing = chromiumMissing();

/**
 * The seat's pane as the window's grid sizes it: a slot of the first screen in a 1200x800 window
 * (Claude wraps its options there), and a wide one (each option on one line).
 */
const SIZES = [
  { where: 'a narrow grid slot', viewport: undefined },
  { where: 'a wide pane', viewport: { width: 2560, height: 1400 } },
];

/**
 * "Allow always" on a real Claude Code seat's permission prompt, from the window's Decisions
 * card: it must pick Claude's own "Yes, and don't ask again for: git init *" option, which Claude
 * keeps as a rule in the project's settings and applies to later calls of the same kind. That
 * approval outlives the answer, so this case has its own world and its own Claude seat: in a
 * shared seat it would silence the prompts the sibling cases (prompts-claude.test.ts) wait for.
 * `git init` because Claude offers a command-prefix rule for it; a file-writing command such as
 * mkdir is offered "always allow access to work/" instead, which switches the session to
 * accept-edits and writes no rule.
 */
describe.skipIf(!!missing).each(SIZES)(
  "allow always on a real Claude seat's permission prompt, from the window, in $where",
  ({ viewport }) => {
    let w: ClaudeAppWorld;
    let chrome: Chrome;
    let page: Page;
    let errors: string[] = [];

    beforeAll(async () => {
      w = await claudeAppWorld();
      ({ chrome, page, errors } = await openWindow(strictUrl(w.serve, '#/decisions'), viewport ? { viewport } : {}));
    }, 120_000);
    afterAll(async () => {
      await chrome?.close();
      await w?.cleanup();
    }, 60_000);

    const SEAT = 'lead@act';
    const pane = () => w.engine.store.sessions.live(SEAT)!.paneId;
    /** The pane's text with its wrapping taken out: the slot it is drawn in may be narrow. */
    const flat = () => w.world.tmux.capture(pane()).replace(/\s+/g, '');
    const item = () => page.locator(`[data-prompt="${SEAT}"]`);
    const idle = () => page.locator(`[data-seat-row="${SEAT}"][data-state="idle"]`).waitFor({ timeout: 60_000 });
    const answered = () => w.engine.store.events.list({ seat: SEAT, kind: 'seat.prompt_answered' });
    const lastSeq = () => w.engine.store.events.list({ newest: 1 }).at(-1)?.seq ?? 0;
    /** The seat's activity rows after `seq` that read it as waiting for the person. */
    const waits = (seq: number) =>
      w.engine.store.events
        .list({ seat: SEAT, kind: 'seat.activity', afterSeq: seq })
        .filter((e) => e.data.label === 'needs_input');
    /** The rules in Claude's own project settings, where "don't ask again" keeps them. */
    const allowRules = (): string[] => {
      const file = join(w.work, '.claude', 'settings.local.json');
      if (!existsSync(file)) return [];
      try {
        return (
          (JSON.parse(readFileSync(file, 'utf8')) as { permissions?: { allow?: string[] } }).permissions?.allow ?? []
        );
      } catch {
        return []; // being written
      }
    };
    const run = async (cmd: string) => {
      await idle();
      w.world.tmux.run(['send-keys', '-t', pane(), '-l', `RUN: ${cmd}`]);
      w.world.tmux.run(['send-keys', '-t', pane(), 'Enter']);
    };
    /**
     * The turn that ran the command is over: the model has answered the tool's result (any prompt
     * for the call came before the call ran, and the call before its result) and the rail reads the
     * seat idle.
     */
    const turnOver = async (requestsBefore: number, cmd: string) => {
      await waitFor(
        () => {
          const r = w.model.requests.slice(requestsBefore).find((q) => q.trigger === 'tool_result');
          return r && w.model.endedAt(r) !== undefined;
        },
        { timeoutMs: 30_000, what: `the model's answer to ${cmd}'s result` },
      ).catch((e: Error) => {
        throw new Error(`${e.message}\n${w.world.tmux.capture(pane())}`);
      });
      await idle();
    };

    it("Allow always from the card picks Claude's \"don't ask again\" option: the command runs and Claude keeps the rule in the project's settings", async () => {
      const before = lastSeq();
      const requests = w.model.requests.length;
      await run('git init always-one');
      const button = item().getByRole('button', { name: 'Allow always' });
      await button.waitFor({ timeout: 30_000 });
      const size = w.world.tmux.run(['display', '-p', '-t', pane(), '#{pane_width}x#{pane_height}']).trim();
      process.stdout.write(`Claude's pane: ${size}\n`);
      // The card offers Claude's own option (its words in the tooltip) for this very call.
      expect(await button.getAttribute('title')).toMatch(/^Yes, and don.t ask again for/);
      expect(await item().getByTestId('prompt-screen').textContent()).toContain('git init always-one');
      expect(allowRules()).toEqual([]);
      await button.click();
      await waitFor(() => existsSync(join(w.work, 'always-one', '.git')), {
        timeoutMs: 15_000,
        what: 'the allowed command ran',
      });
      expect(answered()).toHaveLength(1);
      expect(answered()[0]!.data).toMatchObject({
        choice: 'allow_always',
        keys: ['2'],
        by: 'window',
        reason: 'answered from the Rigdesk window',
      });
      // Claude wrote the rule itself: the keys chose "don't ask again", not a plain yes.
      await waitFor(() => allowRules().some((r) => /^Bash\(git init\b/.test(r)), {
        timeoutMs: 10_000,
        what: `a git init rule in ${join('work', '.claude', 'settings.local.json')}`,
      }).catch((e: Error) => {
        throw new Error(`${e.message}; allow: ${JSON.stringify(allowRules())}`);
      });
      // The seat waited for the person (this is what the next case must not see), and no longer does.
      expect(waits(before).map((e) => e.data.needsInput)).toContain('permission');
      await page.getByTestId('decisions-none').waitFor({ timeout: 10_000 });
      // On record: the seat's timeline and the Decisions history both hold the answer.
      const timeline = await dispatch(w.engine, 'workspace.timeline', { seat: SEAT });
      expect(
        timeline.ok && timeline.events.filter((e) => e.kind === 'seat.prompt_answered').map((e) => e.data.choice),
      ).toEqual(['allow_always']);
      const entry = page.locator('[data-history="prompt"]').filter({ hasText: SEAT });
      await entry.waitFor({ timeout: 10_000 });
      expect(await entry.textContent()).toMatch(/allow always.*git init always-one.*by window/);
      await turnOver(requests, 'git init always-one');
    });

    it('a second git init in the same seat is not asked: no needs input, no card, and it runs', async () => {
      await idle();
      const before = lastSeq();
      const requests = w.model.requests.length;
      // Anything the window shows for the seat from here on: a card, or a count in the title.
      await page.evaluate((seat) => {
        const seen = ((window as unknown as { seen: string[] }).seen = [] as string[]);
        const look = () => {
          if (document.querySelector(`[data-prompt="${seat}"]`)) seen.push('card');
          if (/^\(\d+\)/.test(document.title)) seen.push(document.title);
        };
        new MutationObserver(look).observe(document, { subtree: true, childList: true, characterData: true });
      }, SEAT);
      let asked = false;
      const watch = setInterval(() => {
        if (flat().includes('Doyouwanttoproceed?')) asked = true;
      }, 25);
      try {
        await run('git init always-two');
        await waitFor(
          () => {
            if (asked) throw new Error(`Claude asked again:\n${w.world.tmux.capture(pane())}`);
            return existsSync(join(w.work, 'always-two', '.git'));
          },
          { timeoutMs: 30_000, what: 'the second git init ran unasked' },
        );
        await turnOver(requests, 'git init always-two');
      } finally {
        clearInterval(watch);
      }
      expect(asked).toBe(false);
      expect(waits(before)).toEqual([]);
      expect(await page.evaluate(() => (window as unknown as { seen: string[] }).seen)).toEqual([]);
      expect(answered()).toHaveLength(1);
      expect(errors).toEqual([]);
    });
  },
);

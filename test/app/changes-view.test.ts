import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../src/main/engine/api';
import { parcelWatchPort } from '../../src/main/engine/changes/parcel-port';
import { TestRepo } from '../support/git-repo';
import { REPO } from '../support/rig';
import { waitFor } from '../support/tmux';
import { chromiumMissing, launchChromium } from './chromium';
import { type AppWorld, appWorld, strictUrl } from './helpers';

const missing = chromiumMissing();
/** Where the screenshots go (ignored by git): open them and look. */
const SHOTS = process.env.RIGDESK_SHOTS ?? join(REPO, '.tmp', 'changes');

const APP_TS = `${Array.from({ length: 24 }, (_, i) => `export const step${i + 1} = ${i + 1};`).join('\n')}\n`;
/** The spec's checks: they fail, with a line of output, when a FAIL file is committed. */
const CHECKS = 'if test -e FAIL; then echo "checks saw FAIL"; exit 1; fi';

const shell = (id: string, cwd: string) =>
  `{ id: ${id}, runtime: shell, cwd: ${JSON.stringify(cwd)}, command: bash, args: ["--noprofile", "--norc"] }`;

function spec(repo: TestRepo): string {
  return [
    'name: wt',
    `checks: ${JSON.stringify(CHECKS)}`,
    'pods:',
    '  - id: work',
    '    worktree: true',
    '    members:',
    ...['s1', 's2', 's3'].map((m) => `      - ${shell(m, repo.dir)}`),
    'edges:',
    '  - { from: s1, to: s2, kind: delegates_to }',
    '  - { from: s2, to: s3, kind: collaborates_with }',
  ].join('\n');
}

/** The git identity and isolation of TestRepo, for the engine's own git work (worktrees, merges). */
const gitEnv = () =>
  Object.fromEntries(Object.entries(TestRepo.env()).filter(([k]) => k.startsWith('GIT_'))) as Record<string, string>;

/**
 * A seat's work in the window (real git, real tmux shell seats each in its own worktree, the
 * engine watching the trees as `rigdesk serve` does, real Chromium): the rail badge with the
 * number of files, the Changes view with each file's diff, a review sent back that the seat's pane
 * shows, the overlaps edge on the topology while two seats change one path, a big change drawn only
 * near the screen, and the merge gate's success and refusals.
 */
describe.skipIf(!!missing)('a seat’s changes in the window', () => {
  let w: AppWorld;
  let repo: TestRepo;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  const errors: string[] = [];
  const wt = (m: string) => join(w.world.home, 'worktrees', 'wt', m);
  const shot = async (name: string) => {
    for (const [width, height] of [
      [1280, 800],
      [1920, 1080],
    ] as const) {
      await page.setViewportSize({ width, height });
      await page.waitForTimeout(300);
      await page.screenshot({ path: join(SHOTS, `${name}-${width}x${height}.png`) });
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  };
  const view = (seat: string) => page.locator(`[data-changes-view="${seat}"]`);
  const paneText = (seat: string) => {
    const pane = w.world.sessions().find((s) => s.seat === seat)!.id;
    return w.world.tmux.run(['capture-pane', '-p', '-J', '-S', '-200', '-t', pane]);
  };

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    repo = new TestRepo('rd-wtview-');
    repo.git(['config', 'user.name', 'Test']);
    repo.git(['config', 'user.email', 'test@example.invalid']);
    repo.write('src/app.ts', APP_TS);
    repo.write('README.md', '# demo\n\nA small repository.\n');
    repo.commitAll('base');
    w = await appWorld('wt', [], { yaml: spec(repo), monitor: true, env: gitEnv() });
    // As `rigdesk serve` does once it is up: every tree read from now on is watched.
    w.engine.ports.changes.startWatching(parcelWatchPort());
    chrome = await launchChromium({ width: 1280, height: 800 });
    page = chrome.browser.pages()[0] ?? (await chrome.browser.newPage());
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(strictUrl(w.serve));
    await page.locator('[data-seat-row="s1@wt"]').waitFor({ timeout: 30_000 });
    // The engine reads and watches each tree once ps first asks for it; a write made while that
    // watch is being placed can be missed until the next write (the engine's race, reported), so
    // the seats' first figures are awaited, and a moment for the watches to settle in place.
    await waitFor(
      async () => {
        const ps = await dispatch(w.engine, 'ps', { rig: 'wt' });
        return (ps.ok && ps.seats.every((x) => x.changes)) || undefined;
      },
      { what: 'every seat read once', timeoutMs: 20_000 },
    );
    await new Promise((r) => setTimeout(r, 1000));
  }, 180_000);
  // A test that fails leaves no dialog over the next one.
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail') {
      const ps = await dispatch(w.engine, 'ps', { rig: 'wt' });
      console.log('DEBUG ps', JSON.stringify(ps.ok && ps.seats.map((x) => [x.seat, x.changes])));
      console.log('DEBUG list', JSON.stringify(await dispatch(w.engine, 'changes.list', { rig: 'wt' })).slice(0, 3000));
      console.log('DEBUG status', repo.git(['status', '--porcelain'], wt('s1')));
    }
    if (await page.locator('.overlay').count()) await page.keyboard.press('Escape');
  });
  afterAll(async () => {
    await chrome?.close();
    await w?.engine.ports.changes.close();
    await w?.cleanup();
    repo?.remove();
  });

  it('the rail badge shows how many files a seat changed, from the watch, with no badge for a seat that changed none', async () => {
    repo.write(
      'src/app.ts',
      APP_TS.replace('step3 = 3;', 'step3 = 3 * 1000; // scaled').concat('export const done = true;\n'),
      wt('s1'),
    );
    repo.write('tools/run.py', 'import sys\n\n\ndef main():\n    print("run", sys.argv[1:])\n', wt('s1'));
    repo.write('NOTES.md', '# Notes\n\n- scaled step three\n- a runner\n', wt('s1'));
    await page.locator('[data-changes="s1@wt"]', { hasText: /^3$/ }).waitFor({ timeout: 15_000 });
    expect(await page.locator('[data-changes="s2@wt"]').count()).toBe(0);
    // One more file: the same badge follows (pushed, not polled by the window).
    repo.write('tools/util.py', 'X = 1\n', wt('s1'));
    await page.locator('[data-changes="s1@wt"]', { hasText: /^4$/ }).waitFor({ timeout: 15_000 });
  });

  it('c on a focused rail row opens the Changes view: its worktree, branch and base, each file with its diff; s and u switch the layout; Escape closes', async () => {
    // The rail row names the seat's worktree branch.
    expect(await page.locator('[data-seat-row="s1@wt"] [data-branch]').getAttribute('data-branch')).toBe(
      'rigdesk/wt/s1',
    );
    await page.locator('[data-seat-row="s1@wt"]').focus();
    await page.keyboard.press('c');
    await view('s1@wt').waitFor();
    expect(await page.locator('[data-changes-worktree]').textContent()).toBe(wt('s1'));
    expect(await page.locator('[data-changes-branch]').textContent()).toBe('rigdesk/wt/s1');
    await page.locator('[data-changes-totals="s1@wt"]', { hasText: '4 files' }).waitFor();
    const files = await page
      .locator('[data-diff-file]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-diff-file')));
    expect(files.sort()).toEqual(['NOTES.md', 'src/app.ts', 'tools/run.py', 'tools/util.py']);
    // The diff itself: the changed line, in its file's block, with syntax colours.
    const app = page.locator('[data-diff-file="src/app.ts"]');
    await app.getByText('step3 = 3 * 1000').first().waitFor();
    expect(await app.locator('.hljs-keyword, [class*="hljs"]').count()).toBeGreaterThan(0);
    expect(await page.locator('[data-file-link="tools/run.py"]').textContent()).toContain('+5');
    await page.keyboard.press('s');
    await app.locator('.split-diff-view').first().waitFor();
    await shot('changes-view-split');
    await page.keyboard.press('u');
    await app.locator('.unified-diff-view').first().waitFor();
    await shot('changes-view');
    await page.keyboard.press('Escape');
    await view('s1@wt').waitFor({ state: 'detached' });
  });

  it('a comment on a line, sent as a review from the view opened by the palette, reaches the seat’s pane', async () => {
    // The palette offers the focused seat's actions: s1 is opened in the grid first.
    await page.locator('[data-seat-row="s1@wt"]').click();
    await page.locator('[data-seat-row="s1@wt"].focused').waitFor();
    await page.keyboard.press('Control+k');
    await page.keyboard.type('Changes s1@wt');
    await page.keyboard.press('Enter');
    await view('s1@wt').waitFor();
    const app = page.locator('[data-diff-file="src/app.ts"]');
    const line = app.locator('tr', { hasText: 'step3 = 3 * 1000' }).first();
    await line.hover();
    await line.locator('.diff-add-widget').first().dispatchEvent('mousedown');
    const box = page.getByRole('textbox', { name: /^comment on src\/app\.ts:\d+$/ });
    await box.fill('why times 1000? say it in the name');
    const where = (await box.getAttribute('aria-label'))!.replace('comment on ', '');
    await box.press('Control+Enter');
    await page.locator(`[data-review-comment="${where}"]`).waitFor();
    // The keyboard's way: the file header's Comment…, the line (the first added one offered), the text.
    await page.locator('[data-comment-on="tools/run.py"]').focus();
    await page.keyboard.press('Enter');
    const lineField = page.getByRole('spinbutton', { name: 'line of tools/run.py' });
    expect(await lineField.inputValue()).toBe('1');
    await lineField.fill('4');
    await page.keyboard.press('Tab');
    await page.keyboard.type('main() takes no arguments: say so');
    await page.keyboard.press('Control+Enter');
    await page.locator('[data-review-comment="tools/run.py:4"]').waitFor();
    expect(await page.locator('[data-review-count]').getAttribute('data-review-count')).toBe('2');
    await page.getByRole('textbox', { name: 'review note' }).fill('Two points before this merges.');
    await shot('review-comment');
    await page.getByRole('button', { name: 'Send review' }).click();
    await page.locator('[data-changes-outcome]', { hasText: 'Review sent to s1@wt' }).waitFor({ timeout: 30_000 });
    await waitFor(() => paneText('s1@wt').includes(`${where}: why times 1000? say it in the name`) || undefined, {
      what: "the review in s1's pane",
    });
    expect(paneText('s1@wt')).toContain('Two points before this merges.');
    expect(paneText('s1@wt')).toContain('tools/run.py:4: main() takes no arguments: say so');
    await shot('review-sent-view');
    await page.keyboard.press('Escape');
    // The seat's own pane shows the message it was sent.
    await page.locator('[data-seat-row="s1@wt"]').click();
    // Its last lines: the first ones may have scrolled off a pane that shares the grid with others.
    await page
      .locator('.xterm-rows', { hasText: 'Two points before this merges.' })
      .first()
      .waitFor({ timeout: 15_000 });
    await shot('review-delivered');
  });

  it('two seats changing one path draw an overlaps edge on the topology and flag both rail rows, gone when one reverts', async () => {
    await page.locator('[data-view-tab="topology"]').click();
    await page.locator('[data-edge="s1@wt->s2@wt"][data-kind="delegates_to"]').waitFor({ state: 'attached' });
    const overlapsEdge = page.locator('[data-kind="overlaps"]');
    expect(await overlapsEdge.count()).toBe(0);
    repo.write('src/app.ts', APP_TS.replace('step20 = 20;', 'step20 = 21;'), wt('s2'));
    await overlapsEdge.first().waitFor({ state: 'attached', timeout: 15_000 });
    expect(await overlapsEdge.getAttribute('data-edge')).toBe('s1@wt->s2@wt');
    expect(await overlapsEdge.locator('title').textContent()).toContain('on src/app.ts');
    expect(await page.locator('[data-edge-note]').textContent()).toContain('src/app.ts');
    // Drawn on top: after the spec's edges.
    const kinds = await page.locator('.rig-edge').evaluateAll((els) => els.map((e) => e.getAttribute('data-kind')));
    expect(kinds.at(-1)).toBe('overlaps');
    for (const seat of ['s1@wt', 's2@wt'])
      await page.locator(`[data-seat-row="${seat}"] [data-changes-risk="overlaps"]`).waitFor();
    expect(await page.locator('[data-changes="s2@wt"]').getAttribute('data-overlaps')).toBe('s1@wt');
    await shot('topology-overlaps');
    repo.git(['checkout', '--', 'src/app.ts'], wt('s2'));
    await overlapsEdge.first().waitFor({ state: 'detached', timeout: 15_000 });
    await page.locator('[data-changes-risk]').first().waitFor({ state: 'detached' });
    await page.locator('[data-view-tab="grid"]').click();
  });

  it('a big change is drawn only near the screen: far files wait as placeholders until scrolled to', async () => {
    for (let i = 1; i <= 60; i++)
      repo.write(
        `gen/file${String(i).padStart(2, '0')}.ts`,
        `${Array.from({ length: 40 }, (_, j) => `export const v${j} = ${i * j};`).join('\n')}\n`,
        wt('s3'),
      );
    await page.locator('[data-changes="s3@wt"]', { hasText: /^60$/ }).waitFor({ timeout: 20_000 });
    // From the pane header's menu.
    await page.locator('[data-seat-row="s3@wt"]').click();
    await page.getByRole('button', { name: 'Actions for s3@wt' }).click();
    await page.getByRole('menuitem', { name: 'Changes' }).click();
    await view('s3@wt').waitFor();
    await page.locator('[data-diff-file="gen/file01.ts"] [data-line]').first().waitFor();
    expect(await page.locator('[data-diff-file]').count()).toBe(60);
    const drawn = () => page.locator('[data-diff-file]:not(:has(.diff-placeholder))').count();
    expect(await drawn()).toBeLessThan(20);
    expect(await page.locator('[data-diff-file="gen/file60.ts"] .diff-placeholder').count()).toBe(1);
    await page.locator('[data-file-link="gen/file60.ts"]').click();
    await page.locator('[data-diff-file="gen/file60.ts"] [data-line]').first().waitFor();
    await page.keyboard.press('Escape');
  });

  it('Merge: a dirty worktree is refused with its files, committed work merges, a conflict and failing checks are refused with what failed', async () => {
    const openFor = async (seat: string) => {
      await page.locator(`[data-seat-row="${seat}"]`).focus();
      await page.keyboard.press('c');
      await view(seat).waitFor();
    };
    const merge = (seat: string) => page.locator(`[data-merge="${seat}"]`).click();
    await openFor('s1@wt');
    await merge('s1@wt');
    await page.locator('[data-refusal="WORKTREE_DIRTY"]').waitFor({ timeout: 15_000 });
    expect(await page.locator('[data-refusal-files]').textContent()).toContain('src/app.ts');
    await page.keyboard.press('Escape');

    repo.commitAll('s1: scaled step three, a runner', wt('s1'));
    await openFor('s1@wt');
    await merge('s1@wt');
    await page
      .locator('[data-changes-outcome]', { hasText: 'Merged rigdesk/wt/s1 into main' })
      .waitFor({ timeout: 30_000 });
    expect(await page.locator('[data-changes-outcome]').textContent()).toContain('checks passed');
    expect(repo.git(['log', '-1', '--format=%s', 'main']).trim()).toContain('s1');
    // Read again after the merge: nothing of s1's is left against its base, and no diff box waits empty.
    await page.locator('.diff-placeholder').first().waitFor({ state: 'detached', timeout: 15_000 });
    await shot('merge-done');
    await page.keyboard.press('Escape');

    // s2 changed the same line as s1, now in main: refused, naming the file, main unchanged.
    repo.write('src/app.ts', APP_TS.replace('step3 = 3;', 'step3 = 3 + 0;'), wt('s2'));
    repo.commitAll('s2: another step three', wt('s2'));
    const before = repo.git(['rev-parse', 'main']).trim();
    await openFor('s2@wt');
    await merge('s2@wt');
    await page.locator('[data-refusal="MERGE_CONFLICT"]').waitFor({ timeout: 15_000 });
    expect(await page.locator('[data-refusal-files]').textContent()).toBe('src/app.ts');
    expect(repo.git(['rev-parse', 'main']).trim()).toBe(before);
    await shot('merge-conflict');
    await page.keyboard.press('Escape');

    // s3's work breaks the checks: refused with the tail of their output.
    repo.write('FAIL', 'x\n', wt('s3'));
    repo.commitAll('s3: generated files', wt('s3'));
    await openFor('s3@wt');
    await merge('s3@wt');
    await page.locator('[data-refusal="CHECKS_FAILED"]').waitFor({ timeout: 30_000 });
    expect(await page.locator('[data-refusal-tail]').textContent()).toContain('checks saw FAIL');
    expect(repo.git(['rev-parse', 'main']).trim()).toBe(before);
    await page.keyboard.press('Escape');
    expect(errors).toEqual([]);
  });
});

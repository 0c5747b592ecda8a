/**
 * The restore review after a reboot, with the real Claude Code CLI against the fake model server
 * (127.0.0.1 only): two Claude seats with a finished turn and a shell seat, the tmux server killed,
 * one transcript deleted. The window offers the review; it lists the three seats with the plan the
 * CLI's `restore --plan` gives (the same engine call), the deleted transcript as a seat awaiting a
 * decision with that evidence; "Apply every proven resume" brings the other Claude seat back on its
 * conversation (proven by its argv); the decision answered on the screen is recorded and shown.
 */
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../src/main/engine/api';
import type { Engine } from '../../src/main/engine/engine';
import { descendants, liveProcReader } from '../../src/main/engine/proc';
import { PushHub } from '../../src/main/window-hub/pushes';
import { type ServeHandle, startServe } from '../../src/server/serve';
import { type ClaudeFixture, makeClaudeFixture } from '../agents/claude-fixture';
import { waitForExit } from '../agents/claude-run';
import { closedPort, type FakeModelServer, startFakeModelServer } from '../agents/fake-model-server';
import { RigWorld } from '../support/rig';
import { waitFor } from '../support/tmux';
import { chromiumMissing, launchChromium } from './chromium';
import { RENDERER_DIR, strictUrl } from './helpers';

const missing = chromiumMissing();
const LOCAL = ['127.0.0.1', '::ffff:127.0.0.1'];
const LEAD = 'lead@crew';
const GONE = 'gone@crew';
const SH = 'sh@crew';

function rigYaml(fx: ClaudeFixture): string {
  const env = Object.entries(fx.env)
    .map(([k, v]) => `          ${k}: ${JSON.stringify(v)}`)
    .join('\n');
  const claude = (m: string) =>
    `      - id: ${m}\n        runtime: claude-code\n        cwd: ./work\n        env:\n${env}`;
  return `${[
    'name: crew',
    'pods:',
    '  - id: team',
    '    members:',
    claude('lead'),
    claude('gone'),
    '      - { id: sh, runtime: shell, cwd: ., command: bash, args: ["--noprofile", "--norc"] }',
    'edges:',
    '  - { from: lead, to: gone, kind: delegates_to }',
  ].join('\n')}\n`;
}

describe.skipIf(!!missing)('the restore review after a reboot, with real Claude Code seats', () => {
  let model: FakeModelServer;
  let w: RigWorld;
  let fx: ClaudeFixture;
  let work: string;
  let engine: Engine;
  let serve: ServeHandle;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  const ids: Record<string, string> = {};
  const errors: string[] = [];
  const row = (seat: string) => page.locator(`[data-review-seat="${seat}"]`);

  const psRow = async (seat: string) => {
    const ps = await w.cli(['ps', '--json']);
    return ps.json.seats.find((s: { seat: string }) => s.seat === seat);
  };
  async function turn(seat: string, text: string): Promise<void> {
    await waitFor(async () => (await psRow(seat))?.activity === 'idle', { timeoutMs: 60_000, what: `${seat} idle` });
    expect((await w.cli(['send', seat, text, '--json'])).code).toBe(0);
    const path = fx.transcriptPath(work, ids[seat]!);
    await waitFor(() => existsSync(path) && readFileSync(path, 'utf8').includes(`ACK ${text}`), {
      timeoutMs: 45_000,
      what: `${text} in ${seat}'s transcript`,
    });
  }

  beforeAll(async () => {
    model = await startFakeModelServer();
    w = new RigWorld();
    mkdirSync(join(w.root, 'work'), { recursive: true });
    work = realpathSync(join(w.root, 'work'));
    fx = makeClaudeFixture({
      serverUrl: model.url,
      closedPort: await closedPort(),
      trustedCwds: [work],
      root: join(w.root, 'claude'),
    });
    const up = await w.cli(['up', w.spec('rig.yaml', rigYaml(fx)), '--json']);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    for (const s of up.json.seats) ids[s.seat] = s.launched.conversationId;
    await turn(LEAD, 'before reboot');
    await turn(GONE, 'doomed');
    const pids = [(await psRow(LEAD)).pid, (await psRow(GONE)).pid];
    w.tmux.kill(); // the reboot
    for (const p of pids) await waitForExit(p, 15_000);
    rmSync(fx.transcriptPath(work, ids[GONE]!));

    // The app starting after the reboot: its engine settles what vanished, then serves the window.
    engine = w.engine();
    expect(await dispatch(engine, 'reconcile', {})).toMatchObject({ ok: true });
    serve = await startServe({
      engine,
      port: 0,
      staticDir: RENDERER_DIR,
      pushes: new PushHub(engine, { activityEvents: true }),
    });
    chrome = await launchChromium({ width: 1400, height: 900 });
    page = chrome.browser.pages()[0] ?? (await chrome.browser.newPage());
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(strictUrl(serve));
  }, 240_000);
  afterAll(async () => {
    await chrome?.close();
    await serve?.close();
    const r = w?.tmux.tryRun(['list-panes', '-a', '-F', '#{pane_pid}']);
    const panes = r?.ok ? r.out.trim().split('\n').filter(Boolean).map(Number) : [];
    const snap = liveProcReader().snapshot();
    const all = panes.flatMap((p) => [p, ...descendants(snap, p).map((d) => d.pid)]);
    w?.tmux.kill();
    for (const p of all) await waitForExit(p, 5000);
    w?.cleanup();
    await model?.close();
    expect(model.requests.every((q) => LOCAL.includes(q.remoteAddress))).toBe(true);
  }, 60_000);

  it('offers the review, which lists all three seats with the plan restore --plan gives', async () => {
    const offer = page.getByTestId('restore-offer');
    await offer.waitFor({ timeout: 15_000 });
    expect(await offer.textContent()).toContain('Restore: 3 seats down');
    await offer.getByRole('button', { name: 'Review the restore' }).click();
    await row(LEAD).and(page.locator('[data-phase="plan"]')).waitFor({ timeout: 15_000 });
    const cli = await w.cli(['restore', 'crew', '--plan', '--json']);
    expect(cli.code, cli.stdout + cli.stderr).toBe(0);
    const planned = Object.fromEntries(cli.json.seats.map((s: { seat: string; plan: string }) => [s.seat, s.plan]));
    expect(planned).toEqual({ [LEAD]: 'resume', [GONE]: 'awaiting_decision', [SH]: 'fresh' });
    for (const seat of [LEAD, GONE, SH]) expect(await row(seat).getAttribute('data-outcome')).toBe(planned[seat]);
    // What proves each: the transcript that is there, and the one that is not.
    const leadProof = await row(LEAD).getByTestId('proof').textContent();
    expect(leadProof).toContain(ids[LEAD]);
    expect(leadProof).toContain('transcript present at');
    const goneProof = await row(GONE).getByTestId('proof').textContent();
    expect(goneProof).toContain('transcript missing');
    expect(goneProof).toContain(`no transcript for ${ids[GONE]}`);
    expect(w.sessions()).toEqual([]);
  });

  it('"Apply every proven resume" brings the Claude seat back on its conversation; the other waits for a decision with its evidence', async () => {
    // Each row's phases, as the page shows them: restoring before its result.
    await page.evaluate(() => {
      const seen: Record<string, string[]> = {};
      (window as unknown as { __phases: typeof seen }).__phases = seen;
      new MutationObserver(() => {
        for (const r of document.querySelectorAll('[data-review-seat]')) {
          const s = r.getAttribute('data-review-seat')!;
          const p = `${r.getAttribute('data-phase')}:${r.getAttribute('data-outcome')}`;
          if (seen[s]?.at(-1) !== p) (seen[s] ??= []).push(p);
        }
      }).observe(document.body, { subtree: true, attributes: true, childList: true });
    });
    await page.getByTestId('apply-resumes').click();
    await row(LEAD).and(page.locator('[data-outcome="resumed"]')).waitFor({ timeout: 120_000 });
    const proof = await row(LEAD).getByTestId('proof').textContent();
    expect(proof).toContain(`conversation ${ids[LEAD]}`);
    expect(proof).toMatch(/proven by \S+/);
    const lead = await psRow(LEAD);
    expect(lead).toMatchObject({ state: 'running', conversationId: ids[LEAD] });
    expect(readFileSync(`/proc/${lead.pid}/cmdline`, 'utf8').split('\0')).toEqual(
      expect.arrayContaining(['--resume', ids[LEAD]]),
    );
    await row(SH).and(page.locator('[data-outcome="fresh"]')).waitFor({ timeout: 30_000 });
    await row(GONE).and(page.locator('[data-outcome="awaiting_decision"]')).waitFor();
    expect(await row(GONE).locator('.evidence-lines').textContent()).toContain('transcript missing');
    expect(await page.getByTestId('run-outcome').textContent()).toContain('partially restored');
    const phases = await page.evaluate(() => (window as unknown as { __phases: Record<string, string[]> }).__phases);
    process.stdout.write(`review phases of ${LEAD}: ${phases[LEAD]?.join(' → ')}\n`);
    const p = phases[LEAD]!;
    expect(p.findIndex((x) => x.startsWith('running:'))).toBeLessThan(p.indexOf('result:resumed'));
    expect(
      w
        .sessions()
        .map((s) => s.seat)
        .sort(),
    ).toEqual([LEAD, SH]);
  });

  it('the decision answered on the screen is recorded, and its result shown', async () => {
    await row(GONE).getByLabel(`reason for ${GONE}`).fill('the transcript went with the reboot');
    await row(GONE).locator('[data-choice="leave_stopped"]').click();
    await row(GONE).and(page.locator('[data-outcome="left_stopped"]')).waitFor({ timeout: 15_000 });
    expect(await row(GONE).textContent()).toContain('decided: left stopped');
    const ev = engine.store.events.list({ seat: GONE, kind: 'decision.answered' }).at(-1);
    expect(ev?.data).toMatchObject({ choice: 'leave_stopped', reason: 'the transcript went with the reboot' });
    const ds = await dispatch(engine, 'decisions', { rig: 'crew', all: true });
    expect(ds.ok && ds.decisions.find((d) => d.seat === GONE)).toMatchObject({
      state: 'answered',
      answer: 'leave_stopped',
    });
    // The Decisions panel's history shows the answer too.
    await page.locator('[data-history="decision"]').filter({ hasText: GONE }).waitFor({ timeout: 10_000 });
    expect(errors).toEqual([]);
  });
});

import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../src/main/engine/api';
import { controlPathFor } from '../../src/main/engine/hosts/ssh';
import { startServe, type ServeHandle } from '../../src/server/serve';
import { chromiumMissing, launchChromium } from '../app/chromium';
import { RENDERER_DIR } from '../app/helpers';
import { RigWorld } from '../support/rig';
import { closeMaster, sshdMissing, TestSshd } from '../support/sshd';
import { waitFor } from '../support/tmux';

const missing = chromiumMissing();

/** The window in real Chromium over rigdesk serve, with a seat on an ssh host (real sshd on 127.0.0.1). */
describe.skipIf(!!missing || !!sshdMissing())('the window with a remote seat, in Chromium', () => {
  let w: RigWorld;
  let sshd: TestSshd;
  let serve: ServeHandle;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;

  beforeAll(async () => {
    w = new RigWorld();
    sshd = await new TestSshd().start();
    const engine = w.engine();
    const spec = w.spec(
      'rig.yaml',
      [
        'name: mix',
        'hosts:',
        sshd.hostYaml('box'),
        'pods:',
        '  - id: team',
        '    members:',
        '      - { id: here, runtime: shell, cwd: ., command: bash, args: ["--noprofile", "--norc"] }',
        `      - { id: r1, runtime: shell, cwd: ${sshd.remoteDir}, command: bash, args: ["--noprofile", "--norc"], host: box }`,
      ].join('\n') + '\n',
    );
    const up = await dispatch(engine, 'up', { spec });
    if (!up.ok) throw new Error(JSON.stringify(up));
    serve = await startServe({ engine, port: 0, staticDir: RENDERER_DIR });
    chrome = await launchChromium();
    page = chrome.browser.pages()[0] ?? (await chrome.browser.newPage());
    await page.goto(serve.url);
  }, 120_000);
  afterAll(async () => {
    await chrome?.close();
    await serve?.close();
    closeMaster(controlPathFor(w.home, 'box'));
    await sshd?.cleanup();
    await w?.shutdown();
  });

  it("shows the remote seat's host and the host's health, and its live terminal runs on that host", async () => {
    await page.locator('ul.hosts li.host.reachable[data-host="box"]').waitFor({ timeout: 15_000 });
    expect(await page.locator('button.seat[data-seat="r1@mix"] [data-testid=seat-host]').textContent()).toBe('@box');
    expect(await page.locator('button.seat[data-seat="here@mix"] [data-testid=seat-host]').count()).toBe(0);

    await waitFor(
      async () =>
        /[$#] *$/m.test(
          ((await dispatch(serve.ctx.engine, 'capture', { seat: 'r1@mix' })) as { text?: string }).text ?? '',
        ),
      { what: 'remote prompt' },
    );
    await page.locator('button.seat[data-seat="r1@mix"]').click();
    expect(await page.getByTestId('seat-host').textContent()).toBe('box');
    await page.getByTestId('terminal-status').filter({ hasText: 'live' }).waitFor({ timeout: 15_000 });
    await page.locator('[data-testid=terminal]').click();
    await page.keyboard.type('echo on-$(id -un)-$((6*7))');
    await page.keyboard.press('Enter');
    const screen = () => page.evaluate(() => window.__rigdeskScreens?.['r1@mix']?.text() ?? '');
    await waitFor(async () => /^on-rdremote-42$/m.test(await screen()), {
      what: 'the remote answer in the browser terminal',
      timeoutMs: 15_000,
    });
  });

  it('a host that stops answering reads unreachable in the window, and its seat unknown', async () => {
    await page.goto(`${serve.url}#/`);
    await page.locator('ul.hosts li.host.reachable[data-host="box"]').waitFor({ timeout: 10_000 });
    await sshd.kill();
    await page.locator('ul.hosts li.host.unreachable[data-host="box"]').waitFor({ timeout: 10_000 });
    expect(await page.locator('button.seat[data-seat="here@mix"] [data-testid=badge]').textContent()).not.toBe(
      'unknown',
    );
    await page
      .locator('button.seat[data-seat="r1@mix"] [data-testid=badge]')
      .filter({ hasText: 'unknown' })
      .waitFor({ timeout: 10_000 });
  });
});

import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../src/main/engine/api';
import { controlPathFor } from '../../src/main/engine/hosts/ssh';
import { startServe, type ServeHandle } from '../../src/server/serve';
import { chromiumMissing, launchChromium } from '../app/chromium';
import { RENDERER_DIR, strictUrl } from '../app/helpers';
import { RigWorld } from '../support/rig';
import { closeMaster, REMOTE_USER, sshdMissing, TestSshd } from '../support/sshd';
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
      `${[
        'name: mix',
        'hosts:',
        sshd.hostYaml('box'),
        'pods:',
        '  - id: team',
        '    members:',
        '      - { id: here, runtime: shell, cwd: ., command: bash, args: ["--noprofile", "--norc"] }',
        `      - { id: r1, runtime: shell, cwd: ${sshd.remoteDir}, command: bash, args: ["--noprofile", "--norc"], host: box }`,
      ].join('\n')}\n`,
    );
    const up = await dispatch(engine, 'up', { spec });
    if (!up.ok) throw new Error(JSON.stringify(up));
    serve = await startServe({ engine, port: 0, staticDir: RENDERER_DIR });
    chrome = await launchChromium();
    page = chrome.browser.pages()[0] ?? (await chrome.browser.newPage());
    await page.goto(strictUrl(serve));
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
    // The rail groups seats by host: r1 under box, here under this machine.
    await page.locator('[data-rail-host="box"] [data-seat-row="r1@mix"]').waitFor({ timeout: 15_000 });
    expect(await page.locator('[data-rail-host="local"] [data-seat-row="here@mix"]').count()).toBe(1);

    await waitFor(
      async () =>
        /[$#] *$/m.test(
          ((await dispatch(serve.ctx.engine, 'capture', { seat: 'r1@mix' })) as { text?: string }).text ?? '',
        ),
      { what: 'remote prompt' },
    );
    await page.locator('[data-seat-row="r1@mix"]').click();
    await page.getByRole('tab', { name: 'Seat details' }).click();
    expect(await page.locator('[data-details="r1@mix"] [data-fact="host"]').textContent()).toBe('box');
    await page.locator('[data-pane="r1@mix"] [data-terminal-state="live"]').waitFor({ timeout: 15_000 });
    await page.locator('[data-pane="r1@mix"] [data-testid=terminal]').click();
    await page.keyboard.type('echo on-$(id -un)-$((6*7))');
    await page.keyboard.press('Enter');
    const screen = () => page.evaluate(() => window.__rigdeskScreens?.['r1@mix']?.text() ?? '');
    await waitFor(async () => new RegExp(`^on-${REMOTE_USER}-42$`, 'm').test(await screen()), {
      what: 'the remote answer in the browser terminal',
      timeoutMs: 15_000,
    });
  });

  it('a host that stops answering reads unreachable in the window, and its seat unknown', async () => {
    await page.locator('ul.hosts li.host.reachable[data-host="box"]').waitFor({ timeout: 10_000 });
    await sshd.kill();
    await page.locator('ul.hosts li.host.unreachable[data-host="box"]').waitFor({ timeout: 10_000 });
    expect(await page.locator('[data-seat-row="here@mix"]').getAttribute('data-state')).not.toBe('unknown');
    await page.locator('[data-seat-row="r1@mix"][data-state="unknown"]').waitFor({ timeout: 10_000 });
    expect(await page.locator('[data-seat-row="r1@mix"] .reason').textContent()).toBe('host unreachable');
  });
});

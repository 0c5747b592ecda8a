import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../src/main/engine/api';
import { waitFor } from '../support/tmux';
import { type Chrome, chromiumMissing, openWindow } from './chromium';
import { type AppWorld, appWorld, strictUrl, openRestoreDecision } from './helpers';
import { RECORD_NOTIFICATIONS } from './notifications';

const missing = chromiumMissing();

/**
 * A FAKE of the Electron preload's bridge (`window.rigdesk`), since no Electron binary starts
 * here: the same four functions, forwarding to the serve host's WebSocket. With it the window
 * picks its desktop transport, as it does in the app.
 */
const FAKE_PRELOAD_BRIDGE = `(() => {
  const pending = new Map();
  const pushes = new Set();
  const frames = new Set();
  let ws;
  let open;
  // Opened on first use, as the window's own socket is: pushes sent on connect find their listener.
  const socket = () => {
    if (ws) return open;
    const token = new URLSearchParams(location.search).get('token') || '';
    ws = new WebSocket('ws://' + location.host + '/ws?token=' + encodeURIComponent(token));
    ws.binaryType = 'arraybuffer';
    open = new Promise((r) => ws.addEventListener('open', r));
    ws.onmessage = (ev) => {
      if (ev.data instanceof ArrayBuffer) { const b = new Uint8Array(ev.data); frames.forEach((f) => f(b)); return; }
      const m = JSON.parse(ev.data);
      if (m.push) pushes.forEach((f) => f(m));
      else if (pending.has(m.id)) { pending.get(m.id)(m); pending.delete(m.id); }
    };
    return open;
  };
  window.rigdesk = {
    request: async (msg) => { await socket(); return new Promise((res) => { pending.set(msg.id, res); ws.send(JSON.stringify(msg)); }); },
    onPush: (cb) => (pushes.add(cb), void socket(), () => pushes.delete(cb)),
    sendFrame: (b) => void socket().then(() => ws.send(b)),
    onFrame: (cb) => (frames.add(cb), () => frames.delete(cb)),
  };
})();`;

/**
 * In the desktop app the shell notifies natively (attention-shell.test.ts): the window must not
 * notify a second time. With the preload's bridge (FAKE, forwarding to a real engine over the
 * serve host) and the browser's permission granted, a seat that starts to need the person changes
 * the title and raises no Web Notification, and there is no bell.
 */
describe.skipIf(!!missing)('the window in the desktop app does not notify twice', () => {
  let w: AppWorld;
  let chrome: Chrome;
  let page: Page;
  let errors: string[] = [];

  beforeAll(async () => {
    w = await appWorld('duo', ['a', 'b'], { monitor: true });
    ({ chrome, page, errors } = await openWindow(strictUrl(w.serve), {
      viewport: { width: 1280, height: 800 },
      initScripts: [RECORD_NOTIFICATIONS, FAKE_PRELOAD_BRIDGE],
      notifications: true,
    }));
  }, 120_000);
  afterAll(async () => {
    await chrome?.close();
    await w?.cleanup();
  });

  it('a new wait sets the title and raises no Web Notification; no bell is offered', async () => {
    await page.locator('[data-seat-row="b@duo"][data-state="idle"]').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('connection').textContent()).toBe('ipc open');
    expect(await page.locator('[data-notify]').count()).toBe(0);
    await new Promise((r) => setTimeout(r, 500)); // past the first look
    expect((await dispatch(w.engine, 'stop', { seat: 'b@duo' })).ok).toBe(true);
    openRestoreDecision(w.engine, 'b@duo', 'duo');
    w.engine.store.events.append('decision.opened', { rig: 'duo', seat: 'b@duo' }, { reason: 'transcript_missing' });
    await page.waitForFunction(() => document.title === '(1) Rigdesk', undefined, { timeout: 15_000 });
    await new Promise((r) => setTimeout(r, 1000));
    expect(await page.evaluate(() => window.__notes.length)).toBe(0);
    await waitFor(async () => (await page.locator('[data-seat-row="b@duo"][data-state="needs_input"]').count()) === 1, {
      what: 'b needs you in the rail',
    });
    expect(errors).toEqual([]);
  });
});

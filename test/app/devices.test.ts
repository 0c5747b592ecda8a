import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dispatch } from '../../src/main/engine/api';
import type { Engine } from '../../src/main/engine/engine';
import { type ServeHandle, startServe } from '../../src/server/serve';
import { fakeClock } from '../support/fake-clock';
import { RigWorld, shellRigYaml } from '../support/rig';
import { cookieOf, get, openWs, wsCall } from './devices-wire';
import { RENDERER_DIR } from './helpers';

/**
 * Devices end to end on a real engine and the real window host: a LAN peer is played by another
 * loopback address (127.0.0.2), with the test-only setting that only 127.0.0.1 is this machine.
 */

const PEER = '127.0.0.2';
const onlyHere = (a: string) => a === '127.0.0.1';

let world: RigWorld | undefined;
let serve: ServeHandle | undefined;
afterEach(async () => {
  await serve?.close();
  serve = undefined;
  await world?.shutdown();
  world = undefined;
});

async function host(
  opts: { clock?: ReturnType<typeof fakeClock>; rig?: boolean; tls?: { cert: Buffer; key: Buffer } } = {},
) {
  if (!existsSync(join(RENDERER_DIR, 'index.html')))
    throw new Error('no built renderer: run `npx electron-vite build` first');
  world = new RigWorld();
  const engine = world.engine(opts.clock ? { clock: opts.clock } : {});
  if (opts.rig) {
    const up = await dispatch(engine, 'up', { spec: world.spec('duo.yaml', shellRigYaml('duo', ['lead'])) });
    expect(up.ok).toBe(true);
  }
  serve = await startServe({
    engine,
    port: 0,
    staticDir: RENDERER_DIR,
    listen: { host: '127.0.0.1', port: 0, ...(opts.tls ? { tls: opts.tls } : {}) },
    thisMachine: onlyHere,
  });
  const base = serve.listenUrl!;
  return { engine, base, wsUrl: `${base.replace(/^http/, 'ws')}/ws` };
}

async function pair(engine: Engine, name?: string) {
  const r = await dispatch(engine, 'devices.pair', name ? { name } : {});
  if (!r.ok) throw new Error(JSON.stringify(r));
  return r;
}

describe('devices: pairing and the device token', () => {
  it('pairs a peer once: a cookie (httpOnly, SameSite=Strict) and on to the window; the store keeps hashes only; a code used twice answers 410', async () => {
    const { engine, base, wsUrl } = await host();
    // Before pairing, the peer gets nothing, not even the shell.
    expect((await get(`${base}/`, { from: PEER })).status).toBe(401);
    const p = await pair(engine, 'phone');
    expect(Object.keys(p).sort()).toEqual(['code', 'expiresAt', 'ok', 'url']);
    expect(p.url).toMatch(new RegExp(`^${base}/pair/[A-Z2-9]{8}$`));
    const first = await get(p.url, { from: PEER });
    expect(first.status).toBe(303);
    expect(first.headers.location).toBe('/');
    const setCookie = String(first.headers['set-cookie']);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    const cookie = cookieOf(first);
    const token = cookie.split('=')[1]!;
    // The store: hashes only, never the token, its secret or the code.
    const rows = JSON.stringify([
      engine.store.db.prepare('SELECT * FROM devices').all(),
      engine.store.db.prepare('SELECT * FROM device_pairings').all(),
    ]);
    expect(rows).not.toContain(token.split('.')[1]);
    expect(rows).not.toContain(p.url.split('/pair/')[1]);
    expect((await get(p.url, { from: PEER })).status).toBe(410);
    // The paired peer: the shell and the contract, as itself.
    const page = await get(`${base}/`, { from: PEER, cookie });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<div id="root">');
    const { ws } = await openWs(wsUrl, { from: PEER, cookie, origin: base });
    expect(ws).toBeDefined();
    const list = await wsCall(ws!, 'devices.list', {});
    expect(list.devices).toEqual([
      expect.objectContaining({ name: 'phone', pairedFrom: PEER, lastAddress: PEER, connections: 1, revokedAt: null }),
    ]);
    // A device does not make or end devices.
    expect((await wsCall(ws!, 'devices.pair', {}, 2)).code).toBe('DEVICE_FORBIDDEN');
    ws!.terminate();
  });

  it("refuses a WebSocket from another site's page (wrong Origin), even with the device's cookie", async () => {
    const { engine, base, wsUrl } = await host();
    const cookie = cookieOf(await get((await pair(engine)).url, { from: PEER }));
    expect((await openWs(wsUrl, { from: PEER, cookie, origin: 'http://evil.example' })).status).toBe(403);
    expect((await openWs(wsUrl, { from: PEER, cookie, origin: base.replace('127.0.0.1', 'localhost') })).status).toBe(
      403,
    );
    const ok = await openWs(wsUrl, { from: PEER, cookie, origin: base });
    expect(ok.ws).toBeDefined();
    ok.ws!.terminate();
  });

  it('the per-start token URL works from this machine only: a LAN peer with the token is refused', async () => {
    const { wsUrl, base } = await host();
    const withToken = `${wsUrl}?token=${serve!.token}`;
    expect((await openWs(withToken, { from: PEER })).status).toBe(401);
    expect((await get(`${base}/?token=${serve!.token}`, { from: PEER })).status).toBe(401);
    const here = await openWs(withToken, { from: '127.0.0.1' });
    expect(here.ws).toBeDefined();
    here.ws!.terminate();
    expect((await openWs(wsUrl, { from: '127.0.0.1' })).status).toBe(401);
  });

  it('an expired code (the clock through the deps) answers 410 and pairs nothing', async () => {
    const clock = fakeClock(Date.now());
    const { engine } = await host({ clock });
    const p = await pair(engine);
    expect(p.expiresAt).toBe(clock.now() + 10 * 60_000);
    await clock.advance(10 * 60_000);
    const r = await get(p.url, { from: PEER });
    expect(r.status).toBe(410);
    expect(r.body).toContain('expired');
    expect(r.headers['set-cookie']).toBeUndefined();
    expect(engine.devices.list().devices).toEqual([]);
    // One moment earlier it would have paired.
    const q = await pair(engine);
    await clock.advance(10 * 60_000 - 1);
    expect((await get(q.url, { from: PEER })).status).toBe(303);
  });

  it('throttles wrong codes: five a minute answer 404, the sixth closes pairing (even the right code) until the next pair', async () => {
    const clock = fakeClock(Date.now());
    const { engine, base } = await host({ clock });
    const p = await pair(engine);
    for (let i = 0; i < 5; i++) expect((await get(`${base}/pair/WRONG${i + 2}AA`, { from: PEER })).status).toBe(404);
    // The window is a minute: older misses no longer count.
    await clock.advance(60_000);
    for (let i = 0; i < 5; i++) expect((await get(`${base}/pair/WRONG${i + 2}AA`, { from: PEER })).status).toBe(404);
    expect((await get(`${base}/pair/WRONGXXX`, { from: PEER })).status).toBe(429);
    expect((await get(p.url, { from: PEER })).status).toBe(429);
    expect(engine.devices.list().devices).toEqual([]);
    const again = await pair(engine);
    expect((await get(again.url, { from: PEER })).status).toBe(303);
    // The code the throttle closed stays closed in the store.
    expect((await get(p.url, { from: PEER })).status).toBe(410);
  });

  it('revoking a device closes its open WebSocket within 1 s and refuses its token over HTTP and WebSocket after', async () => {
    const { engine, base, wsUrl } = await host();
    const cookie = cookieOf(await get((await pair(engine, 'tablet')).url, { from: PEER }));
    const { ws } = await openWs(wsUrl, { from: PEER, cookie, origin: base });
    const closed = new Promise<{ code: number; at: number }>((r) =>
      ws!.on('close', (code) => r({ code, at: Date.now() })),
    );
    const id = engine.devices.list().devices[0]!.id;
    const t0 = Date.now();
    const r = await dispatch(engine, 'devices.revoke', { id });
    expect(r).toMatchObject({ ok: true, id, name: 'tablet', closed: 1 });
    const c = await Promise.race([closed, new Promise<undefined>((res) => setTimeout(res, 1000))]);
    expect(c, 'the socket closed within 1 s').toBeDefined();
    expect(c!.at - t0).toBeLessThan(1000);
    expect((await get(`${base}/`, { from: PEER, cookie })).status).toBe(401);
    expect((await openWs(wsUrl, { from: PEER, cookie, origin: base })).status).toBe(401);
    expect(engine.devices.list().devices[0]!.revokedAt).not.toBeNull();
    expect((await dispatch(engine, 'devices.revoke', { id: 'd0000000000' })).ok).toBe(false);
  });

  it("records what a device answers as that device's, whatever `by` it sends", async () => {
    const { engine, base, wsUrl } = await host({ rig: true });
    const cookie = cookieOf(await get((await pair(engine, 'phone')).url, { from: PEER }));
    const { ws } = await openWs(wsUrl, { from: PEER, cookie, origin: base });
    const id = engine.devices.list().devices[0]!.id;
    // A shell seat waits for nothing: the answer is refused, and the refusal is recorded with the device.
    const r = await wsCall(ws!, 'prompts.answer', { seat: 'lead@duo', choice: 'approve', by: 'window' });
    expect(r.ok).toBe(false);
    const ev = engine.store.events.list({ seat: 'lead@duo' }).filter((e) => e.kind === 'seat.prompt_answer_refused');
    expect(ev.at(-1)?.data).toMatchObject({ by: `device phone (${id})` });
    ws!.terminate();
  });

  it('serves devices over TLS when given a certificate: the cookie is Secure', async (ctx) => {
    const tls = selfSigned();
    if (!tls) return ctx.skip();
    const { engine } = await host({ tls });
    const p = await pair(engine);
    expect(p.url).toMatch(/^https:\/\//);
    const r = await get(p.url, { from: PEER, insecureTls: true });
    expect(r.status).toBe(303);
    expect(String(r.headers['set-cookie'])).toMatch(/; Secure/);
  });
});

/** A throwaway certificate from the openssl command (skipped loudly without it, failed under CI). */
function selfSigned(): { cert: Buffer; key: Buffer } | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'rd-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-keyout',
        join(dir, 'k.pem'),
        '-out',
        join(dir, 'c.pem'),
      ],
      { stdio: 'ignore' },
    );
  } catch (e) {
    if (process.env.CI) throw new Error(`CI needs openssl for the TLS test: ${(e as Error).message}`);
    process.stdout.write(`skipped: TLS test: no openssl (${(e as Error).message})\n`);
    return undefined;
  }
  const pair = { cert: readFileSync(join(dir, 'c.pem')), key: readFileSync(join(dir, 'k.pem')) };
  rmSync(dir, { recursive: true, force: true });
  return pair;
}

import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { RIGDESK_BIN, RigWorld } from '../support/rig';
import { stopServe } from '../support/serve';
import { waitFor } from '../support/tmux';
import { get } from './devices-wire';

/**
 * The `rigdesk` command's side of devices, on the real built CLI and a real `rigdesk serve`:
 * serve opens the window beyond this machine only with --listen (and warns without TLS), and
 * `devices pair | devices | devices revoke` reach that serving engine.
 */

let world: RigWorld | undefined;
let child: ChildProcess | undefined;
afterEach(async () => {
  await stopServe(child);
  child = undefined;
  await world?.shutdown();
  world = undefined;
});

async function serve(w: RigWorld, args: string[]): Promise<{ out: any; err: () => string }> {
  // eslint-disable-line @typescript-eslint/no-explicit-any
  child = spawn(process.execPath, [RIGDESK_BIN, 'serve', '--json', ...args], {
    env: w.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  await waitFor(() => out.includes('\n'), { what: 'serve up' });
  return { out: JSON.parse(out.split('\n')[0]!), err: () => err };
}

describe('rigdesk devices (the CLI) against rigdesk serve', () => {
  it('serve without --listen opens nothing for devices: pair is refused with a hint', async () => {
    world = new RigWorld();
    const s = await serve(world, []);
    expect(s.out.ok).toBe(true);
    expect(s.out.listen).toBeUndefined();
    const r = await world.cli(['devices', 'pair', '--json']);
    expect(r.code).toBe(1);
    expect(r.json).toMatchObject({ ok: false, code: 'DEVICES_NOT_LISTENING' });
    expect(r.json.hint).toContain('--listen');
  });

  it('serve --listen warns without TLS; pair --json gives {ok, code, url, expiresAt}; list and revoke', async () => {
    world = new RigWorld();
    const s = await serve(world, ['--listen', '127.0.0.1:0']);
    expect(s.out.listen).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await waitFor(() => s.err().includes('no TLS'), { what: 'the no-TLS warning' });
    const p = await world.cli(['devices', 'pair', '--name', 'phone', '--json']);
    expect(p.code).toBe(0);
    expect(Object.keys(p.json).sort()).toEqual(['code', 'expiresAt', 'ok', 'url']);
    expect(p.json.url.startsWith(`${s.out.listen}/pair/`)).toBe(true);
    expect(p.json.expiresAt - Date.now()).toBeGreaterThan(9 * 60_000);
    expect(p.json.expiresAt - Date.now()).toBeLessThanOrEqual(10 * 60_000);
    // Without --json: the URL, the code and a QR code drawn with block characters.
    const shown = await world.cli(['devices', 'pair']);
    expect(shown.stdout).toContain('/pair/');
    expect(shown.stdout).toContain('▀');
    expect((await get(p.json.url, { from: '127.0.0.2' })).status).toBe(303);
    const list = await world.cli(['devices', '--json']);
    expect(list.json.devices).toEqual([
      expect.objectContaining({
        name: 'phone',
        lastAddress: '127.0.0.2',
        revokedAt: null,
        lastSeenAt: expect.any(Number),
      }),
    ]);
    const text = await world.cli(['devices']);
    expect(text.stdout).toContain('phone');
    expect(text.stdout).toContain('127.0.0.2');
    const id = list.json.devices[0].id;
    const rv = await world.cli(['devices', 'revoke', id, '--json']);
    expect(rv.json).toMatchObject({ ok: true, id, name: 'phone' });
    expect((await world.cli(['devices', '--json'])).json.devices[0].revokedAt).toEqual(expect.any(Number));
    const none = await world.cli(['devices', 'revoke', 'd0000000000', '--json']);
    expect(none.code).toBe(2);
    expect(none.json.code).toBe('DEVICE_NOT_FOUND');
  });

  it('refuses a bad --listen, and TLS flags without --listen, as bad usage', async () => {
    world = new RigWorld();
    expect((await world.cli(['serve', '--listen', 'nowhere', '--json'])).code).toBe(2);
    expect((await world.cli(['serve', '--tls-cert', 'c.pem', '--json'])).code).toBe(2);
  });
});

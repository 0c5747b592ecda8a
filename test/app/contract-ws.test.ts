import { existsSync } from 'node:fs';
import { request } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METHODS } from '../../src/shared/contract';
import { encodeAck, encodeFrame, FRAME, MAX_TEXT_MESSAGE, WINDOW_REQUESTS } from '../../src/shared/contract/app';
import { MAX_TERMINALS_PER_CONNECTION } from '../../src/main/terminal/hub';
import { appWorld, WireClient, type AppWorld } from './helpers';

let w: AppWorld;
beforeAll(async () => {
  w = await appWorld('wire');
}, 120_000);
afterAll(async () => {
  await w?.cleanup();
});

/** What must not move when a bad message arrives: tmux sessions, seat rows, seat states. */
function state(): string {
  const sessions = w.world
    .sessions()
    .map((s) => `${s.id} ${s.name} ${s.seat}`)
    .sort();
  const seats = w.engine.store.rigs.seats().map((s) => `${s.seat} ${s.stoppedOnPurpose} ${s.conversationId}`);
  const live = w.engine.store.rigs
    .seats()
    .map((s) => `${s.seat} ${w.engine.store.sessions.live(s.seat)?.paneId ?? '-'}`);
  return JSON.stringify({ sessions, seats, live });
}

function httpGet(
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((res, rej) => {
    const r = request({ host: '127.0.0.1', port: w.serve.port, path, headers }, (resp) => {
      let body = '';
      resp.on('data', (d) => (body += d));
      resp.on('end', () => res({ status: resp.statusCode ?? 0, body, headers: resp.headers }));
    });
    r.on('error', rej);
    r.end();
  });
}

function refusedWith(url: string, headers: Record<string, string>): Promise<number> {
  const c = new WireClient(url, headers);
  return new Promise((res) => {
    c.ws.once('unexpected-response', (_q, r) => res(r.statusCode ?? 0));
    c.ws.once('open', () => res(101));
    c.ws.once('error', () => res(-1));
  });
}

describe('serve host: who may connect', () => {
  it('listens on 127.0.0.1 only and prints a URL with the per-start token', () => {
    expect(w.serve.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${w.serve.port}/\\?token=[0-9a-f]{48}$`));
  });

  it('a WebSocket without the token, with a wrong token or from a foreign origin is refused', async () => {
    const base = `ws://127.0.0.1:${w.serve.port}/ws`;
    const origin = { origin: `http://127.0.0.1:${w.serve.port}` };
    expect(await refusedWith(base, origin)).toBe(401);
    expect(await refusedWith(`${base}?token=${'0'.repeat(48)}`, origin)).toBe(401);
    expect(await refusedWith(`${base}?token=${w.serve.token}`, { origin: 'http://evil.example' })).toBe(403);
    expect(
      await refusedWith(`${base}?token=${w.serve.token}`, {
        origin: `http://127.0.0.1:${w.serve.port}`,
        host: `evil.example:${w.serve.port}`,
      }),
    ).toBe(404);
    expect(await refusedWith(`ws://127.0.0.1:${w.serve.port}/other?token=${w.serve.token}`, origin)).toBe(404);
  });

  it('static files: the renderer with a CSP; no escape from the folder; a rebinding Host is refused', async () => {
    const index = await httpGet('/');
    expect(index.status).toBe(200);
    expect(index.body).toContain('<div id="root">');
    expect(String(index.headers['content-security-policy'])).toContain("default-src 'self'");
    for (const p of ['/../../../../etc/passwd', '/%2e%2e/%2e%2e/etc/passwd', '/..%2f..%2fetc%2fpasswd'])
      expect((await httpGet(p)).status, p).not.toBe(200);
    expect((await httpGet('/', { host: 'attacker.example' })).status).toBe(421);
  });
});

describe('the contract over the WebSocket rejects bad messages without a crash or a state change', () => {
  it('wrong types, unknown channels, a seat that does not exist, non-JSON: error data, state unchanged', async () => {
    const c = await WireClient.open(w.serve);
    const before = state();
    expect(await c.call('launch', { seat: 7 })).toMatchObject({ ok: false, code: 'BAD_USAGE' });
    expect(await c.call('terminal.open', { seat: 'lead@wire', cols: 'wide', rows: 10 })).toMatchObject({
      ok: false,
      code: 'BAD_USAGE',
    });
    expect(await c.call('terminal.resize', { term: 1, cols: 80, rows: 24 })).toMatchObject({
      ok: false,
      code: 'BAD_USAGE',
    });
    expect(await c.call('no.such.channel', {})).toMatchObject({ ok: false, code: 'BAD_USAGE' });
    expect(await c.call('__proto__', {})).toMatchObject({ ok: false, code: 'BAD_USAGE' });
    expect(await c.call('constructor', {})).toMatchObject({ ok: false, code: 'BAD_USAGE' });
    for (const m of ['stop', 'launch', 'attach', 'capture'])
      expect(await c.call(m, { seat: 'ghost@wire' }), m).toMatchObject({ ok: false, code: 'SEAT_NOT_FOUND' });
    expect(await c.call('send', { seat: 'ghost@wire', text: 'rm -rf /' })).toMatchObject({
      ok: false,
      code: 'SEAT_NOT_FOUND',
    });
    expect(await c.call('terminal.open', { seat: 'ghost@wire', cols: 80, rows: 24 })).toMatchObject({
      ok: false,
      code: 'SEAT_NOT_FOUND',
    });
    expect(await c.call('open', { link: 'rigdesk://seat/wire/ghost' })).toMatchObject({
      ok: false,
      code: 'SEAT_NOT_FOUND',
    });
    expect(await c.call('open', { link: 'https://evil.example/seat/wire/lead' })).toMatchObject({
      ok: false,
      code: 'BAD_USAGE',
    });
    // Writing a program onto the person's PATH is for the CLI and the app's menu, not a window.
    expect(await c.call('shim.install', { dir: '/tmp/rd-should-not-exist' })).toMatchObject({
      ok: false,
      code: 'BAD_USAGE',
      message: expect.stringMatching(/not available to a window/),
    });
    expect(existsSync('/tmp/rd-should-not-exist')).toBe(false);
    c.ws.send('{not json');
    expect((await c.next((m) => m.id === null)).result).toMatchObject({ ok: false, code: 'BAD_USAGE' });
    c.ws.send(JSON.stringify({ id: 'x', method: 'ps' }));
    expect((await c.next((m) => m.id === null)).result).toMatchObject({ ok: false, code: 'BAD_USAGE' });
    expect(state()).toBe(before);
    expect(await c.call('ps', {})).toMatchObject({ ok: true });
    c.close();
  });

  it('oversized payloads: a large message gets an error answer; a huge frame closes only that socket', async () => {
    const c = await WireClient.open(w.serve);
    const before = state();
    c.ws.send(
      JSON.stringify({
        id: 99,
        method: 'send',
        params: { seat: 'lead@wire', text: 'x'.repeat(MAX_TEXT_MESSAGE + 10) },
      }),
    );
    expect((await c.next((m) => m.id === null)).result).toMatchObject({
      ok: false,
      code: 'BAD_USAGE',
      message: expect.stringMatching(/too large/),
    });
    c.ws.send(Buffer.alloc(9 * 1024 * 1024, 0x41));
    await new Promise<void>((r) => c.ws.once('close', () => r()));
    expect(state()).toBe(before);
    const again = await WireClient.open(w.serve);
    expect(await again.call('ps', {})).toMatchObject({ ok: true });
    again.close();
  });

  it('garbage binary frames and frames for terminals of another connection are dropped', async () => {
    const a = await WireClient.open(w.serve);
    const b = await WireClient.open(w.serve);
    const opened = await a.call('terminal.open', { seat: 'lead@wire', cols: 80, rows: 24 });
    expect(opened).toMatchObject({ ok: true });
    const before = w.world.tmux.capture(w.engine.store.sessions.live('lead@wire')!.paneId);
    for (const f of [Buffer.from([9, 0, 0, 0, 1, 65]), Buffer.from([2, 0, 0]), Buffer.from([3, 0, 0, 0, 1, 1])])
      b.ws.send(f);
    b.ws.send(encodeFrame(FRAME.INPUT, opened.term, new TextEncoder().encode('echo INTRUDER\r')));
    b.ws.send(encodeAck(opened.term, 1e9));
    await new Promise((r) => setTimeout(r, 500));
    expect(w.world.tmux.capture(w.engine.store.sessions.live('lead@wire')!.paneId)).not.toContain('INTRUDER');
    expect(before).not.toContain('INTRUDER');
    expect(await b.call('terminal.close', { term: opened.term })).toMatchObject({ ok: false });
    expect(await a.call('terminal.close', { term: opened.term })).toMatchObject({ ok: true });
    a.close();
    b.close();
  });

  it('one connection holds at most MAX_TERMINALS_PER_CONNECTION live terminals: the next (also in a burst) is refused with TERMINAL_LIMIT, another connection still opens one, and a closed one frees its place', async () => {
    const a = await WireClient.open(w.serve);
    const b = await WireClient.open(w.serve);
    try {
      // A burst of 33 attaches (each a pty and a tmux client) takes seconds on a loaded 2-core machine.
      const open = (c: WireClient) => c.call('terminal.open', { seat: 'lead@wire', cols: 80, rows: 24 }, 60_000);
      // All asked at once, one more than the cap: opens under way count, so exactly one is refused.
      const burst = await Promise.all(Array.from({ length: MAX_TERMINALS_PER_CONNECTION + 1 }, () => open(a)));
      const refused = burst.filter((r) => !r.ok);
      expect(refused).toHaveLength(1);
      expect(refused[0]).toMatchObject({
        code: 'TERMINAL_LIMIT',
        message: expect.stringContaining(String(MAX_TERMINALS_PER_CONNECTION)),
        hint: expect.any(String),
      });
      expect(await open(b)).toMatchObject({ ok: true });
      const first = burst.find((r) => r.ok)!;
      expect(await a.call('terminal.close', { term: first.term })).toMatchObject({ ok: true });
      expect(await open(a)).toMatchObject({ ok: true });
      expect(await open(a)).toMatchObject({ ok: false, code: 'TERMINAL_LIMIT' });
    } finally {
      // Closed connections free their terminals: a failure here leaves none to the next case.
      a.close();
      b.close();
    }
  }, 180_000);

  it('property: random payloads to every channel never crash the host or change state', async () => {
    const c = await WireClient.open(w.serve);
    const before = state();
    const channels = [...METHODS, ...Object.keys(WINDOW_REQUESTS), 'nope', '__proto__', 'terminal.', ''];
    const payload = fc.oneof(
      fc.jsonValue(),
      fc.record(
        {
          seat: fc.oneof(fc.string(), fc.jsonValue()),
          text: fc.string(),
          cols: fc.integer(),
          rows: fc.integer(),
          term: fc.integer(),
        },
        { requiredKeys: [] },
      ),
      fc.record(
        {
          rig: fc.oneof(fc.string(), fc.jsonValue()),
          link: fc.string(),
          id: fc.integer(),
          choice: fc.string(),
          reason: fc.string(),
        },
        { requiredKeys: [] },
      ),
      fc.record({ spec: fc.string({ minLength: 1 }).map((s) => `/nonexistent-rigdesk-app/${s}`) }),
    );
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...channels), payload, fc.boolean(), async (method, params, raw) => {
        n++;
        if (raw) {
          // Not even the envelope is right: params at the top level, or a bare value.
          c.ws.send(JSON.stringify(params ?? null));
          const ans = await c.next((m) => 'id' in m && (m.id === null || typeof m.id === 'number'));
          expect(ans.result.ok === false || ans.result.ok === true).toBe(true);
          return;
        }
        const r = await c.call(method, params);
        expect(typeof r.ok).toBe('boolean');
        if (!r.ok) expect(typeof r.code).toBe('string');
        if (method === 'terminal.open' && r.ok) await c.call('terminal.close', { term: r.term });
      }),
      { numRuns: 300 },
    );
    expect(n).toBeGreaterThanOrEqual(300);
    expect(state()).toBe(before);
    expect(w.serve.ctx.terminals.count).toBe(0);
    expect(await c.call('ps', {})).toMatchObject({ ok: true });
    c.close();
  });
});

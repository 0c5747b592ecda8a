import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closedPort, type FakeModelServer, sandboxNetworkEnv, startFakeModelServer } from './fake-model-server';
import { get, post } from './sse-client';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
async function start(opts?: Parameters<typeof startFakeModelServer>[0]): Promise<FakeModelServer> {
  const s = await startFakeModelServer(opts);
  cleanups.push(() => s.close());
  return s;
}

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = connect(port, '127.0.0.1');
    sock.once('connect', () => {
      sock.destroy();
      resolve(false);
    });
    sock.once('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'ECONNREFUSED'));
  });
}

describe('fake server: lifecycle, logging and network helpers', () => {
  it('listens on 127.0.0.1 on a free port by default, and its url says so', async () => {
    const s = await start();
    expect(s.port).toBeGreaterThan(0);
    expect(s.url).toBe(`http://127.0.0.1:${s.port}`);
  });

  it('logs every request with method, path, remote address, host, user-agent, route and trigger, also as JSON lines', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rd-fake-log-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const logFile = join(dir, 'requests.jsonl');
    const s = await start({ logFile });
    await (
      await post(
        `${s.url}/v1/messages?beta=true`,
        { messages: [{ role: 'user', content: 'hi' }] },
        { headers: { 'content-type': 'application/json', 'user-agent': 'probe/1' } },
      )
    ).json();
    await (await fetch(`${s.url}/v1/models`)).json();
    await (await fetch(`${s.url}/nope`)).text();
    expect(s.requests).toHaveLength(3);
    expect(s.requests[0]).toMatchObject({
      method: 'POST',
      path: '/v1/messages?beta=true',
      host: `127.0.0.1:${s.port}`,
      userAgent: 'probe/1',
      route: 'messages',
      trigger: 'ack',
    });
    expect(s.requests.map((r) => r.route)).toEqual(['messages', 'models', 'not_found']);
    for (const r of s.requests) {
      expect(['127.0.0.1', '::ffff:127.0.0.1']).toContain(r.remoteAddress);
      expect(typeof r.at).toBe('number');
    }
    const lines = readFileSync(logFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual(JSON.parse(JSON.stringify(s.requests)));
  });

  it('GET /v1/models lists models and GET /v1/models/<id> describes one; unknown routes get 404', async () => {
    const s = await start();
    const list = await (await fetch(`${s.url}/v1/models`)).json();
    expect(get(list, 'data', 0, 'id')).toBeTypeOf('string');
    const one = await (await fetch(`${s.url}/v1/models/claude-fake`)).json();
    expect(one).toMatchObject({ id: 'claude-fake' });
    const missing = await fetch(`${s.url}/v2/whatever`, { method: 'POST', body: '{}' });
    expect(missing.status).toBe(404);
    await missing.text();
  });

  it('answers 400 to a body that is not JSON', async () => {
    const s = await start();
    const res = await fetch(`${s.url}/v1/messages`, { method: 'POST', body: '{not json' });
    expect(res.status).toBe(400);
    await res.text();
    expect(s.requests.at(-1)!.trigger).toBe('bad_json');
  });

  it('close() ends open SLOW and WAIT streams promptly', async () => {
    const s = await startFakeModelServer({ slowMs: 30_000, waitMs: 30_000 });
    const slow = await post(`${s.url}/v1/messages`, { stream: true, messages: [{ role: 'user', content: 'SLOW' }] });
    const wait = await post(`${s.url}/v1/responses`, { stream: true, input: 'WAIT' });
    expect([slow.status, wait.status]).toEqual([200, 200]);
    const drain = (r: Response) =>
      r.text().then(
        () => 'ended',
        () => 'errored',
      );
    const ends = Promise.all([drain(slow), drain(wait)]);
    const t0 = Date.now();
    await s.close();
    const outcome = await ends;
    expect(Date.now() - t0).toBeLessThan(2_000);
    expect(outcome).toHaveLength(2);
    expect(await refused(s.port)).toBe(true);
  });

  it('closedPort() returns a 127.0.0.1 port that refuses connections', async () => {
    const port = await closedPort();
    expect(port).toBeGreaterThan(0);
    expect(await refused(port)).toBe(true);
  });

  it('sandboxNetworkEnv() points all four proxy variables at the closed port and exempts only localhost', () => {
    expect(sandboxNetworkEnv(4242)).toEqual({
      HTTPS_PROXY: 'http://127.0.0.1:4242',
      HTTP_PROXY: 'http://127.0.0.1:4242',
      https_proxy: 'http://127.0.0.1:4242',
      http_proxy: 'http://127.0.0.1:4242',
      NO_PROXY: '127.0.0.1,localhost',
      no_proxy: '127.0.0.1,localhost',
    });
  });
});

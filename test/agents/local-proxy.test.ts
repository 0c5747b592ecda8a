/**
 * The tests' loopback-only forward proxy (the one Qwen Code is pointed at, since it ignores
 * NO_PROXY): it must reach a server on 127.0.0.1 through CONNECT and absolute-URI requests, and
 * refuse every other host without connecting anywhere.
 */
import { createServer, request, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLoopbackHost, proxyTarget, startLocalProxy, type LocalProxy } from './local-proxy';

function rawConnect(proxyPort: number, target: string, then?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(proxyPort, '127.0.0.1', () => s.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`));
    let buf = '';
    let sent = false;
    s.on('data', (d) => {
      buf += d.toString();
      if (!sent && then && buf.startsWith('HTTP/1.1 200') && buf.includes('\r\n\r\n')) {
        sent = true;
        s.write(then);
      }
    });
    s.on('end', () => resolve(buf));
    s.on('close', () => resolve(buf));
    s.on('error', reject);
    setTimeout(() => {
      s.destroy();
      resolve(buf);
    }, 3000);
  });
}

function viaProxy(proxyPort: number, url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const r = request(
      { host: '127.0.0.1', port: proxyPort, method: 'GET', path: url, headers: { host: new URL(url).host } },
      (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    r.on('error', reject);
    r.end();
  });
}

describe('local proxy: reaches 127.0.0.1 only', () => {
  let target: Server;
  let port: number;
  let proxy: LocalProxy;
  beforeAll(async () => {
    target = createServer((_req, res) => res.end('hello from loopback'));
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    port = (target.address() as AddressInfo).port;
    proxy = await startLocalProxy();
  });
  afterAll(async () => {
    await proxy.close();
    await new Promise((r) => target.close(r));
  });

  it('tunnels CONNECT to a server on 127.0.0.1', async () => {
    const out = await rawConnect(
      proxy.port,
      `127.0.0.1:${port}`,
      `GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
    );
    expect(out).toMatch(/^HTTP\/1\.1 200 Connection Established/);
    expect(out).toContain('hello from loopback');
  });

  it('forwards an absolute-URI request to localhost', async () => {
    expect(await viaProxy(proxy.port, `http://localhost:${port}/x`)).toEqual({
      status: 200,
      body: 'hello from loopback',
    });
  });

  it('refuses CONNECT and absolute-URI requests to any other host, and logs them', async () => {
    const before = proxy.denied().length;
    expect(await rawConnect(proxy.port, 'example.com:443')).toMatch(/^HTTP\/1\.1 403/);
    expect(await rawConnect(proxy.port, '10.0.0.1:443')).toMatch(/^HTTP\/1\.1 403/);
    expect((await viaProxy(proxy.port, 'http://example.com/')).status).toBe(403);
    expect(proxy.denied().slice(before)).toEqual([
      { method: 'CONNECT', target: 'example.com:443' },
      { method: 'CONNECT', target: '10.0.0.1:443' },
      { method: 'GET', target: 'http://example.com/' },
    ]);
  });

  it('reads targets strictly: a host that merely starts with 127.0.0.1 is not loopback', () => {
    expect(proxyTarget('CONNECT', '127.0.0.1.evil.example:443')).toEqual({ host: '127.0.0.1.evil.example', port: 443 });
    expect(isLoopbackHost('127.0.0.1.evil.example')).toBe(false);
    expect(proxyTarget('GET', 'https://127.0.0.1/')).toBeUndefined();
    expect(isLoopbackHost('LOCALHOST')).toBe(true);
  });
});

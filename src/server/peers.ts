import { networkInterfaces } from 'node:os';

/** A peer's address as Node gives it, without the IPv4-mapped prefix (`::ffff:127.0.0.2`). */
export const peerAddress = (raw: string | undefined): string =>
  (raw ?? '').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');

/** Loopback addresses: what counts as this machine unless a test says otherwise. */
export const isLoopback = (address: string): boolean => /^127\.\d+\.\d+\.\d+$/.test(address) || address === '::1';

export interface ListenAddress {
  host: string;
  port: number;
}

/** `--listen <address:port>`: an IPv4 address, `[v6]:port`, or a host name, and a port (0: a free one). */
export function parseListen(raw: string): ListenAddress | undefined {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/.exec(raw.trim());
  if (!m) return undefined;
  const port = Number(m[3]);
  if (!Number.isInteger(port) || port > 65535) return undefined;
  return { host: m[1] ?? m[2]!, port };
}

const WILDCARD = new Set(['0.0.0.0', '::', '[::]']);

/**
 * The base URL a device is given: `publicUrl` when the person named one (the name a certificate
 * is for, e.g. from `tailscale cert`), else the address listened on, or for a wildcard the
 * machine's first non-loopback IPv4 address.
 */
export function deviceBaseUrl(listen: ListenAddress, port: number, tls: boolean, publicUrl?: string): string {
  if (publicUrl) return publicUrl.replace(/\/+$/, '');
  let host = listen.host;
  if (WILDCARD.has(host)) {
    const v4 = Object.values(networkInterfaces())
      .flat()
      .find((i) => i && i.family === 'IPv4' && !i.internal);
    host = v4?.address ?? '127.0.0.1';
  }
  const shown = host.includes(':') ? `[${host}]` : host;
  return `${tls ? 'https' : 'http'}://${shown}:${port}`;
}

/** The one cookie a paired device holds. */
export const DEVICE_COOKIE = 'rigdesk_device';

/** A cookie's value from a Cookie header (the first of that name), undefined when absent. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** httpOnly (no script reads it), SameSite=Strict (no other site's page sends it), Secure over TLS. */
export function deviceCookie(token: string, tls: boolean): string {
  return `${DEVICE_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=31536000${tls ? '; Secure' : ''}`;
}

import type { DeviceRow } from '../../../shared/contract/devices';
import { fail, type Result } from '../../../shared/errors';
import type { Clock } from '../deps';
import type { Store } from '../store';
import { hashOf, newCode, newDeviceId, newToken, normalCode, secretMatches, showCode, tokenParts } from './codes';

export const PAIR_TTL_MS = 10 * 60_000;
/** Wrong codes allowed in one minute; the next closes pairing until the next `devices pair`. */
export const WRONG_CODES_PER_MINUTE = 5;
/** A device's last-seen row is written at most this often (every request would be a write). */
const SEEN_EVERY_MS = 15_000;

export type DevicesPorts = { store: Store; clock: Clock };

/** A device a request came from, once its token is proven. */
export interface DeviceSeen {
  id: string;
  name: string;
}

/** Who is told when a device is revoked (the hosts holding its connections); answers how many it closed. */
type RevokeListener = (id: string) => number;

/**
 * Pairing and device tokens. Codes and tokens are random; the store keeps their hashes only. The
 * throttle and the listening URL live in this engine's memory: pairing happens against the engine
 * that serves the window, and closing pairing also ends every open code in the store.
 */
export class Devices {
  private listening: string | undefined;
  private wrongAt: number[] = [];
  private closed = false;
  private readonly revokeListeners = new Set<RevokeListener>();
  private readonly seenAt = new Map<string, number>();
  private connectionCount: (id: string) => number = () => 0;

  constructor(private readonly ports: DevicesPorts) {}

  /** The base URL devices reach this engine's window at (`serve --listen`), or none. */
  listenAt(url: string | undefined): void {
    this.listening = url?.replace(/\/+$/, '');
  }

  /** The host of the connections tells how many each device has open (for lists). */
  countConnections(fn: (id: string) => number): void {
    this.connectionCount = fn;
  }

  onRevoke(fn: RevokeListener): () => void {
    this.revokeListeners.add(fn);
    return () => void this.revokeListeners.delete(fn);
  }

  pair(name?: string): Result<{ code: string; url: string; expiresAt: number }> {
    if (!this.listening)
      return fail('DEVICES_NOT_LISTENING', 'no window is open beyond this machine, so no device can reach it', {
        hint: 'Start `rigdesk serve --listen <address:port>` (with --tls-cert/--tls-key, or behind Tailscale or an SSH tunnel), then pair.',
      });
    const code = newCode();
    const expiresAt = this.ports.clock.now() + PAIR_TTL_MS;
    this.ports.store.devices.addPairing(hashOf(code), name ?? null, expiresAt - PAIR_TTL_MS, expiresAt);
    this.closed = false;
    this.wrongAt = [];
    return { ok: true, code: showCode(code), url: `${this.listening}/pair/${code}`, expiresAt };
  }

  /** The first use of a code: a new device and the token it will hold (shown once, never stored). */
  redeem(raw: string, address: string): Result<{ device: DeviceSeen; token: string }> {
    if (this.closed)
      return fail('PAIRING_CLOSED', 'pairing is closed after too many wrong codes', {
        hint: 'Run `rigdesk devices pair` again on the machine that serves the window.',
      });
    const code = normalCode(raw);
    const row = code ? this.ports.store.devices.pairing(hashOf(code)) : undefined;
    if (!code || !row) return this.wrong(address);
    if (row.usedAt !== null)
      return fail('PAIR_CODE_USED', 'this pairing code was used already', {
        hint: 'Run `rigdesk devices pair` for a new one.',
      });
    if (row.expiresAt <= this.ports.clock.now())
      return fail('PAIR_CODE_EXPIRED', 'this pairing code has expired', {
        hint: 'Run `rigdesk devices pair` for a new one.',
      });
    const id = newDeviceId();
    const { token, hash } = newToken(id);
    const name = row.name ?? `device ${id}`;
    if (
      !this.ports.store.devices.redeem(
        row.codeHash,
        { id, name, tokenHash: hash, pairedFrom: address },
        this.ports.clock.now(),
      )
    )
      return fail('PAIR_CODE_USED', 'this pairing code was used already', {
        hint: 'Run `rigdesk devices pair` for a new one.',
      });
    this.ports.store.events.append('device.paired', {}, { device: id, name, address });
    this.seen(id, address);
    return { ok: true, device: { id, name }, token };
  }

  private wrong(address: string): Result<never> {
    const now = this.ports.clock.now();
    this.wrongAt = [...this.wrongAt.filter((t) => now - t < 60_000), now];
    if (this.wrongAt.length > WRONG_CODES_PER_MINUTE) {
      this.closed = true;
      const ended = this.ports.store.devices.closeOpenPairings(now);
      this.ports.store.events.append('device.pairing_closed', {}, { address, wrongCodes: this.wrongAt.length, ended });
      return fail('PAIRING_CLOSED', 'too many wrong pairing codes: pairing is closed', {
        hint: 'Run `rigdesk devices pair` again on the machine that serves the window.',
      });
    }
    return fail('PAIR_CODE_UNKNOWN', 'no such pairing code', {
      hint: 'Check the URL, or run `rigdesk devices pair` again.',
    });
  }

  /** The device a token proves, or undefined (unknown, wrong secret, revoked). Records when it was seen. */
  authenticate(token: string | undefined, address: string): DeviceSeen | undefined {
    const parts = token ? tokenParts(token) : undefined;
    if (!parts) return undefined;
    const row = this.ports.store.devices.get(parts.id);
    if (!row || row.revokedAt !== null || !secretMatches(parts.secret, row.tokenHash)) return undefined;
    if (row.lastAddress !== address) this.seenAt.delete(row.id);
    this.seen(row.id, address);
    return { id: row.id, name: row.name };
  }

  /** A device was heard from (a request, a message on its connection): its row, every 15 s at most. */
  seen(id: string, address: string): void {
    const now = this.ports.clock.now();
    if (now - (this.seenAt.get(id) ?? Number.NEGATIVE_INFINITY) < SEEN_EVERY_MS) return;
    this.seenAt.set(id, now);
    this.ports.store.devices.seen(id, address, now);
  }

  list(): { listening: string | null; devices: DeviceRow[] } {
    return {
      listening: this.listening ?? null,
      devices: this.ports.store.devices.all().map((r) => ({
        id: r.id,
        name: r.name,
        pairedAt: r.pairedAt,
        pairedFrom: r.pairedFrom,
        lastSeenAt: r.lastSeenAt,
        lastAddress: r.lastAddress,
        revokedAt: r.revokedAt,
        connections: r.revokedAt === null ? this.connectionCount(r.id) : 0,
      })),
    };
  }

  revoke(id: string): Result<{ id: string; name: string; closed: number }> {
    const row = this.ports.store.devices.get(id);
    if (!row) return fail('DEVICE_NOT_FOUND', `no device ${id}`, { hint: '`rigdesk devices` lists them.' });
    if (this.ports.store.devices.revoke(id, this.ports.clock.now()))
      this.ports.store.events.append('device.revoked', {}, { device: id, name: row.name });
    let closed = 0;
    for (const fn of this.revokeListeners) closed += fn(id);
    return { ok: true, id, name: row.name, closed };
  }
}

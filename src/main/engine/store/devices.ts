import type { Db } from './db';

export interface DeviceRow {
  id: string;
  name: string;
  tokenHash: string;
  pairedAt: number;
  pairedFrom: string | null;
  lastSeenAt: number | null;
  lastAddress: string | null;
  revokedAt: number | null;
}

export interface PairingRow {
  codeHash: string;
  name: string | null;
  expiresAt: number;
  usedAt: number | null;
}

type RawDevice = {
  id: string;
  name: string;
  token_hash: string;
  paired_at: number;
  paired_from: string | null;
  last_seen_at: number | null;
  last_address: string | null;
  revoked_at: number | null;
};

const device = (r: RawDevice): DeviceRow => ({
  id: r.id,
  name: r.name,
  tokenHash: r.token_hash,
  pairedAt: r.paired_at,
  pairedFrom: r.paired_from,
  lastSeenAt: r.last_seen_at,
  lastAddress: r.last_address,
  revokedAt: r.revoked_at,
});

/**
 * Devices and pairing codes, by hash only (devices/ decides; this only reads and writes rows).
 * Every time is the caller's: expiry is decided on the engine's clock port, so a test's clock moves it.
 */
export class DeviceRepo {
  constructor(private readonly db: Db) {}

  addPairing(codeHash: string, name: string | null, now: number, expiresAt: number): void {
    this.db
      .prepare('INSERT INTO device_pairings (code_hash, name, created_at, expires_at) VALUES (?, ?, ?, ?)')
      .run(codeHash, name, now, expiresAt);
  }

  pairing(codeHash: string): PairingRow | undefined {
    const r = this.db
      .prepare('SELECT code_hash, name, expires_at, used_at FROM device_pairings WHERE code_hash = ?')
      .get(codeHash) as
      | { code_hash: string; name: string | null; expires_at: number; used_at: number | null }
      | undefined;
    return r && { codeHash: r.code_hash, name: r.name, expiresAt: r.expires_at, usedAt: r.used_at };
  }

  /** Every code not yet used ends now (pairing closed by the throttle). */
  closeOpenPairings(t: number): number {
    return this.db
      .prepare('UPDATE device_pairings SET expires_at = ? WHERE used_at IS NULL AND expires_at > ?')
      .run(t, t).changes;
  }

  /** Uses the code and adds its device in one transaction: a code is used once, whoever races. */
  redeem(codeHash: string, d: Pick<DeviceRow, 'id' | 'name' | 'tokenHash' | 'pairedFrom'>, t: number): boolean {
    return this.db.transaction(() => {
      const used = this.db
        .prepare(
          'UPDATE device_pairings SET used_at = ?, device_id = ? WHERE code_hash = ? AND used_at IS NULL AND expires_at > ?',
        )
        .run(t, d.id, codeHash, t).changes;
      if (used !== 1) return false;
      this.db
        .prepare('INSERT INTO devices (id, name, token_hash, paired_at, paired_from) VALUES (?, ?, ?, ?, ?)')
        .run(d.id, d.name, d.tokenHash, t, d.pairedFrom);
      return true;
    })();
  }

  get(id: string): DeviceRow | undefined {
    const r = this.db.prepare('SELECT * FROM devices WHERE id = ?').get(id) as RawDevice | undefined;
    return r && device(r);
  }

  all(): DeviceRow[] {
    return (this.db.prepare('SELECT * FROM devices ORDER BY paired_at, id').all() as RawDevice[]).map(device);
  }

  seen(id: string, address: string, t: number): void {
    this.db.prepare('UPDATE devices SET last_seen_at = ?, last_address = ? WHERE id = ?').run(t, address, id);
  }

  revoke(id: string, t: number): boolean {
    return (
      this.db.prepare('UPDATE devices SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(t, id).changes === 1
    );
  }
}

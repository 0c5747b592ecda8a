import { type HostSpec, hostSpec } from '../../../shared/contract/hosts';
import type { Db } from './db';

/** A recorded spec, read back through its schema rather than trusted as one. */
const specOf = (json: string): HostSpec => hostSpec.parse(JSON.parse(json));

export interface HostRow {
  name: string;
  spec: HostSpec;
  source: string;
  updatedAt: number;
}

/** Known remote hosts. `local` is never stored: it is always there. */
export class HostRepo {
  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {}

  upsert(spec: HostSpec, source: string): void {
    const t = this.now();
    this.db
      .prepare(`INSERT INTO hosts (name, spec_json, source, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT(name) DO UPDATE SET spec_json = excluded.spec_json, source = excluded.source, updated_at = excluded.updated_at`)
      .run(spec.name, JSON.stringify(spec), source, t, t);
  }

  get(name: string): HostRow | undefined {
    const r = this.db.prepare('SELECT * FROM hosts WHERE name = ?').get(name) as
      | { name: string; spec_json: string; source: string; updated_at: number }
      | undefined;
    return r && { name: r.name, spec: specOf(r.spec_json), source: r.source, updatedAt: r.updated_at };
  }

  /** The last recorded health of a host (from the event log), to record only transitions. */
  lastHealth(name: string): 'reachable' | 'unreachable' | undefined {
    const r = this.db
      .prepare(
        `SELECT kind FROM events WHERE kind IN ('host.reachable', 'host.unreachable') AND json_extract(data_json, '$.host') = ? ORDER BY seq DESC LIMIT 1`,
      )
      .get(name) as { kind: string } | undefined;
    return r ? (r.kind === 'host.reachable' ? 'reachable' : 'unreachable') : undefined;
  }

  all(): HostRow[] {
    return (
      this.db.prepare('SELECT * FROM hosts ORDER BY name').all() as {
        name: string;
        spec_json: string;
        source: string;
        updated_at: number;
      }[]
    ).map((r) => ({
      name: r.name,
      spec: specOf(r.spec_json),
      source: r.source,
      updatedAt: r.updated_at,
    }));
  }
}

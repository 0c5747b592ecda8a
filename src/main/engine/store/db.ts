import Database from 'better-sqlite3';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { MIGRATIONS, type Migration } from './migrations';
import { sqliteNativeBinding } from '../sqlite-binding';

export type Db = Database.Database;

/**
 * Opens the store: WAL so the app, the CLI and `rigdesk serve` can read while one writes, a busy
 * timeout so two engines racing on the create fence wait instead of failing, and foreign keys on.
 */
export function openDb(path: string, migrations: readonly Migration[] = MIGRATIONS): Db {
  if (path !== ':memory:') {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    // Made 0600 before SQLite opens it: SQLite gives the -wal and -shm files the database's mode,
    // and the event log holds previews of what was sent.
    closeSync(openSync(path, 'a', 0o600));
  }
  const db = new Database(path, { nativeBinding: sqliteNativeBinding() });
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 10000');
  db.pragma('foreign_keys = ON');
  db.pragma('synchronous = NORMAL');
  reusePrepared(db);
  migrate(db, migrations);
  return db;
}

/** How many compiled statements one connection keeps (the engine's SQL has a few hundred shapes). */
const PREPARED_MAX = 1024;

/**
 * `db.prepare(sql)` gives back one compiled statement per SQL text for the connection's life: the
 * repositories prepare where they query, and compiling anew each call took 3.3 ms a seat in a
 * profiled 200-seat restore. Sharing is safe because nothing changes a statement's mode
 * (pluck, raw, expand) or iterates one (test/store/prepared.test.ts holds the code to that);
 * SQLite recompiles a kept statement itself when a migration changes the schema under it.
 */
function reusePrepared(db: Db): void {
  const compile = db.prepare.bind(db);
  const kept = new Map<string, Database.Statement>();
  const prepare = (sql: string): Database.Statement => {
    let s = kept.get(sql);
    if (!s) {
      s = compile(sql);
      if (kept.size >= PREPARED_MAX) kept.clear();
      kept.set(sql, s);
    }
    return s;
  };
  // An own property over the class's method: every caller keeps calling db.prepare.
  Object.defineProperty(db, 'prepare', { value: prepare });
}

export function migrate(db: Db, migrations: readonly Migration[]): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`);
  const applied = new Set(
    (db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version),
  );
  const done: number[] = [];
  for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
    if (applied.has(m.version)) continue;
    // IMMEDIATE: two processes opening a fresh store at once must not both apply migration N.
    const tx = db.transaction(() => {
      const again = db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?').get(m.version);
      if (again) return;
      db.exec(m.sql);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
        m.version,
        m.name,
        Date.now(),
      );
      done.push(m.version);
    });
    tx.immediate();
  }
  return done;
}

export function schemaVersion(db: Db): number {
  const row = db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as { v: number | null };
  return row.v ?? 0;
}

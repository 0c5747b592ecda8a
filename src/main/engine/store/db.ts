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
  migrate(db, migrations);
  return db;
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

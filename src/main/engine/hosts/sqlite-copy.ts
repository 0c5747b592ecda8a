import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sqliteNativeBinding } from '../sqlite-binding';

/**
 * A query of a SQLite database that lives on another host (OpenCode's opencode.db), answered from
 * a copy of its file and its write-ahead log as one evidence round read them (the log first, so a
 * checkpoint between the two reads leaves pages no older than the log's). The copy is this
 * engine's own, in a temporary folder removed at once; the host's file is only read. The same
 * bytes give the same rows, so answers are kept for the few latest copies (a refresh of a host
 * whose database did not change opens nothing).
 */
const memo = new Map<string, unknown[]>();
const MEMO_MAX = 16;

export function querySqliteCopy(
  stamps: string,
  db: Buffer,
  wal: Buffer | undefined,
  sql: string,
  params: readonly (string | number)[],
): unknown[] {
  const key = JSON.stringify([stamps, sql, params]);
  const had = memo.get(key);
  if (had) return had;
  const dir = mkdtempSync(join(tmpdir(), 'rigdesk-sqlite-'));
  try {
    const file = join(dir, 'copy.db');
    writeFileSync(file, db, { mode: 0o600 });
    if (wal && wal.length > 0) writeFileSync(`${file}-wal`, wal, { mode: 0o600 });
    const d = new Database(file, { fileMustExist: true, timeout: 2000, nativeBinding: sqliteNativeBinding() });
    try {
      const rows = d.prepare(sql).all(...params) as unknown[];
      memo.set(key, rows);
      if (memo.size > MEMO_MAX) memo.delete(memo.keys().next().value!);
      return rows;
    } finally {
      d.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

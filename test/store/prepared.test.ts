/**
 * The store's connection keeps one compiled statement per SQL text (store/db.ts reusePrepared), on a
 * real SQLite file. Sharing one statement among callers holds only while none of them changes its
 * mode or iterates it, so the engine's source is held to that here.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { type Db, openDb } from '../../src/main/engine/store/db';

let dir: string;
let db: Db;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rd-prepared-'));
  db = openDb(join(dir, 'rigdesk.db'), []);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

it('gives one compiled statement per SQL text, and each call binds its own values', () => {
  db.exec('CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER)');
  const insert = 'INSERT INTO t (k, v) VALUES (?, ?)';
  expect(db.prepare(insert)).toBe(db.prepare(insert));
  db.prepare(insert).run('a', 1);
  db.prepare(insert).run('b', 2);
  const get = 'SELECT v FROM t WHERE k = ?';
  expect(db.prepare(get).get('a')).toEqual({ v: 1 });
  expect(db.prepare(get).get('b')).toEqual({ v: 2 });
});

it('a kept statement still answers after the schema changes under it', () => {
  db.exec('CREATE TABLE t (k TEXT)');
  db.prepare('INSERT INTO t (k) VALUES (?)').run('a');
  const sql = 'SELECT COUNT(*) AS n FROM t';
  expect(db.prepare(sql).get()).toEqual({ n: 1 });
  db.exec('ALTER TABLE t ADD COLUMN v INTEGER; CREATE INDEX t_v ON t(v)');
  db.prepare('INSERT INTO t (k, v) VALUES (?, ?)').run('b', 2);
  expect(db.prepare(sql).get()).toEqual({ n: 2 });
});

function sources(d: string): string[] {
  return readdirSync(d).flatMap((f) => {
    const p = join(d, f);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

it('no engine code changes a shared statement’s mode or iterates one', () => {
  const root = join(__dirname, '..', '..', 'src', 'main');
  const offenders = sources(root).filter((f) =>
    /\.(pluck|raw|expand|iterate|safeIntegers)\(/.test(readFileSync(f, 'utf8')),
  );
  expect(offenders).toEqual([]);
});

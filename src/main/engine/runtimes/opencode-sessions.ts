import Database from 'better-sqlite3';
import { liveFs } from '../deps';
import { join } from 'node:path';
import { sqliteNativeBinding } from '../sqlite-binding';
import type { ConversationClaim, EvidenceIO, LiveProcess } from './types';

/**
 * OpenCode keeps every session of a data dir in one SQLite database,
 * `$XDG_DATA_HOME/opencode/opencode.db` (WAL), table `session` with `id` (`ses_` + 26 chars),
 * `directory` (the cwd it was started in), `parent_id` (set for a subagent's child session),
 * `time_created`/`time_updated` (ms since the epoch). Nothing in it names the process that writes a
 * session, and OpenCode takes no per-session lock (agent-clis-more.md §1.3-1.5).
 */
export const OPENCODE_LAYOUT = {
  dbFile: (dataHome: string): string => join(dataHome, 'opencode', 'opencode.db'),
  sessionId: /^ses_[0-9A-Za-z]{26}$/,
} as const;

export interface OpencodeSessionRow {
  id: string;
  directory: string;
  timeCreated: number;
  timeUpdated: number;
}

/**
 * Reads the top-level sessions of some folders. Read-only, never creating the file: Rigdesk must not
 * write a person's OpenCode database (a read of a WAL database still maps its -shm, as every
 * reader does). Throws when the file is there but cannot be read: custody then fails closed. A
 * host's database is read through `io` (a copy read in the host's evidence round).
 */
export function readOpencodeSessions(
  dataHome: string,
  directories: readonly string[],
  io?: Pick<EvidenceIO, 'querySqlite'>,
): OpencodeSessionRow[] {
  const file = OPENCODE_LAYOUT.dbFile(dataHome);
  if (directories.length === 0) return [];
  const marks = directories.map(() => '?').join(',');
  const sql = `SELECT id, directory, time_created AS timeCreated, time_updated AS timeUpdated FROM session WHERE parent_id IS NULL AND directory IN (${marks}) ORDER BY time_updated DESC`;
  if (io?.querySqlite) return (io.querySqlite(file, sql, directories) ?? []) as OpencodeSessionRow[];
  if (!liveFs.existsSync(file)) return [];
  const db = new Database(file, {
    readonly: true,
    fileMustExist: true,
    timeout: 2000,
    nativeBinding: sqliteNativeBinding(),
  });
  try {
    return db.prepare(sql).all(...directories) as OpencodeSessionRow[];
  } finally {
    db.close();
  }
}

/** One session's row, or undefined (for restore and the journeys: does X exist, where). */
export function findOpencodeSession(
  dataHome: string,
  id: string,
  io?: Pick<EvidenceIO, 'querySqlite'>,
): OpencodeSessionRow | undefined {
  const file = OPENCODE_LAYOUT.dbFile(dataHome);
  const sql =
    'SELECT id, directory, time_created AS timeCreated, time_updated AS timeUpdated FROM session WHERE id = ?';
  if (io?.querySqlite) return io.querySqlite(file, sql, [id])?.[0] as OpencodeSessionRow | undefined;
  if (!liveFs.existsSync(file)) return undefined;
  const db = new Database(file, {
    readonly: true,
    fileMustExist: true,
    timeout: 2000,
    nativeBinding: sqliteNativeBinding(),
  });
  try {
    return db.prepare(sql).get(id) as OpencodeSessionRow | undefined;
  } finally {
    db.close();
  }
}

/** Linux counts process start in clock ticks since boot; user-space ticks are 100 per second. */
const TICKS_PER_SECOND = 100;

/** A process's start as ms since the epoch, from its /proc start ticks and the boot time; undefined elsewhere. */
export function startedAtMs(startTime: string, io: Pick<EvidenceIO, 'readFile'>): number | undefined {
  if (!/^\d+$/.test(startTime)) return undefined;
  let btime: number | undefined;
  try {
    btime = Number(/^btime (\d+)$/m.exec(io.readFile('/proc/stat'))?.[1]);
  } catch {
    return undefined;
  }
  if (!btime) return undefined;
  return btime * 1000 + (Number(startTime) * 1000) / TICKS_PER_SECOND;
}

/**
 * How early a session may look created relative to a process's start and still be that process's:
 * /proc's boot time is whole seconds, and OpenCode takes well over a second to load before it can
 * create a session. A wider margin only makes more processes candidates, which makes custody refuse
 * more, never less.
 */
export const START_SLACK_MS = 1500;

export interface OpencodeSessionClaimInput {
  home: string;
  processes: readonly (LiveProcess & { startedAtMs?: number })[];
  sessions: readonly OpencodeSessionRow[];
}

/**
 * Which live OpenCode wrote which session, where the database and the process table prove it: a
 * top-level session in folder F created after process P started is P's when P is the only live
 * OpenCode of this data dir in F that had started by then. When two had, nothing tells them apart:
 * no claim, and the processes stay "conversation unknown" (custody's doubt refuses for them).
 * A process whose start time cannot be read (not Linux) is a candidate for every session in its
 * folder, so it makes every such session ambiguous rather than someone else's.
 */
export function opencodeSessionClaims({ home, processes, sessions }: OpencodeSessionClaimInput): ConversationClaim[] {
  const claims: ConversationClaim[] = [];
  for (const s of sessions) {
    const creators = processes.filter(
      (p) => p.cwd === s.directory && (p.startedAtMs === undefined || p.startedAtMs - START_SLACK_MS <= s.timeCreated),
    );
    if (creators.length !== 1) continue;
    const p = creators[0]!;
    if (p.startedAtMs === undefined) continue;
    claims.push({
      runtime: 'opencode',
      conversationId: s.id,
      pid: p.pid,
      startTime: p.startTime,
      source: 'argv',
      home,
      detail: `opencode.db: created in ${s.directory} after this process started, when no other live OpenCode of this data dir ran there`,
    });
  }
  return claims;
}

import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { sqliteNativeBinding } from '../sqlite-binding';
import { KindsLedger } from '../runtimes/usage/kinds';
import { num, obj, str, type UsageSink, type UsageTotals } from '../runtimes/usage/records';

/**
 * OpenCode (observed: 1.18.33) keeps its sessions in one SQLite database per data dir. Each model
 * call of a session ends in a `part` row (`session_id`, JSON `data`) of type `step-finish` whose
 * `tokens` are that call's: `input` (without the cached part), `cache.read`, `cache.write`,
 * `output`, `reasoning`. (The assistant message's own `tokens` keep only its last step.) No context
 * window is recorded: OpenCode takes it from its model catalogue or from config that may live in
 * several places, none of them this database.
 */
export function opencodeSink(): UsageSink {
  let tokensIn = 0;
  let tokensOut = 0;
  let last: Pick<UsageTotals, 'contextTokens' | 'model'> | undefined;
  const ledger = new KindsLedger();
  return {
    needles: ['step-finish'],
    take(record) {
      const r = obj(record);
      const t = obj(r?.tokens);
      if (r?.type !== 'step-finish' || !t) return;
      const cache = obj(t.cache);
      const input = num(t.input) + num(cache?.read) + num(cache?.write);
      const output = num(t.output);
      tokensIn += input;
      tokensOut += output + num(t.reasoning);
      // The model is its message's (`providerID/modelID`), joined to the part by the query.
      const model = str(r.model);
      ledger.add(model, {
        input: num(t.input),
        cacheRead: num(cache?.read),
        cacheWrite: num(cache?.write),
        output: output + num(t.reasoning),
      });
      last = { contextTokens: input + output, ...(model ? { model } : {}) };
    },
    totals: () => (last ? { tokensIn, tokensOut, ...last, byModel: ledger.byModel() } : undefined),
  };
}

export interface OpencodeParts {
  /**
   * The session's part rows after `afterRowid` that may be step-finish ones, in insertion order,
   * with the `providerID/modelID` of the assistant message each belongs to, where it names one.
   */
  rows: { rowid: number; data: string; model?: string | null }[];
  /** The session's highest part rowid now (lower than the cursor: parts were removed, e.g. a revert). */
  maxRowid: number;
}

/** Reads a session's parts from the database; injectable so the fold is tested without OpenCode. */
export type OpencodeQuery = (dbFile: string, sessionId: string, afterRowid: number) => OpencodeParts | undefined;

/** A part's message names its model (`providerID`, `modelID` in the message's JSON data). */
const PARTS_WITH_MODEL = `
  SELECT p.rowid AS rowid, p.data AS data,
         json_extract(m.data, '$.providerID') || '/' || json_extract(m.data, '$.modelID') AS model
  FROM part p LEFT JOIN message m ON m.id = p.message_id
  WHERE p.session_id = ? AND p.rowid > ? AND p.data LIKE '%step-finish%' ORDER BY p.rowid`;

/** Read-only, never creating the file (Rigdesk must not write OpenCode's database). */
export const liveOpencodeQuery: OpencodeQuery = (dbFile, sessionId, afterRowid) => {
  if (!existsSync(dbFile)) return undefined;
  const db = new Database(dbFile, {
    readonly: true,
    fileMustExist: true,
    timeout: 2000,
    nativeBinding: sqliteNativeBinding(),
  });
  try {
    const max = db.prepare('SELECT max(rowid) AS m FROM part WHERE session_id = ?').get(sessionId) as
      | { m: number | null }
      | undefined;
    const rows = db.prepare(PARTS_WITH_MODEL).all(sessionId, afterRowid) as OpencodeParts['rows'];
    return { rows, maxRowid: max?.m ?? 0 };
  } finally {
    db.close();
  }
};

/**
 * A session's usage, read a refresh at a time: only the part rows added since the last refresh
 * (by rowid, which SQLite gives in insertion order), from the start again when rows were removed.
 */
export class OpencodeTail {
  private cursor = 0;
  private sink = opencodeSink();

  constructor(
    readonly dbFile: string,
    readonly sessionId: string,
  ) {}

  refresh(query: OpencodeQuery): 'ok' | 'absent' {
    let got = query(this.dbFile, this.sessionId, this.cursor);
    if (!got) return 'absent';
    if (got.maxRowid < this.cursor) {
      this.cursor = 0;
      this.sink = opencodeSink();
      got = query(this.dbFile, this.sessionId, 0);
      if (!got) return 'absent';
    }
    for (const row of got.rows) {
      let data: unknown;
      try {
        data = JSON.parse(row.data);
      } catch {
        continue;
      }
      const o = obj(data);
      this.sink.take(o && row.model ? { ...o, model: row.model } : data);
      this.cursor = Math.max(this.cursor, row.rowid);
    }
    return 'ok';
  }

  totals(): UsageTotals | undefined {
    return this.sink.totals();
  }
}

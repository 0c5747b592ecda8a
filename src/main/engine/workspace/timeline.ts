import type { EventRow } from '../../../shared/contract/engine';
import type { HistoryItem } from '../../../shared/contract/workspace';
import type { Ports } from '../ports';
import { eventRow, type RawEvent } from '../store/events';

/**
 * The newest events first from the log (read only), as the log's own `list` reads oldest first:
 * a seat's timeline and the Decisions history show the last ones, however long the log is.
 */
function newest(ports: Pick<Ports, 'store'>, where: string, args: unknown[], limit: number): EventRow[] {
  const rows = ports.store.db
    .prepare(`SELECT seq, at, kind, rig, seat, data_json FROM events WHERE ${where} ORDER BY seq DESC LIMIT ?`)
    .all(...args, limit) as RawEvent[];
  return rows.map(eventRow);
}

/** The kinds a seat's timeline leaves out: the fence's and the census's steps, which say nothing to a person. */
const QUIET = /^fence\./;

export function seatTimeline(
  ports: Pick<Ports, 'store'>,
  seat: string,
  limit = 200,
  beforeSeq?: number,
): { events: EventRow[]; more: boolean } {
  const where = beforeSeq ? 'seat = ? AND seq < ?' : 'seat = ?';
  const args = beforeSeq ? [seat, beforeSeq] : [seat];
  const rows = newest(ports, where, args, (limit + 1) * 2).filter((e) => !QUIET.test(e.kind));
  return { events: rows.slice(0, limit).reverse(), more: rows.length > limit };
}

const HISTORY_KINDS = ['decision.answered', 'seat.prompt_answered', 'seat.prompt_answer_refused'] as const;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The prompt's first line that names what would run: the tool call is the line after its title. */
function promptLine(data: Record<string, unknown>): string {
  const lines = Array.isArray(data.prompt) ? data.prompt.filter((l): l is string => typeof l === 'string') : [];
  const shown = lines.map((l) => l.trim()).filter((l) => l && !/^[─━-]+$/.test(l));
  return shown.slice(0, 2).join(' · ').slice(0, 200) || 'permission prompt';
}

export function history(ports: Pick<Ports, 'store'>, rig: string | undefined, limit = 50): HistoryItem[] {
  const kinds = HISTORY_KINDS.map(() => '?').join(', ');
  const where = rig ? `kind IN (${kinds}) AND rig = ?` : `kind IN (${kinds})`;
  const rows = newest(ports, where, rig ? [...HISTORY_KINDS, rig] : [...HISTORY_KINDS], limit);
  return rows.map((e): HistoryItem => {
    const d = e.data;
    const base = { seq: e.seq, at: e.at, seat: e.seat, rig: e.rig, choice: str(d.choice) ?? '?' };
    const reason = str(d.reason);
    const by = str(d.by);
    const extra = { ...(reason ? { reason } : {}), ...(by ? { by } : {}) };
    if (e.kind === 'decision.answered')
      return { ...base, ...extra, kind: 'decision', what: `restore decision ${String(d.decision ?? '')}`.trim() };
    if (e.kind === 'seat.prompt_answered') return { ...base, ...extra, kind: 'prompt', what: promptLine(d) };
    const code = str(d.code);
    return { ...base, ...extra, kind: 'prompt_refused', what: str(d.message) ?? 'refused', ...(code ? { code } : {}) };
  });
}

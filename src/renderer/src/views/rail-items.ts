import type { PsRow } from '../../../shared/contract';
import { attentionOrder, attentionRank, type StateWord } from '../state/seat-state';

export interface RowModel {
  seat: string;
  member: string;
  rig: string;
  pod: string;
  host: string;
  runtime: string;
  word: StateWord;
  unread: boolean;
  row: PsRow | undefined;
}

/**
 * One line of the rail as the virtual list counts it: a host, rig or pod heading, or a seat row.
 * Every item carries its host, rig and pod, so the lines on screen are put back in their groups.
 */
export type RailItem =
  | { kind: 'host' | 'rig' | 'pod'; key: string; host: string; rig: string; pod: string }
  | { kind: 'seat'; key: string; host: string; rig: string; pod: string; m: RowModel; pos: number; size: number };

/** host → rig → pod, in the spec's order ('local' first); rows within a pod in the attention order. */
export function railItems(rows: readonly RowModel[]): RailItem[] {
  const hosts = new Map<string, Map<string, Map<string, RowModel[]>>>();
  for (const r of rows) {
    const rigs = hosts.get(r.host) ?? new Map<string, Map<string, RowModel[]>>();
    hosts.set(r.host, rigs);
    const pods = rigs.get(r.rig) ?? new Map<string, RowModel[]>();
    rigs.set(r.rig, pods);
    const list = pods.get(r.pod) ?? [];
    pods.set(r.pod, list);
    list.push(r);
  }
  const order = [...hosts.keys()].sort((a, b) => (a === 'local' ? -1 : b === 'local' ? 1 : a.localeCompare(b)));
  const out: RailItem[] = [];
  for (const host of order) {
    out.push({ kind: 'host', key: `h:${host}`, host, rig: '', pod: '' });
    for (const [rig, pods] of hosts.get(host)!) {
      out.push({ kind: 'rig', key: `r:${host}:${rig}`, host, rig, pod: '' });
      for (const [pod, list] of pods) {
        // A rig of one unnamed pod shows no pod heading.
        if (pods.size > 1 || pod !== 'team') out.push({ kind: 'pod', key: `p:${host}:${rig}:${pod}`, host, rig, pod });
        const sorted = attentionOrder(list, (x) => attentionRank(x.word, x.unread));
        for (const [i, m] of sorted.entries())
          out.push({ kind: 'seat', key: `s:${m.seat}`, host, rig, pod, m, pos: i + 1, size: sorted.length });
      }
    }
  }
  return out;
}

export interface Group<T> {
  key: string;
  items: T[];
}

/** Consecutive items with the same key, in order: the lines on screen regrouped by host, rig or pod. */
export function runsBy<T>(items: readonly T[], key: (t: T) => string): Group<T>[] {
  const out: Group<T>[] = [];
  for (const t of items) {
    const k = key(t);
    const last = out.at(-1);
    if (last && last.key === k) last.items.push(t);
    else out.push({ key: k, items: [t] });
  }
  return out;
}

/** The seat `step` rows from `from` in the rail's order, wrapping at either end (the arrow keys). */
export function stepSeat(items: readonly RailItem[], from: string | undefined, step: 1 | -1): number | undefined {
  const seats = items.flatMap((it, i) => (it.kind === 'seat' ? [{ i, seat: it.m.seat }] : []));
  if (seats.length === 0) return undefined;
  const at = seats.findIndex((s) => s.seat === from);
  if (at < 0) return seats[step === 1 ? 0 : seats.length - 1]!.i;
  return seats[(at + step + seats.length) % seats.length]!.i;
}

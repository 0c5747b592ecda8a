import type { z } from 'zod';
import type { seriesPoint, UsageRow, usageGroup } from '../../../shared/contract/usage';
import type { UsageSample } from '../store/usage-samples';
import { roundUsd } from './figures';

/** What `rigdesk usage` adds up by. */
export type UsageGroup = z.output<typeof usageGroup>;

/** One sample's spending since the one before it of the same conversation (or since the range began). */
interface Step {
  sample: UsageSample;
  tokensIn: number;
  tokensOut: number;
  /** Undefined where the spending has no price (yet). */
  costUsd?: number;
  /** Unpriced here, but a later priced sample's cost of the same conversation counts it. */
  covered?: true;
}

const convKey = (s: Pick<UsageSample, 'seat' | 'conversationId'>): string => `${s.seat}\0${s.conversationId}`;

/**
 * Each sample as what it adds to its conversation's spending: samples hold running totals, so a
 * conversation's spending in a range is its last sample minus what it had before the range (its
 * baseline sample, else nothing). Consecutive differences add up to exactly that. The cost is a
 * running total too, so a sample without a price (a price named later in the settings) is
 * counted by the next priced one: its cost is that one's minus the last priced figure.
 */
function steps(samples: readonly UsageSample[], baselines: readonly UsageSample[]): Step[] {
  const prev = new Map<string, UsageSample>();
  // The conversation's last known running cost (0 before its first sample); undefined: not known.
  const lastCost = new Map<string, number | undefined>();
  const pending = new Map<string, Step[]>();
  for (const b of baselines) {
    prev.set(convKey(b), b);
    lastCost.set(convKey(b), b.costUsd);
  }
  const out: Step[] = [];
  for (const s of [...samples].sort((a, b) => a.at - b.at)) {
    const k = convKey(s);
    const p = prev.get(k);
    const pc = lastCost.has(k) ? lastCost.get(k) : 0;
    const step: Step = {
      sample: s,
      tokensIn: s.tokensIn - (p?.tokensIn ?? 0),
      tokensOut: s.tokensOut - (p?.tokensOut ?? 0),
    };
    if (s.costUsd === undefined) pending.set(k, [...(pending.get(k) ?? []), step]);
    else {
      if (pc !== undefined) {
        step.costUsd = s.costUsd - pc;
        for (const earlier of pending.get(k) ?? []) earlier.covered = true;
      }
      pending.delete(k);
      lastCost.set(k, s.costUsd);
    }
    out.push(step);
    prev.set(k, s);
  }
  return out;
}

/** A sample's group: a pod is named `pod@rig`, as a seat is `member@rig`. */
function keyOf(s: UsageSample, by: UsageGroup, dayOf: (at: number) => string): string {
  switch (by) {
    case 'seat':
      return s.seat;
    case 'pod':
      return `${s.pod}@${s.rig}`;
    case 'rig':
      return s.rig;
    case 'model':
      return s.model ?? '(none named)';
    case 'day':
      return dayOf(s.at);
  }
}

/** The spending in the samples' range, added up by `by`, in the order each group first spent. */
export function summarize(
  samples: readonly UsageSample[],
  baselines: readonly UsageSample[],
  by: UsageGroup,
  dayOf: (at: number) => string,
): UsageRow[] {
  const rows = new Map<string, UsageRow & { seatSet: Set<string>; convSet: Set<string>; priced: number }>();
  for (const st of steps(samples, baselines)) {
    const key = keyOf(st.sample, by, dayOf);
    let r = rows.get(key);
    if (!r) {
      r = {
        key,
        seats: 0,
        conversations: 0,
        tokensIn: 0,
        tokensOut: 0,
        seatSet: new Set(),
        convSet: new Set(),
        priced: 0,
      };
      rows.set(key, r);
    }
    r.seatSet.add(st.sample.seat);
    r.convSet.add(convKey(st.sample));
    r.tokensIn += st.tokensIn;
    r.tokensOut += st.tokensOut;
    if (st.costUsd !== undefined) {
      r.costUsd = (r.costUsd ?? 0) + st.costUsd;
      r.priced++;
    } else if (!st.covered && st.tokensIn + st.tokensOut !== 0) r.costPartial = true;
  }
  return [...rows.values()].map(({ seatSet, convSet, priced, ...r }) => ({
    ...r,
    seats: seatSet.size,
    conversations: convSet.size,
    ...(r.costUsd !== undefined ? { costUsd: roundUsd(r.costUsd) } : {}),
  }));
}

/** Tokens (in and out) spent since the range began, and their estimate where every part is priced. */
export type SeriesPoint = z.output<typeof seriesPoint>;

export interface UsageSeries {
  key: string;
  points: SeriesPoint[];
}

/**
 * Each group's spending since the range began, as a running sum at every sample time: what the
 * Usage view draws. A group's cost point is absent once any of its spending had no price.
 */
export function series(
  samples: readonly UsageSample[],
  baselines: readonly UsageSample[],
  by: Exclude<UsageGroup, 'day'>,
): UsageSeries[] {
  const groups = new Map<string, { tokens: number; cost: number | undefined; points: SeriesPoint[] }>();
  for (const st of steps(samples, baselines)) {
    const key = keyOf(st.sample, by, () => '');
    const g = groups.get(key) ?? { tokens: 0, cost: 0, points: [] };
    groups.set(key, g);
    g.tokens += st.tokensIn + st.tokensOut;
    g.cost = g.cost !== undefined && (st.costUsd !== undefined || st.covered) ? g.cost + (st.costUsd ?? 0) : undefined;
    const point: SeriesPoint = {
      at: st.sample.at,
      tokens: g.tokens,
      ...(g.cost !== undefined ? { costUsd: roundUsd(g.cost) } : {}),
    };
    // Samples of one minute (two conversations of a pod) make one point.
    if (g.points.at(-1)?.at === point.at) g.points[g.points.length - 1] = point;
    else g.points.push(point);
  }
  return [...groups].map(([key, g]) => ({ key, points: g.points }));
}

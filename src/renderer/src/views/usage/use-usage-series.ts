import { useEffect, useRef, useState } from 'react';
import type { AnswerOf } from '../../../../shared/contract';
import { call } from '../../state/actions';
import { useWindow } from '../../state/store';

export type SeriesAnswer = AnswerOf<'usage.series'>;
export type SeriesBy = 'seat' | 'pod';
export const RANGES = { all: 0, '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000 } as const;
export type Range = keyof typeof RANGES;

/** Samples are written at most once a minute: a view left open asks again at that pace. */
const EVERY_MS = 60_000;
/** Token figures in the pushed rows change several times in a turn: one read after they settle. */
const SETTLE_MS = 800;

/** What the rig's seats have spent as the pushed rows say: a change means a new sample to draw. */
function useSpentKey(rig: string): string {
  return useWindow((s) => {
    const seats = s.topology.rigs.find((r) => r.name === rig)?.pods.flatMap((p) => p.seats) ?? [];
    return seats.map((x) => `${s.seats[x.seat]?.tokensIn ?? ''}:${s.seats[x.seat]?.tokensOut ?? ''}`).join(',');
  });
}

/**
 * The rig's usage lines from the engine's samples (`usage.series`), kept live: read again when a
 * pushed row of the rig says its tokens changed (the engine samples on that same read), and once a
 * minute while shown, so an idle minute's row still lands.
 */
export function useUsageSeries(rig: string, by: SeriesBy, range: Range) {
  const [got, setGot] = useState<{ key: string; answer: SeriesAnswer }>();
  const key = `${rig}\0${by}\0${range}`;
  // An answer is shown only for what it was asked for: a switch of rig, group or range shows nothing stale.
  const answer = got?.key === key ? got.answer : undefined;
  const [failure, setFailure] = useState<string>();
  const spent = useSpentKey(rig);
  const asked = useRef(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `spent` is the live trigger, not an input
  useEffect(() => {
    const read = async () => {
      const n = ++asked.current;
      const since = RANGES[range] ? Date.now() - RANGES[range] : undefined;
      const r = await call('usage.series', { rig, by, ...(since ? { since } : {}) }, `usage of ${rig}`, {
        quiet: true,
      });
      if (n !== asked.current || !r) return;
      if (!r.ok) return setFailure(`${r.code}: ${r.message}`);
      setFailure(undefined);
      setGot({ key, answer: r });
    };
    const first = setTimeout(() => void read(), answer ? SETTLE_MS : 0);
    const every = setInterval(() => void read(), EVERY_MS);
    return () => {
      clearTimeout(first);
      clearInterval(every);
    };
  }, [rig, by, range, spent]);
  return { answer, failure };
}

/**
 * The usage history: the sampler writes at most one row a minute per conversation, and only when
 * its figures changed, into a real SQLite file; `rigdesk usage`'s sums (summarize) add the samples'
 * running totals up by seat, pod, rig, model or day, a restart's new conversation kept as its own
 * history beside the old one, and a `since` counting only what was spent after it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDb } from '../../../src/main/engine/store/db';
import { UsageSampleRepo } from '../../../src/main/engine/store/usage-samples';
import { type SampleOffer, UsageSampler } from '../../../src/main/engine/usage/sampler';
import { series, summarize } from '../../../src/main/engine/usage/summary';

let dir: string;
let repo: UsageSampleRepo;
let now: number;
let sampler: UsageSampler;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rd-usage-samples-'));
  repo = new UsageSampleRepo(openDb(join(dir, 'rigdesk.db')));
  now = Date.parse('2026-12-05T10:00:05Z');
  sampler = new UsageSampler(repo, () => now);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const offer = (
  seat: string,
  conv: string,
  tokensIn: number,
  tokensOut: number,
  costUsd?: number,
  pod = 'team',
): SampleOffer => ({
  seat,
  rig: 'r',
  pod,
  runtime: 'codex',
  conversationId: conv,
  model: seat.startsWith('a') ? 'gpt-5' : 'fake-model',
  tokensIn,
  tokensOut,
  ...(costUsd !== undefined ? { costUsd } : {}),
});
const day = (at: number) => new Date(at).toISOString().slice(0, 10);

describe('the usage sampler', () => {
  it('one row a minute per conversation, only on a change; the minute keeps its last figures', () => {
    sampler.offer(offer('a@r', 'c1', 100, 10));
    expect(repo.count).toBe(1); // the first change of a minute is written at once
    sampler.offer(offer('a@r', 'c1', 100, 10));
    sampler.offer(offer('a@r', 'c1', 200, 20));
    sampler.offer(offer('a@r', 'c1', 300, 30));
    expect(repo.count).toBe(1);
    now += 60_000;
    sampler.offer(offer('a@r', 'c1', 300, 30)); // unchanged: nothing
    expect(repo.list().map((s) => [s.tokensIn, s.tokensOut])).toEqual([[300, 30]]);
    sampler.offer(offer('a@r', 'c1', 400, 40));
    expect(repo.list().map((s) => s.tokensIn)).toEqual([300, 400]);
    sampler.offer(offer('a@r', 'c1', 500, 50));
    sampler.flush(); // a reader asks: the held minute is written over its row
    expect(repo.list().map((s) => s.tokensIn)).toEqual([300, 500]);
  });
});

describe('rigdesk usage sums', () => {
  beforeEach(() => {
    // a@r: a conversation, then a restart into a new one; b@r in the same pod, unpriced; c@r in another pod.
    sampler.offer(offer('a@r', 'c1', 1000, 100, 0.01));
    sampler.offer(offer('b@r', 'b1', 50, 5));
    now += 60_000;
    sampler.offer(offer('a@r', 'c1', 3000, 300, 0.03));
    sampler.offer(offer('c@r', 'x1', 7, 1, 0.001, 'other'));
    now += 60_000;
    sampler.offer(offer('a@r', 'c2', 500, 50, 0.005));
    sampler.flush();
  });

  it('by seat: a restart keeps both conversations, and the seat adds them up', () => {
    const rows = summarize(repo.list(), [], 'seat', day);
    expect(rows).toEqual([
      { key: 'a@r', seats: 1, conversations: 2, tokensIn: 3500, tokensOut: 350, costUsd: 0.035 },
      { key: 'b@r', seats: 1, conversations: 1, tokensIn: 50, tokensOut: 5, costPartial: true },
      { key: 'c@r', seats: 1, conversations: 1, tokensIn: 7, tokensOut: 1, costUsd: 0.001 },
    ]);
  });

  it("by pod and rig: exactly the seats' figures added up; an unpriced seat makes the cost partial", () => {
    expect(summarize(repo.list(), [], 'pod', day)).toEqual([
      { key: 'team@r', seats: 2, conversations: 3, tokensIn: 3550, tokensOut: 355, costUsd: 0.035, costPartial: true },
      { key: 'other@r', seats: 1, conversations: 1, tokensIn: 7, tokensOut: 1, costUsd: 0.001 },
    ]);
    expect(summarize(repo.list(), [], 'rig', day)).toMatchObject([
      { key: 'r', seats: 3, conversations: 4, tokensIn: 3557 },
    ]);
    expect(summarize(repo.list(), [], 'model', day).map((r) => [r.key, r.tokensIn])).toEqual([
      ['gpt-5', 3500],
      ['fake-model', 57],
    ]);
    expect(summarize(repo.list(), [], 'day', day).map((r) => [r.key, r.tokensIn])).toEqual([['2026-12-05', 3557]]);
  });

  it('since a moment: only what was spent after it (the last sample before it is the baseline)', () => {
    const q = { since: Date.parse('2026-12-05T10:01:00Z') };
    const rows = summarize(repo.list(q), repo.baselines(q), 'seat', day);
    expect(rows.find((r) => r.key === 'a@r')).toEqual({
      key: 'a@r',
      seats: 1,
      conversations: 2,
      tokensIn: 2000 + 500,
      tokensOut: 200 + 50,
      costUsd: 0.025,
    });
    expect(rows.find((r) => r.key === 'b@r')).toBeUndefined();
  });

  it('a price named later counts the spending before it: the running cost covers the unpriced samples', () => {
    now += 60_000;
    sampler.offer(offer('b@r', 'b1', 80, 8, 0.002)); // the settings now price b's model
    sampler.flush();
    expect(summarize(repo.list(), [], 'seat', day).find((r) => r.key === 'b@r')).toEqual({
      key: 'b@r',
      seats: 1,
      conversations: 1,
      tokensIn: 80,
      tokensOut: 8,
      costUsd: 0.002,
    });
    expect(summarize(repo.list(), [], 'pod', day)[0]).toMatchObject({ key: 'team@r', costUsd: 0.037 });
    expect(summarize(repo.list(), [], 'pod', day)[0]!.costPartial).toBeUndefined();
  });

  it("series: each pod's running sum at every sample minute, for the Usage view", () => {
    const s = series(repo.list(), [], 'pod');
    expect(s.find((x) => x.key === 'team@r')!.points).toEqual([
      { at: Date.parse('2026-12-05T10:00:00Z'), tokens: 1155 },
      { at: Date.parse('2026-12-05T10:01:00Z'), tokens: 3355 },
      { at: Date.parse('2026-12-05T10:02:00Z'), tokens: 3905 },
    ]);
  });
});

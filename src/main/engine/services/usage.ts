import type { AnswerOf, PlanLimit, PsRow, RequestOf } from '../../../shared/contract';
import type { Result } from '../../../shared/errors';
import type { Engine } from '../engine';
import { CATALOG } from '../usage/catalog';
import { series, summarize } from '../usage/summary';
import { ps } from './ps';

/** The machine's local day of a moment, as `YYYY-MM-DD`: what a person means by "today". */
export function localDay(at: number): string {
  const d = new Date(at);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}`;
}

/**
 * Brings the samples up to now before they are read: a ps reads every running seat's records and
 * offers what changed, and the sampler writes what it held. The rows it answered carry the limits.
 */
async function refreshed(engine: Engine, rig: string | undefined): Promise<Result<{ seats: PsRow[] }>> {
  const now = await ps(engine, rig ? { rig } : {});
  if (!now.ok) return now;
  engine.ports.usageBook.sampler.flush();
  return { ok: true, seats: now.seats };
}

/** One entry per account, limit and window: seats of one CLI home share their plan's limits. */
function accountLimits(rows: readonly PsRow[]): PlanLimit[] {
  const out = new Map<string, PlanLimit>();
  for (const l of rows.flatMap((r) => r.limits ?? []))
    out.set(`${l.runtime}\0${l.account}\0${l.limitId}\0${l.window}`, l);
  return [...out.values()];
}

function basis(engine: Engine): AnswerOf<'usage.summary'>['basis'] {
  const book = engine.ports.usageBook;
  const problem = book.settings().problem;
  return {
    catalog: { name: CATALOG.name, version: CATALOG.version },
    settings: { path: book.settingsPath, ...(problem ? { problem } : {}) },
  };
}

/** `rigdesk usage`: what the records say was spent since `since`, added up by a group. */
export async function usageSummary(
  engine: Engine,
  p: RequestOf<'usage.summary'>,
): Promise<Result<AnswerOf<'usage.summary'>>> {
  const now = await refreshed(engine, p.rig);
  if (!now.ok) return now;
  const until = engine.now();
  const q = { rig: p.rig, since: p.since, until };
  const repo = engine.store.usageSamples;
  const by = p.by ?? 'seat';
  return {
    ok: true,
    by,
    ...(p.since !== undefined ? { since: p.since } : {}),
    until,
    rows: summarize(repo.list(q), repo.baselines(q), by, localDay),
    limits: accountLimits(now.seats),
    basis: basis(engine),
  };
}

/** The Usage view's lines: running sums per seat or pod since `since`. */
export async function usageSeries(
  engine: Engine,
  p: RequestOf<'usage.series'>,
): Promise<Result<AnswerOf<'usage.series'>>> {
  const now = await refreshed(engine, p.rig);
  if (!now.ok) return now;
  const until = engine.now();
  const q = { rig: p.rig, since: p.since, until };
  const repo = engine.store.usageSamples;
  const by = p.by ?? 'seat';
  return {
    ok: true,
    by,
    ...(p.since !== undefined ? { since: p.since } : {}),
    until,
    series: series(repo.list(q), repo.baselines(q), by),
    basis: basis(engine),
  };
}

/**
 * A long-lived engine's usage sampling: every `everyMs` a ps reads each running seat's records, so
 * the history keeps its minutes while no window or CLI asks. Held minutes are written at the stop.
 */
export function startUsageSampling(engine: Engine, everyMs: number, onError: (e: unknown) => void): () => void {
  let busy = false;
  const tick = async () => {
    if (busy) return;
    busy = true;
    try {
      const r = await ps(engine);
      if (!r.ok) onError(new Error(`${r.code}: ${r.message}`));
    } catch (e) {
      onError(e);
    } finally {
      busy = false;
    }
  };
  const timer = engine.ports.clock.every(everyMs, () => void tick(), { unref: true });
  return () => {
    timer.cancel();
    engine.ports.usageBook.sampler.flush();
  };
}

import { realOrSame } from '../custody/cwd';
import { CONFIG_MAX_BYTES, readRegularText } from '../read-file';
import type { PsRow } from '../../../shared/contract';
import type { ObservedSeat } from '../activity/observe';
import type { Ports } from '../ports';
import { runtimeById } from '../runtimes';
import { hostOfServer } from '../tmux/identity';
import { liveOpencodeQuery } from './opencode';
import { tailIO } from './tail';
import type { UsageTotals } from '../runtimes/usage/records';
import type { UsageBook } from './book';
import { type SeatFigures, seatFigures } from './figures';
import type { UsageDeps, UsageWatch } from './watch';

/** The engine's usage tails: they live as long as the engine, so a refresh reads only what grew. */
export interface UsagePorts {
  readonly usage: UsageWatch;
  readonly usageBook: UsageBook;
}

/** The live reads behind the watch: the runtime adapters say where a conversation's records are. */
export function liveUsageDeps(ports: Pick<Ports, 'clock' | 'fs' | 'io'>): UsageDeps {
  const configs = new Map<string, { key: string; text: string | undefined }>();
  return {
    tail: tailIO(ports.fs),
    opencode: liveOpencodeQuery,
    locate: (t) => runtimeById(t.runtime)?.transcriptPath?.(t.home, t.cwd, t.conversationId, ports.io),
    readConfig(path) {
      let key: string;
      try {
        const st = ports.fs.statSync(path);
        key = `${st.ino}:${st.size}:${st.mtimeMs}`;
      } catch {
        return undefined;
      }
      const hit = configs.get(path);
      if (hit?.key === key) return hit.text;
      let text: string | undefined;
      try {
        text = readRegularText(path, CONFIG_MAX_BYTES, ports.fs);
      } catch {
        text = undefined;
      }
      configs.set(path, { key, text });
      return text;
    },
    now: () => ports.clock.now(),
  };
}

/** The usage fields of a ps row: the figures, and the plan limits the runtime recorded for its account. */
export type SeatUsageFields = SeatFigures & Pick<PsRow, 'contextPct' | 'limits'>;

/**
 * A running seat's tokens, context and cost estimate, from its runtime's own records on this
 * machine; each change offered to the sampler. Absent (never zero, never guessed) for a seat that
 * is not running here, has no named conversation, runs a runtime that records no usage, or whose
 * records cannot be read now.
 */
export function seatUsage(
  ports: Pick<Ports, 'fs' | 'seatHome' | 'clock'> & UsagePorts,
  { seat, pane }: ObservedSeat,
  row: PsRow,
): SeatUsageFields {
  if (row.state !== 'running' || !pane || !row.conversationId) return {};
  // A remote seat's records are on its host; this machine's files at the same path say nothing.
  if (hostOfServer(pane.server) !== 'local') return {};
  const home = pane.agent?.home ?? ports.seatHome(seat);
  if (!home) return {};
  let totals: UsageTotals | undefined;
  try {
    totals = ports.usage.read({
      runtime: seat.runtime,
      home,
      cwd: realOrSame(ports.fs, seat.cwd),
      conversationId: row.conversationId,
    });
  } catch {
    return {}; // unreadable records: unknown, as any other evidence that cannot be read
  }
  if (!totals) return {};
  const book = ports.usageBook;
  const figures = seatFigures(totals, {
    catalog: book.catalog,
    settings: book.settings().settings,
    at: ports.clock.now(),
  });
  book.sampler.offer({
    seat: seat.seat,
    rig: seat.rig,
    pod: seat.pod,
    runtime: seat.runtime,
    conversationId: row.conversationId,
    ...(totals.model ? { model: totals.model } : {}),
    tokensIn: totals.tokensIn,
    tokensOut: totals.tokensOut,
    ...(figures.contextTokens !== undefined ? { contextTokens: figures.contextTokens } : {}),
    ...(figures.contextWindow !== undefined ? { contextWindow: figures.contextWindow } : {}),
    ...(figures.costUsd !== undefined ? { costUsd: figures.costUsd } : {}),
  });
  const limits = (totals.limits ?? []).map((l) => ({ runtime: seat.runtime, account: home, ...l }));
  return { ...figures, ...(limits.length > 0 ? { limits } : {}) };
}

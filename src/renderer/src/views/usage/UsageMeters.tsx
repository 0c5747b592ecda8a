import { CONTEXT_HIGH_PCT, type PlanLimit, type PsRow } from '../../../../shared/contract';
import { useClock } from '../../state/clock';
import { clockTime, compact, until } from './format';

const SOURCE_WORD = { records: "the runtime's records", catalog: 'the model catalog', settings: 'your settings' };

/** A share as a bar (the rail's look): orange past `high`, the number beside it in words. */
function Bar(p: { pct: number; high: number; label: string; title: string }) {
  return (
    // biome-ignore lint/a11y/useSemanticElements: a native <meter> draws each browser's own colours (green below its mark), not the rail's bar
    <span
      className={`bar${p.pct > p.high ? ' high' : ''}`}
      role="meter"
      aria-label={p.label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={p.pct}
      title={p.title}
    >
      <span className="fill" style={{ width: `${Math.min(100, p.pct)}%` }} />
    </span>
  );
}

/** What a seat's meter says beside its bar: the tokens of the window, and where the window came from. */
function contextDetail(r: PsRow | undefined): string {
  if (!r) return 'not running';
  if (r.contextPct !== undefined && r.contextTokens !== undefined && r.contextWindow !== undefined)
    return `${compact(r.contextTokens)} of ${compact(r.contextWindow)} · ${r.contextSource ?? 'records'}`;
  if (r.contextWhy) return `not known: ${r.contextWhy}`;
  if (r.contextTokens !== undefined) return `${compact(r.contextTokens)} in the last call; no window known`;
  return 'no usage records';
}

/**
 * Each seat's share of its context window, fullest first: a bar and its percent where the window
 * is known, else the reason in words (never a guessed share).
 */
export function ContextMeters({ seats, rows }: { seats: string[]; rows: Record<string, PsRow> }) {
  const sorted = [...seats].sort(
    (a, b) => (rows[b]?.contextPct ?? -1) - (rows[a]?.contextPct ?? -1) || a.localeCompare(b),
  );
  return (
    <section className="usage-meters" aria-label="context per seat">
      <h3>Context per seat</h3>
      <ul>
        {sorted.map((seat) => {
          const r = rows[seat];
          const pct = r?.contextPct;
          const high = pct !== undefined && pct > CONTEXT_HIGH_PCT;
          const detail = contextDetail(r);
          return (
            <li key={seat} data-usage-meter={seat} data-pct={pct} className={high ? 'high' : undefined}>
              <span className="who" title={seat}>
                {seat.slice(0, seat.lastIndexOf('@'))}
              </span>
              {pct !== undefined ? (
                <Bar
                  pct={pct}
                  high={CONTEXT_HIGH_PCT}
                  label={`${seat} context`}
                  title={`${pct}% of the context window: ${detail}, the window from ${SOURCE_WORD[r?.contextSource ?? 'records']}`}
                />
              ) : (
                <span className="no-meter" title={detail} />
              )}
              <span className="pct">
                {pct !== undefined ? `${Math.round(pct)}%${high ? ' nearly full' : ''}` : '—'}
              </span>
              <span className="detail" title={detail}>
                {detail}
              </span>
            </li>
          );
        })}
      </ul>
    </section>
  );
}

/** A window's name by its length where the runtime gave it: "5 h window", "7 d window". */
function windowName(l: PlanLimit): string {
  if (l.window === 'reached') return 'limit reached';
  const m = l.windowMinutes;
  if (m === undefined) return l.window === 'primary' ? 'short window' : 'long window';
  return `${m % 1440 === 0 ? `${m / 1440} d` : m % 60 === 0 ? `${m / 60} h` : `${m} min`} window`;
}

/** An account's name in a few characters: the CLI home's last folder; the whole path in the title. */
const homeName = (account: string) => account.split('/').filter(Boolean).at(-1) ?? account;

/** The plan limits the seats' runtimes recorded, per account (a CLI home), with when each resets. */
export function PlanLimits({ limits }: { limits: PlanLimit[] }) {
  const now = useClock((s) => s.now);
  const accounts = [...new Set(limits.map((l) => `${l.runtime}\0${l.account}`))];
  return (
    <section className="usage-limits" aria-label="plan limits">
      <h3>Plan limits</h3>
      {limits.length === 0 && (
        <p className="muted">
          None recorded by these seats' runtimes (Codex records its rate-limit windows, Claude Code a usage-limit
          message).
        </p>
      )}
      {accounts.map((a) => {
        const [runtime, account] = a.split('\0') as [string, string];
        return (
          <div key={a} className="account">
            <h4 title={`account: ${account}`}>
              {runtime} · {homeName(account)}
            </h4>
            <ul>
              {limits
                .filter((l) => l.runtime === runtime && l.account === account)
                .map((l) => (
                  <li
                    key={`${l.limitId}\0${l.window}`}
                    data-usage-limit={`${l.runtime}:${l.window}`}
                    className={l.window === 'reached' ? 'reached' : undefined}
                  >
                    <span className="who">{windowName(l)}</span>
                    {l.usedPercent !== undefined ? (
                      <Bar
                        pct={l.usedPercent}
                        high={80}
                        label={`${runtime} ${windowName(l)} used`}
                        title={`${l.usedPercent}% used`}
                      />
                    ) : (
                      <span />
                    )}
                    <span className="pct">
                      {l.usedPercent !== undefined ? `${Math.round(l.usedPercent)}% used` : ''}
                    </span>
                    <span className="detail" title={l.message}>
                      {l.message ? `${l.message} · ` : ''}
                      {l.resetsAt !== undefined
                        ? `resets ${clockTime(l.resetsAt, now)} (${until(l.resetsAt, now)})`
                        : 'reset not given'}
                    </span>
                  </li>
                ))}
            </ul>
          </div>
        );
      })}
    </section>
  );
}

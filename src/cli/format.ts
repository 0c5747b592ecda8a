import { z } from 'zod';
import { CONTEXT_HIGH_PCT, type PsAgent, type PsRow } from '../shared/contract';
import type { Failure } from '../shared/errors';
import type { BackgroundReport } from '../main/engine/background';

/** Quotes one argument for a POSIX shell, so printed commands can be pasted as they are. */
export function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_./=:@%+-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

export function commandLine(argv: readonly string[]): string {
  return argv.map(shellQuote).join(' ');
}

export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')).join('\n');
}

/** Where an agent that is not a seat runs: a pane, headless, or a runtime's daemon of a home. */
function whereOf(o: PsAgent): string {
  if (o.service) return `${o.service === 'daemon' ? 'daemon' : 'daemon helper'} of ${o.home ?? '?'}`;
  return o.headless ? 'headless' : `${o.server ?? '?'} ${o.paneId ?? ''}`;
}

/** A token count in a few characters: 417, 52.3k, 1.2M. */
export function compactCount(n: number): string {
  if (n < 1000) return String(n);
  if (n < 999_500) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0).replace(/\.0$/, '')}k`;
  return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, '')}M`;
}

/** The context share, and `high` past the mark; `-` where the runtime records no window. */
function contextCell(s: PsRow): string {
  if (s.contextPct === undefined) return '-';
  return `${s.contextPct}%${s.contextPct > CONTEXT_HIGH_PCT ? ' high' : ''}`;
}

/** The cost estimate, marked as one; `-` where a price is unknown. */
function costCell(s: PsRow): string {
  return s.costUsd === undefined ? '-' : `~$${s.costUsd.toFixed(s.costUsd < 0.01 ? 4 : 2)}`;
}

function tokensCell(s: PsRow): string {
  return s.tokensIn === undefined || s.tokensOut === undefined
    ? '-'
    : `${compactCount(s.tokensIn)}/${compactCount(s.tokensOut)}`;
}

/** Files and lines changed, and what puts them at risk: `3 +40/-2 shared`, `-` outside a repository. */
function changesCell(s: PsRow): string {
  const c = s.changes;
  if (!c) return '-';
  const risk = c.sharedWith?.length ? ' shared' : c.overlapsWith?.length ? ' overlap' : '';
  return `${c.files} +${compactCount(c.added)}/-${compactCount(c.removed)}${risk}`;
}

export function formatPs(seats: PsRow[], others: PsAgent[], problems: string[]): string {
  const lines: string[] = [];
  if (seats.length === 0) lines.push('no seats (bring a rig up with: rigdesk up <spec.yaml>)');
  else {
    lines.push(
      table([
        [
          'SEAT',
          'HOST',
          'RUNTIME',
          'STATE',
          'ACTIVITY',
          'PANE',
          'PID',
          'CONTEXT',
          'TOKENS IN/OUT',
          'COST',
          'CHANGES',
          'CONVERSATION',
        ],
        ...seats.map((s) => [
          s.seat,
          s.host ?? 'local',
          s.runtime,
          s.state + (s.state === 'stopped' && s.stoppedOnPurpose ? '*' : '') + (s.reason ? `/${s.reason}` : ''),
          s.activity + (s.needsInput ? `:${s.needsInput}` : ''),
          s.paneId ?? '-',
          s.pid ? String(s.pid) : '-',
          contextCell(s),
          tokensCell(s),
          costCell(s),
          changesCell(s),
          s.conversationId ?? '-',
        ]),
      ]),
    );
  }
  if (others.length > 0) {
    lines.push('', 'OTHER AGENTS (not seats of Rigdesk)');
    lines.push(
      table([
        ['RUNTIME', 'PID', 'WHERE', 'CONVERSATION'],
        ...others.map((o) => [
          o.runtime,
          String(o.pid),
          (o.host ? `${o.host}: ` : '') + whereOf(o),
          o.conversationId ?? 'unknown',
        ]),
      ]),
    );
  }
  const priced = seats.find((s) => s.costBasis);
  if (priced)
    lines.push(
      '',
      `COST is an estimate from the tokens by kind and model prices (${priced.costBasis}; rigdesk ps --json names each seat's)`,
    );
  const over = new Map<string, string>();
  for (const s of seats) {
    const b = s.budget;
    if (b?.state !== 'over' || over.has(b.name)) continue;
    const spent = [
      b.tokens ? `${b.tokens.spent}/${b.tokens.limit} tokens` : '',
      b.usd ? `$${b.usd.spent ?? '?'}/$${b.usd.limit}` : '',
    ].filter(Boolean);
    const release = b.decisionId !== undefined ? `; release: rigdesk decide ${b.decisionId} release --reason R` : '';
    over.set(
      b.name,
      `over budget: ${b.scope} ${b.name} ${spent.join(', ')} on ${b.day}: its wakes and sends are parked${release}`,
    );
  }
  if (over.size > 0) lines.push('', ...over.values());
  if (problems.length > 0) lines.push('', ...problems.map((p) => `warning: ${p}`));
  return lines.join('\n');
}

/** The owners a custody refusal names in its evidence (the guard's ConversationOwner, as far as a person reads it). */
const failureOwners = z.array(
  z.object({
    pid: z.number(),
    server: z.string().optional(),
    paneId: z.string().optional(),
    sessionName: z.string().optional(),
    source: z.string(),
  }),
);

export function formatFailure(f: Failure): string {
  const out = [`rigdesk: ${f.code}: ${f.message}`];
  if (f.hint) out.push(`  next: ${f.hint}`);
  const owners = failureOwners.safeParse(f.evidence?.owners);
  if (owners.success)
    for (const o of owners.data)
      out.push(
        `  owner: pid ${o.pid}${o.paneId ? ` pane ${o.paneId} on ${o.server}` : ' (no pane)'}${o.sessionName ? ` session "${o.sessionName}"` : ''} [${o.source}]`,
      );
  return out.join('\n');
}

/** One line for stderr per thing a long-lived engine's background reports (serve and the app). */
export function reportLine(r: BackgroundReport): string {
  if (r.kind === 'reconcile') return `${formatFailure(r.failure)}\n`;
  if (r.kind === 'waker') return `rigdesk: queue waker: ${r.error.message}\n`;
  if (r.kind === 'monitor') return `rigdesk: activity monitor: ${r.error.message}\n`;
  if (r.kind === 'usage') return `rigdesk: usage sampling: ${r.error.message}\n`;
  return `rigdesk: ${r.message}\n`;
}

import { type AnswerOf, type PlanLimit, USAGE_GROUPS, usageGroup } from '../../shared/contract';
import { fail, type Result } from '../../shared/errors';
import type { ParsedArgs } from '../args';
import { compactCount, table } from '../format';
import { type CommandTable, type Prepared, prepare } from './types';

/** `rigdesk usage`: the seats' spending as their records say, added up over time. */

const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * When `--since` means, in ms epoch: `90m`, `2h`, `7d` back from now; `today` (local midnight); or
 * a date or date and time as `Date` reads it (`2026-12-05`, `2026-12-05T08:00`).
 */
export function parseSince(text: string, now: number): number | undefined {
  const rel = /^(\d{1,6})([mhd])$/.exec(text.trim());
  if (rel) return now - Number(rel[1]) * UNITS[rel[2]!]!;
  if (text === 'today') {
    const d = new Date(now);
    d.setHours(0, 0, 0, 0);
    return d.getTime();
  }
  // A bare date is read as local midnight, as a person means it (Date alone would read it as UTC).
  const at = /^\d{4}-\d{2}-\d{2}$/.test(text) ? new Date(`${text}T00:00`).getTime() : Date.parse(text);
  return Number.isFinite(at) && at >= 0 && at <= now ? at : undefined;
}

const usd = (n: number): string => `$${n < 0.01 && n > 0 ? n.toFixed(4) : n.toFixed(2)}`;

function limitLine(l: PlanLimit): string {
  const what = l.window === 'reached' ? `reached: ${l.message ?? l.limitId}` : `${l.limitId} ${l.window}`;
  const used = l.usedPercent !== undefined ? ` ${l.usedPercent}% used` : '';
  const span = l.windowMinutes
    ? ` of ${l.windowMinutes >= 1440 ? `${l.windowMinutes / 1440}d` : `${l.windowMinutes / 60}h`}`
    : '';
  const reset = l.resetsAt ? `, resets ${new Date(l.resetsAt).toISOString().slice(0, 16).replace('T', ' ')} UTC` : '';
  return `  ${l.runtime} ${l.account}: ${what}${used}${span}${reset}`;
}

export function usageText(r: AnswerOf<'usage.summary'>): string {
  const lines: string[] = [];
  if (r.rows.length === 0)
    lines.push('no usage recorded in that range (seats are sampled while the engine reads them)');
  else
    lines.push(
      table([
        [r.by.toUpperCase(), 'SEATS', 'CONVERSATIONS', 'TOKENS IN', 'TOKENS OUT', 'COST (EST.)'],
        ...r.rows.map((row) => [
          row.key,
          String(row.seats),
          String(row.conversations),
          compactCount(row.tokensIn),
          compactCount(row.tokensOut),
          row.costUsd === undefined ? '-' : `${usd(row.costUsd)}${row.costPartial ? ' (part)' : ''}`,
        ]),
      ]),
    );
  const { catalog, settings } = r.basis;
  lines.push(
    '',
    `cost is an estimate: tokens by kind times prices from ${catalog.name} ${catalog.version}, or from ${settings.path} where it names the model`,
  );
  if (settings.problem) lines.push(`warning: settings not used: ${settings.problem}`);
  if (r.limits.length > 0) lines.push('', 'LIMITS (per account)', ...r.limits.map(limitLine));
  return lines.join('\n');
}

function toRequest(a: ParsedArgs): Result<{ prepared: Prepared }> {
  const rig = typeof a.flags.rig === 'string' ? a.flags.rig : undefined;
  const byFlag = a.flags.by;
  const by = byFlag === undefined ? undefined : usageGroup.safeParse(byFlag);
  if (by && !by.success)
    return fail('BAD_USAGE', `--by takes ${USAGE_GROUPS.join(', ')}`, { hint: 'rigdesk usage --by pod' });
  let since: number | undefined;
  if (a.flags.since !== undefined) {
    since = typeof a.flags.since === 'string' ? parseSince(a.flags.since, Date.now()) : undefined;
    if (since === undefined)
      return fail('BAD_USAGE', '--since takes a time in the past: 90m, 2h, 7d, today, or a date like 2026-12-05', {
        hint: 'rigdesk usage --since today',
      });
  }
  const params = {
    ...(rig ? { rig } : {}),
    ...(by?.success ? { by: by.data } : {}),
    ...(since !== undefined ? { since } : {}),
  };
  return { ok: true, prepared: prepare('usage.summary', params, usageText) };
}

export const USAGE_COMMANDS: CommandTable = {
  usage: {
    usage:
      'usage [--rig R] [--by seat|pod|rig|model|day] [--since T]  tokens and estimated cost from the records, added up',
    toRequest,
  },
};

import { fail, type Result } from '../../shared/errors';
import type { ParsedArgs } from '../args';
import type { CommandTable } from './types';

/** The queue's commands: `rigdesk queue <verb> ...`. */

type Req = Result<{ method: string; params: Record<string, unknown> }>;

interface Item {
  id: number;
  seat: string;
  state: string;
  body: string;
  claimedBy: string | null;
  note: string | null;
  forNextResume: boolean;
}
interface Move {
  move: string | null;
  from: string | null;
  to: string;
  fromSeat: string | null;
  toSeat: string | null;
  actor: string | null;
  note: string | null;
  at: number;
}
interface Wake {
  seat: string;
  outcome: string;
  items: number[];
  token?: string;
  why?: string;
  attempt?: number;
  nextAt?: number;
}

const VERBS = 'add | list | show | claim | handoff | done | block | wake';

const bad = (message: string): Req =>
  fail('BAD_USAGE', message, { hint: `rigdesk queue ${VERBS}; rigdesk --help shows each.` });
const str = (a: ParsedArgs, flag: string) =>
  typeof a.flags[flag] === 'string' ? (a.flags[flag] as string) : undefined;
const by = (a: ParsedArgs) => (str(a, 'by') !== undefined ? { by: str(a, 'by') } : {});
const nextResume = (a: ParsedArgs) => (a.flags['for-next-resume'] ? { forNextResume: true } : {});

function idArg(v: string | undefined): number | undefined {
  const n = Number(v);
  return v !== undefined && /^\d+$/.test(v) && Number.isSafeInteger(n) && n >= 1 ? n : undefined;
}

function queueRequest(a: ParsedArgs): Req {
  const [verb, ...rest] = a.positionals;
  const id = idArg(rest[0]);
  const needId = () =>
    id === undefined
      ? bad(`queue ${verb} needs an item id (a whole number; rigdesk queue list shows them)`)
      : undefined;
  switch (verb) {
    case 'add': {
      if (rest.length < 2) return bad('queue add needs a seat and the text: rigdesk queue add <member@rig> <text...>');
      return {
        ok: true,
        method: 'queue.add',
        params: { seat: rest[0], text: rest.slice(1).join(' '), ...nextResume(a), ...by(a) },
      };
    }
    case 'list':
      return {
        ok: true,
        method: 'queue.list',
        params: { ...(str(a, 'seat') ? { seat: str(a, 'seat') } : {}), ...(a.flags.all ? { all: true } : {}) },
      };
    case 'show':
      return needId() ?? { ok: true, method: 'queue.show', params: { id } };
    case 'claim':
      return needId() ?? { ok: true, method: 'queue.claim', params: { id, ...by(a) } };
    case 'handoff': {
      if (rest.length < 2)
        return bad('queue handoff needs an item id and a seat: rigdesk queue handoff <id> <member@rig>');
      const note = str(a, 'note');
      return (
        needId() ?? {
          ok: true,
          method: 'queue.handoff',
          params: { id, seat: rest[1], ...nextResume(a), ...by(a), ...(note ? { note } : {}) },
        }
      );
    }
    case 'done':
    case 'block': {
      const note = str(a, 'note');
      if (!note?.trim())
        return (
          needId() ??
          bad(
            verb === 'done'
              ? 'queue done needs --note "<how it ended>": every closed item says so'
              : 'queue block needs --note "<why>"',
          )
        );
      return needId() ?? { ok: true, method: `queue.${verb}`, params: { id, note, ...by(a) } };
    }
    case 'wake':
      return { ok: true, method: 'queue.wake', params: str(a, 'seat') ? { seat: str(a, 'seat') } : {} };
    default:
      return bad(verb ? `unknown queue verb "${verb}"` : 'queue needs a verb');
  }
}

const firstLine = (s: string, n = 72) => {
  const l = s.split('\n')[0]!;
  return l.length > n ? `${l.slice(0, n - 1)}…` : l;
};
const itemLine = (i: Item) =>
  `#${i.id}\t${i.seat}\t${i.state}${i.claimedBy ? ` (${i.claimedBy})` : ''}${i.forNextResume ? ' [next resume]' : ''}\t${firstLine(i.body)}`;

function wakeLine(w: Wake): string {
  const when = w.nextAt ? `; next try ${new Date(w.nextAt).toISOString()}` : '';
  const what = `${w.items.length} item(s)`;
  switch (w.outcome) {
    case 'woken':
      return `${w.seat}: woken about ${what} (wake ${w.token})`;
    case 'recovered':
      return `${w.seat}: already on its screen from an interrupted pass; recorded as woken (wake ${w.token})`;
    case 'held':
      return `${w.seat}: held (${w.why}), attempt ${w.attempt}${when}`;
    case 'parked':
      return `${w.seat}: parked at its usage limit${when}`;
    case 'already_woken':
      return `${w.seat}: already woken about these ${what}`;
    case 'not_due':
      return `${w.seat}: waiting to retry${when}`;
    case 'in_flight':
      return `${w.seat}: another waker is on it`;
    case 'not_running':
      return `${w.seat}: not running; ${what} wait for its next run`;
    default:
      return `${w.seat}: ${w.outcome}`;
  }
}

function queueHuman(r: Record<string, unknown>): string {
  if (Array.isArray(r.items)) return (r.items as Item[]).map(itemLine).join('\n') || '(no queued items)';
  if (Array.isArray(r.wakes)) return (r.wakes as Wake[]).map(wakeLine).join('\n') || '(no seat has open items)';
  const item = r.item as Item;
  if (Array.isArray(r.transitions)) {
    const moves = (r.transitions as Move[]).map(
      (t) =>
        `  ${new Date(t.at).toISOString()}  ${t.move ?? '?'}: ${t.from ?? '-'} → ${t.to}${t.fromSeat && t.toSeat && t.fromSeat !== t.toSeat ? ` (${t.fromSeat} → ${t.toSeat})` : ''}${t.actor ? ` by ${t.actor}` : ''}${t.note ? ` — ${t.note}` : ''}`,
    );
    return [itemLine(item), `  ${item.body}`, ...moves].join('\n');
  }
  if (r.from === undefined)
    return `queued #${item.id} for ${item.seat}${r.writer === 'none' ? ' (to be read on its next run)' : ''}`;
  return `#${item.id}: ${String(r.from)} → ${item.state}${r.fromSeat !== item.seat ? ` (${String(r.fromSeat)} → ${item.seat})` : ''}${item.state === 'claimed' && item.claimedBy ? ` by ${item.claimedBy}` : ''}`;
}

export const ACTIVITY_COMMANDS: CommandTable = {
  queue: {
    usage: [
      'queue add <member@rig> <text...> [--for-next-resume] [--by W]   queue work for a seat',
      "  queue list [--seat S] [--all] | show <id>                     items not done (--all: done too); one item's history",
      '  queue claim <id> [--by W] | handoff <id> <member@rig> | done <id> --note N | block <id> --note N',
      '  queue wake [--seat S]        tell idle seats about their open items (once per occupant and set of items)',
    ].join('\n'),
    toRequest: queueRequest,
    human: queueHuman,
  },
};

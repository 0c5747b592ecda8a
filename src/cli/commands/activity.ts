import type { AnswerOf, QueueItem, QueueTransition, WakeReport } from '../../shared/contract';
import { fail, type Result } from '../../shared/errors';
import type { ParsedArgs } from '../args';
import { type CommandTable, type Prepared, prepare } from './types';

/** The queue's commands: `rigdesk queue <verb> ...`. */

type Req = Result<{ prepared: Prepared }>;

const VERBS = 'add | list | show | claim | handoff | done | block | wake';

const bad = (message: string): Req =>
  fail('BAD_USAGE', message, { hint: `rigdesk queue ${VERBS}; rigdesk --help shows each.` });
const str = (a: ParsedArgs, flag: string) => {
  const v = a.flags[flag];
  return typeof v === 'string' ? v : undefined;
};
const ok = (prepared: Prepared): Req => ({ ok: true, prepared });
const by = (a: ParsedArgs) => {
  const v = str(a, 'by');
  return v !== undefined ? { by: v } : {};
};
const nextResume = (a: ParsedArgs) => (a.flags['for-next-resume'] ? { forNextResume: true } : {});

function idArg(v: string | undefined): number | undefined {
  const n = Number(v);
  return v !== undefined && /^\d+$/.test(v) && Number.isSafeInteger(n) && n >= 1 ? n : undefined;
}

function queueRequest(a: ParsedArgs): Req {
  const [verb, ...rest] = a.positionals;
  const id = idArg(rest[0]);
  const noId = () => bad(`queue ${verb} needs an item id (a whole number; rigdesk queue list shows them)`);
  switch (verb) {
    case 'add': {
      const [seat, ...words] = rest;
      if (seat === undefined || words.length === 0)
        return bad('queue add needs a seat and the text: rigdesk queue add <member@rig> <text...>');
      return ok(prepare('queue.add', { seat, text: words.join(' '), ...nextResume(a), ...by(a) }, addedLine));
    }
    case 'list': {
      const seat = str(a, 'seat');
      return ok(prepare('queue.list', { ...(seat ? { seat } : {}), ...(a.flags.all ? { all: true } : {}) }, listText));
    }
    case 'show':
      return id === undefined ? noId() : ok(prepare('queue.show', { id }, showText));
    case 'claim':
      return id === undefined ? noId() : ok(prepare('queue.claim', { id, ...by(a) }, movedLine));
    case 'handoff': {
      const seat = rest[1];
      if (seat === undefined)
        return bad('queue handoff needs an item id and a seat: rigdesk queue handoff <id> <member@rig>');
      if (id === undefined) return noId();
      const note = str(a, 'note');
      const params = { id, seat, ...nextResume(a), ...by(a), ...(note ? { note } : {}) };
      return ok(prepare('queue.handoff', params, movedLine));
    }
    case 'done':
    case 'block': {
      const note = str(a, 'note');
      if (id === undefined) return noId();
      if (!note?.trim())
        return bad(
          verb === 'done'
            ? 'queue done needs --note "<how it ended>": every closed item says so'
            : 'queue block needs --note "<why>"',
        );
      return ok(prepare(verb === 'done' ? 'queue.done' : 'queue.block', { id, note, ...by(a) }, movedLine));
    }
    case 'wake': {
      const seat = str(a, 'seat');
      return ok(prepare('queue.wake', seat ? { seat } : {}, wakeText));
    }
    default:
      return bad(verb ? `unknown queue verb "${verb}"` : 'queue needs a verb');
  }
}

const firstLine = (s: string, n = 72) => {
  const l = s.split('\n')[0]!;
  return l.length > n ? `${l.slice(0, n - 1)}…` : l;
};
const itemLine = (i: QueueItem) =>
  `#${i.id}\t${i.seat}\t${i.state}${i.claimedBy ? ` (${i.claimedBy})` : ''}${i.forNextResume ? ' [next resume]' : ''}\t${firstLine(i.body)}`;
const nextTry = (nextAt: number) => `; next try ${new Date(nextAt).toISOString()}`;

function wakeLine(w: WakeReport): string {
  const what = `${w.items.length} item(s)`;
  switch (w.outcome) {
    case 'woken':
      return `${w.seat}: woken about ${what} (wake ${w.token})`;
    case 'recovered':
      return `${w.seat}: already on its screen from an interrupted pass; recorded as woken (wake ${w.token})`;
    case 'held':
      return `${w.seat}: held (${w.why}), attempt ${w.attempt}${nextTry(w.nextAt)}`;
    case 'parked':
      return w.why === 'budget'
        ? `${w.seat}: parked: its budget is reached${w.decision !== undefined ? ` (decision ${w.decision}: rigdesk decide ${w.decision} release --reason R)` : ''}${nextTry(w.nextAt)}`
        : `${w.seat}: parked at its usage limit${nextTry(w.nextAt)}`;
    case 'already_woken':
      return `${w.seat}: already woken about these ${what}`;
    case 'not_due':
      return `${w.seat}: waiting to retry${nextTry(w.nextAt)}`;
    case 'in_flight':
      return `${w.seat}: another waker is on it`;
    case 'not_running':
      return `${w.seat}: not running; ${what} wait for its next run`;
  }
}

function moveLine(t: QueueTransition): string {
  const seats = t.fromSeat && t.toSeat && t.fromSeat !== t.toSeat ? ` (${t.fromSeat} → ${t.toSeat})` : '';
  return `  ${new Date(t.at).toISOString()}  ${t.move ?? '?'}: ${t.from ?? '-'} → ${t.to}${seats}${t.actor ? ` by ${t.actor}` : ''}${t.note ? ` — ${t.note}` : ''}`;
}

const addedLine = (r: AnswerOf<'queue.add'>) =>
  `queued #${r.item.id} for ${r.item.seat}${r.writer === 'none' ? ' (to be read on its next run)' : ''}`;
const listText = (r: AnswerOf<'queue.list'>) => r.items.map(itemLine).join('\n') || '(no queued items)';
const showText = (r: AnswerOf<'queue.show'>) =>
  [itemLine(r.item), `  ${r.item.body}`, ...r.transitions.map(moveLine)].join('\n');
const wakeText = (r: AnswerOf<'queue.wake'>) => r.wakes.map(wakeLine).join('\n') || '(no seat has open items)';

/** Any move (claim, handoff, done, block): where the item was and where it is now. */
function movedLine({ item, from, fromSeat }: AnswerOf<'queue.claim'>): string {
  const seats = fromSeat !== item.seat ? ` (${fromSeat} → ${item.seat})` : '';
  return `#${item.id}: ${from} → ${item.state}${seats}${item.state === 'claimed' && item.claimedBy ? ` by ${item.claimedBy}` : ''}`;
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
  },
};

import { fail, type Result } from '../../shared/errors';
import type { ParsedArgs } from '../args';
import type { CommandTable } from './types';

/** Snapshots, restore, decisions and the seat lifecycle. */

type Req = Result<{ method: string; params: Record<string, unknown> }>;

/**
 * `--reason R`: the shared parser only knows some value flags, so `--reason R` may arrive as a
 * bare flag plus a trailing positional. Take `--reason=R`, or the positionals after the `n` the
 * command needs.
 */
function reasonOf(a: ParsedArgs, n: number): string | undefined {
  if (typeof a.flags.reason === 'string') return a.flags.reason;
  if (a.flags.reason === true && a.positionals.length > n) return a.positionals.slice(n).join(' ');
  return undefined;
}

function valueOf(a: ParsedArgs, flag: string, n: number): string | undefined {
  if (typeof a.flags[flag] === 'string') return a.flags[flag] as string;
  if (a.flags[flag] === true && a.positionals.length > n) return a.positionals[n];
  return undefined;
}

const need = (a: ParsedArgs, n: number, what: string): Req | undefined =>
  a.positionals.length < n
    ? fail('BAD_USAGE', `${a.command} needs ${what}`, { hint: `rigdesk ${a.command} --help` })
    : undefined;

const plan = (a: ParsedArgs) => (a.flags.plan ? { plan: true } : {});
const rig = (a: ParsedArgs) => (typeof a.flags.rig === 'string' ? { rig: a.flags.rig } : {});

type Row = {
  seat: string;
  outcome: string;
  why?: string;
  code?: string;
  conversationId?: string;
  paneId?: string;
  decisionId?: number;
};
const seatLine = (s: Row) =>
  `${s.seat}: ${s.outcome}${s.code ? ` [${s.code}]` : ''}${s.conversationId ? ` conversation ${s.conversationId}` : ''}${s.paneId ? ` in ${s.paneId}` : ''}${s.decisionId ? ` (decision ${s.decisionId})` : ''}${s.why ? ` — ${s.why}` : ''}`;

export const RESTORE_COMMANDS: CommandTable = {
  snapshot: {
    usage: "snapshot <rig>                record every seat's runtime, cwd, conversation and stop flag",
    toRequest: (a) => need(a, 1, 'a rig name') ?? { ok: true, method: 'snapshot', params: { rig: a.positionals[0] } },
    human: (r) => {
      const s = r.snapshot as {
        id: number;
        rig: string;
        seats: { seat: string; state: string; conversationId: string | null; stoppedOnPurpose: boolean }[];
      };
      return [
        `snapshot ${s.id} of ${s.rig}`,
        ...s.seats.map(
          (x) =>
            `  ${x.seat}: ${x.state}${x.conversationId ? ` conversation ${x.conversationId}` : ''}${x.stoppedOnPurpose ? ' (stopped on purpose)' : ''}`,
        ),
      ].join('\n');
    },
  },
  snapshots: {
    usage: 'snapshots [--rig R]           list snapshots, newest first',
    toRequest: (a) => ({ ok: true, method: 'snapshots', params: rig(a) }),
    human: (r) =>
      (r.snapshots as { id: number; rig: string; reason: string; takenAt: number }[])
        .map((s) => `${s.id}\t${new Date(s.takenAt).toISOString()}\t${s.rig}\t${s.reason}`)
        .join('\n'),
  },
  restore: {
    usage:
      'restore <rig|snapshot-id> [--plan]  bring seats back on their conversations; ask where that cannot be proven',
    toRequest: (a) =>
      need(a, 1, 'a rig name or a snapshot id') ?? {
        ok: true,
        method: 'restore',
        params: { target: a.positionals[0], ...plan(a) },
      },
    human: (r) =>
      [
        `${r.rig}: ${r.planOnly ? 'plan, would end ' : ''}${r.outcome}${r.snapshotId ? ` (snapshot ${r.snapshotId})` : ''}`,
        ...(r.seats as Row[]).map((s) => `  ${seatLine(s)}`),
      ].join('\n'),
  },
  decisions: {
    usage: 'decisions [--rig R] [--all]   open decisions (restore: resume, fresh or leave stopped)',
    toRequest: (a) => ({ ok: true, method: 'decisions', params: { ...rig(a), ...(a.flags.all ? { all: true } : {}) } }),
    human: (r) =>
      (
        r.decisions as {
          id: number;
          seat: string;
          reason: string;
          conversationId: string | null;
          choices: string[];
          state: string;
          answer: string | null;
        }[]
      )
        .map(
          (d) =>
            `${d.id}\t${d.seat}\t${d.reason}${d.conversationId ? `\t${d.conversationId}` : ''}\t${d.state === 'open' ? `choices: ${d.choices.join(' | ')}` : `answered: ${d.answer}`}`,
        )
        .join('\n') || '(no open decisions)',
  },
  decide: {
    usage: 'decide <id> <resume|fresh|leave_stopped> --reason R   answer a decision (recorded)',
    toRequest: (a) => {
      const bad = need(a, 2, 'a decision id and a choice');
      if (bad) return bad;
      const id = Number(a.positionals[0]);
      if (!Number.isInteger(id) || id < 1)
        return fail('BAD_USAGE', 'the decision id is a whole number (rigdesk decisions lists them)');
      const reason = reasonOf(a, 2);
      if (!reason) return fail('BAD_USAGE', 'decide needs --reason: every answer is recorded with why');
      return { ok: true, method: 'decide', params: { id, choice: a.positionals[1], reason } };
    },
    human: (r) => {
      const d = r.decision as { id: number; seat: string; answer: string };
      return `decision ${d.id} (${d.seat}): ${d.answer}\n  ${seatLine(r.result as Row)}`;
    },
  },
  restart: {
    usage: 'restart <member@rig> --keep-conversation [--plan]  stop and resume on the same conversation',
    toRequest: (a) => {
      const bad = need(a, 1, 'a seat (member@rig)');
      if (bad) return bad;
      if (!a.flags['keep-conversation'])
        return fail(
          'BAD_USAGE',
          'restart needs --keep-conversation (to start over, use rigdesk fresh <seat> --reason R)',
        );
      return { ok: true, method: 'restart', params: { seat: a.positionals[0], keepConversation: true, ...plan(a) } };
    },
    human: (r) => {
      const p = r.plan as { seat: string; conversationId?: string; stop?: { paneId: string; pid: number } };
      return r.result
        ? seatLine(r.result as Row)
        : `${p.seat}: would stop pid ${p.stop?.pid} in ${p.stop?.paneId} and resume ${p.conversationId}`;
    },
  },
  fresh: {
    usage: 'fresh <member@rig> --reason R [--plan]  start a seat on a new conversation, with the reason on record',
    toRequest: (a) => {
      const bad = need(a, 1, 'a seat (member@rig)');
      if (bad) return bad;
      const reason = reasonOf(a, 1);
      if (!reason) return fail('BAD_USAGE', 'fresh needs --reason: leaving a conversation behind is recorded with why');
      return { ok: true, method: 'fresh', params: { seat: a.positionals[0], reason, ...plan(a) } };
    },
    human: (r) => {
      const p = r.plan as { seat: string; previousConversationId?: string; stop?: { paneId: string } };
      return r.result
        ? seatLine(r.result as Row)
        : `${p.seat}: would ${p.stop ? `stop ${p.stop.paneId} and ` : ''}start fresh${p.previousConversationId ? ` (leaving ${p.previousConversationId} on disk)` : ''}`;
    },
  },
  fork: {
    usage: "fork <member@rig> --as <member> [--plan]  a new seat in the same pod on a fork of this seat's conversation",
    toRequest: (a) => {
      const bad = need(a, 1, 'a seat (member@rig)');
      if (bad) return bad;
      const as = valueOf(a, 'as', 1);
      if (!as) return fail('BAD_USAGE', 'fork needs --as <member>');
      return { ok: true, method: 'fork', params: { seat: a.positionals[0], as, ...plan(a) } };
    },
    human: (r) => {
      const p = r.plan as { source: string; seat: string; from: string; conversationId?: string };
      const x = r.result as { outcome: string; conversationId?: string; paneId?: string; why: string } | undefined;
      if (!x) return `${p.seat}: would fork ${p.source}'s conversation ${p.from} into a new seat`;
      return `${p.seat}: ${x.outcome}${x.conversationId ? ` conversation ${x.conversationId}` : ''} (from ${p.from} of ${p.source})${x.paneId ? ` in ${x.paneId}` : ''}${x.outcome === 'forked' ? '' : ` — ${x.why}`}`;
    },
  },
  reconcile: {
    usage: 'reconcile                     compare the store with tmux and record what changed',
    toRequest: () => ({ ok: true, method: 'reconcile', params: {} }),
    human: (r) => {
      const x = r.report as {
        ended: unknown[];
        reservations: unknown[];
        interruptedRuns: unknown[];
        unexplained: unknown[];
      };
      return `ended ${x.ended.length} vanished session(s), settled ${x.reservations.length} reservation(s), ${x.interruptedRuns.length} interrupted restore(s), ${x.unexplained.length} unexplained`;
    },
  },
};

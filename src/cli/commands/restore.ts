import { DECISION_CHOICE, type DecisionOutcome, type SeatPreview } from '../../shared/contract';
import { fail, type Failure } from '../../shared/errors';
import type { ParsedArgs } from '../args';
import { type CommandSpec, prepare } from './types';

/** Snapshots, restore, decisions and the seat lifecycle. */

/**
 * `--reason R`: the shared parser only knows some value flags, so `--reason R` may arrive as a
 * bare flag plus a trailing positional. Take `--reason=R`, or the positionals after the `n` the
 * command needs.
 */
function reasonOf(a: ParsedArgs, n: number): string | undefined {
  const flag = a.flags.reason;
  if (typeof flag === 'string') return flag;
  if (flag === true && a.positionals.length > n) return a.positionals.slice(n).join(' ');
  return undefined;
}

function flagValue(a: ParsedArgs, name: string, n: number): string | undefined {
  const flag = a.flags[name];
  if (typeof flag === 'string') return flag;
  if (flag === true && a.positionals.length > n) return a.positionals[n];
  return undefined;
}

/** The `n`th positional, or a usage failure naming what is missing. */
function positional(a: ParsedArgs, n: number, what: string): { ok: true; value: string } | Failure {
  const value = a.positionals[n];
  return value === undefined
    ? fail('BAD_USAGE', `${a.command} needs ${what}`, { hint: `rigdesk ${a.command} --help` })
    : { ok: true, value };
}

const plan = (a: ParsedArgs) => (a.flags.plan ? { plan: true } : {});
const rig = (a: ParsedArgs) => (typeof a.flags.rig === 'string' ? { rig: a.flags.rig } : {});

/** One seat of a restore, a preview, or a decision's answer, on one line. */
function seatLine(s: SeatPreview | DecisionOutcome): string {
  const code = 'code' in s && s.code ? ` [${s.code}]` : '';
  const conversation = 'conversationId' in s && s.conversationId ? ` conversation ${s.conversationId}` : '';
  const pane = 'paneId' in s && s.paneId ? ` in ${s.paneId}` : '';
  const decision = 'decisionId' in s && s.decisionId ? ` (decision ${s.decisionId})` : '';
  const why = 'why' in s && s.why ? ` — ${s.why}` : '';
  return `${s.seat}: ${s.outcome}${code}${conversation}${pane}${decision}${why}`;
}

export const RESTORE_COMMANDS: Record<string, CommandSpec> = {
  snapshot: {
    usage: "snapshot <rig>                record every seat's runtime, cwd, conversation and stop flag",
    toRequest: (a) => {
      const r = positional(a, 0, 'a rig name');
      if (!r.ok) return r;
      return {
        ok: true,
        prepared: prepare('snapshot', { rig: r.value }, ({ snapshot: s }) =>
          [
            `snapshot ${s.id} of ${s.rig}`,
            ...s.seats.map(
              (x) =>
                `  ${x.seat}: ${x.state}${x.conversationId ? ` conversation ${x.conversationId}` : ''}${x.stoppedOnPurpose ? ' (stopped on purpose)' : ''}`,
            ),
          ].join('\n'),
        ),
      };
    },
  },
  snapshots: {
    usage: 'snapshots [--rig R]           list snapshots, newest first',
    toRequest: (a) => ({
      ok: true,
      prepared: prepare('snapshots', rig(a), ({ snapshots }) =>
        snapshots.map((s) => `${s.id}\t${new Date(s.takenAt).toISOString()}\t${s.rig}\t${s.reason}`).join('\n'),
      ),
    }),
  },
  restore: {
    usage:
      'restore <rig|snapshot-id> [--plan]  bring seats back on their conversations; ask where that cannot be proven',
    toRequest: (a) => {
      const target = positional(a, 0, 'a rig name or a snapshot id');
      if (!target.ok) return target;
      return {
        ok: true,
        prepared: prepare('restore', { target: target.value, ...plan(a) }, (r) =>
          [
            `${r.rig}: ${r.planOnly ? 'plan, would end ' : ''}${r.outcome}${r.snapshotId ? ` (snapshot ${r.snapshotId})` : ''}`,
            ...r.seats.map((s) => `  ${seatLine(s)}`),
          ].join('\n'),
        ),
      };
    },
  },
  decisions: {
    usage: 'decisions [--rig R] [--all]   open decisions (restore: resume, fresh or leave stopped; budget: release)',
    toRequest: (a) => ({
      ok: true,
      prepared: prepare(
        'decisions',
        { ...rig(a), ...(a.flags.all ? { all: true } : {}) },
        ({ decisions }) =>
          decisions
            .map(
              (d) =>
                `${d.id}\t${d.seat}\t${d.reason}${d.conversationId ? `\t${d.conversationId}` : ''}${d.kind === 'budget' ? `\t${String(d.evidence.why)}` : ''}\t${d.state === 'open' ? `choices: ${d.choices.join(' | ')}` : `answered: ${d.answer}`}`,
            )
            .join('\n') || '(no open decisions)',
      ),
    }),
  },
  decide: {
    usage: 'decide <id> <resume|fresh|leave_stopped|release> --reason R   answer a decision (recorded)',
    toRequest: (a) => {
      if (a.positionals.length < 2)
        return fail('BAD_USAGE', `${a.command} needs a decision id and a choice`, {
          hint: `rigdesk ${a.command} --help`,
        });
      const id = Number(a.positionals[0]);
      if (!Number.isInteger(id) || id < 1)
        return fail('BAD_USAGE', 'the decision id is a whole number (rigdesk decisions lists them)');
      const choice = DECISION_CHOICE.safeParse(a.positionals[1]);
      if (!choice.success)
        return fail('BAD_USAGE', `the choice is one of ${DECISION_CHOICE.options.join(', ')}`, {
          hint: 'rigdesk decisions lists what each decision offers.',
        });
      const reason = reasonOf(a, 2);
      if (!reason) return fail('BAD_USAGE', 'decide needs --reason: every answer is recorded with why');
      return {
        ok: true,
        prepared: prepare(
          'decide',
          { id, choice: choice.data, reason },
          ({ decision: d, result }) => `decision ${d.id} (${d.seat}): ${d.answer}\n  ${seatLine(result)}`,
        ),
      };
    },
  },
  restart: {
    usage: 'restart <member@rig> --keep-conversation [--plan]  stop and resume on the same conversation',
    toRequest: (a) => {
      const seat = positional(a, 0, 'a seat (member@rig)');
      if (!seat.ok) return seat;
      if (!a.flags['keep-conversation'])
        return fail(
          'BAD_USAGE',
          'restart needs --keep-conversation (to start over, use rigdesk fresh <seat> --reason R)',
        );
      return {
        ok: true,
        prepared: prepare('restart', { seat: seat.value, keepConversation: true, ...plan(a) }, (r) =>
          'result' in r
            ? seatLine(r.result)
            : `${r.plan.seat}: would stop pid ${r.plan.stop.pid} in ${r.plan.stop.paneId} and resume ${r.plan.conversationId}`,
        ),
      };
    },
  },
  fresh: {
    usage: 'fresh <member@rig> --reason R [--plan]  start a seat on a new conversation, with the reason on record',
    toRequest: (a) => {
      const seat = positional(a, 0, 'a seat (member@rig)');
      if (!seat.ok) return seat;
      const reason = reasonOf(a, 1);
      if (!reason) return fail('BAD_USAGE', 'fresh needs --reason: leaving a conversation behind is recorded with why');
      return {
        ok: true,
        prepared: prepare('fresh', { seat: seat.value, reason, ...plan(a) }, (r) => {
          if ('result' in r) return seatLine(r.result);
          const p = r.plan;
          return `${p.seat}: would ${p.stop ? `stop ${p.stop.paneId} and ` : ''}start fresh${p.previousConversationId ? ` (leaving ${p.previousConversationId} on disk)` : ''}`;
        }),
      };
    },
  },
  fork: {
    usage: "fork <member@rig> --as <member> [--plan]  a new seat in the same pod on a fork of this seat's conversation",
    toRequest: (a) => {
      const seat = positional(a, 0, 'a seat (member@rig)');
      if (!seat.ok) return seat;
      const as = flagValue(a, 'as', 1);
      if (!as) return fail('BAD_USAGE', 'fork needs --as <member>');
      return {
        ok: true,
        prepared: prepare('fork', { seat: seat.value, as, ...plan(a) }, (r) => {
          const p = r.plan;
          if (!('result' in r)) return `${p.seat}: would fork ${p.source}'s conversation ${p.from} into a new seat`;
          const x = r.result;
          return `${p.seat}: ${x.outcome}${x.conversationId ? ` conversation ${x.conversationId}` : ''} (from ${p.from} of ${p.source}) in ${x.paneId}${x.outcome === 'forked' ? '' : ` — ${x.why}`}`;
        }),
      };
    },
  },
  reconcile: {
    usage: 'reconcile                     compare the store with tmux and record what changed',
    toRequest: () => ({
      ok: true,
      prepared: prepare(
        'reconcile',
        {},
        ({ report: x }) =>
          `ended ${x.ended.length} vanished session(s), settled ${x.reservations.length} reservation(s), ${x.interruptedRuns.length} interrupted restore(s), ${x.unexplained.length} unexplained`,
      ),
    }),
  },
};

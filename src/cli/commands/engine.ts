import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { ClientParams, StoppedSeat } from '../../shared/contract';
import { type Failure, fail, type Result } from '../../shared/errors';
import { MAX_SEND_CHARS } from '../../main/engine/delivery/text';
import { readAtMost, readRegularText, refusedFile } from '../../main/engine/read-file';
import { MAX_SPEC_BYTES } from '../../main/engine/spec';
import type { ParsedArgs } from '../args';
import { commandLine, formatPs } from '../format';
import { type CommandSpec, type Prepared, prepare } from './types';

/** The engine core's commands: each prepares its request, typed by its method, with its reader. */

type Prep = Result<{ prepared: Prepared }>;
const ready = (prepared: Prepared): Prep => ({ ok: true, prepared });

/** The first `n` positionals, or the usage failure that names what is missing. */
function positionals(a: ParsedArgs, n: number, what: string): Result<{ args: string[] }> {
  if (a.positionals.length < n)
    return fail('BAD_USAGE', `${a.command} needs ${what}`, { hint: `rigdesk ${a.command} --help` });
  return { ok: true, args: a.positionals };
}

/** The seat named first, for the commands that take one. */
function seatOf(a: ParsedArgs): Result<{ seat: string }> {
  const p = positionals(a, 1, 'a seat (member@rig)');
  return p.ok ? { ok: true, seat: p.args[0]! } : p;
}

const str = (a: ParsedArgs, flag: string): string | undefined =>
  typeof a.flags[flag] === 'string' ? a.flags[flag] : undefined;

/** How one seat's stop reads, for stop and down alike. */
function stoppedLine(s: StoppedSeat): string {
  const why = s.outcome === 'already_gone' && s.why ? ` (${s.why})` : '';
  return `${s.seat}: ${s.outcome.replace('_', ' ')}${why}`;
}

/**
 * The most `send` reads: well past what the engine takes (MAX_SEND_CHARS characters), so a text a
 * little too long gets the engine's own TEXT_TOO_LONG, and well within its request line.
 */
const SEND_TEXT_MAX_BYTES = 20 * MAX_SEND_CHARS;

/**
 * `--file F`: a regular file of bounded size, opened without waiting (read-file.ts); `-`: stdin,
 * which the person chose to wait on, read up to the same bound.
 */
function readTextArg(path: string, stdin = false): Result<{ text: string }> {
  try {
    const text = stdin ? readAtMost(path, SEND_TEXT_MAX_BYTES) : readRegularText(path, SEND_TEXT_MAX_BYTES);
    return { ok: true, text };
  } catch (e) {
    return (
      refusedFile(e, 'the text to send in') ??
      fail('BAD_USAGE', `cannot read the text to send from ${path}: ${(e as Error).message}`)
    );
  }
}

/** The text to send: `--file F`, `-` for stdin, or the words after the seat. */
function sendText(a: ParsedArgs): Result<{ seat: string; text: string }> {
  const p = a.positionals;
  // Long text cannot travel as one argv string (the kernel caps each at 128 KiB): --file or '-'.
  const file = str(a, 'file');
  if (file !== undefined) {
    const text = readTextArg(file);
    if (!text.ok) return text;
    const seat = seatOf(a);
    return seat.ok ? { ok: true, seat: seat.seat, text: text.text } : seat;
  }
  if (p.length === 2 && p[1] === '-') {
    const text = readTextArg('/dev/stdin', true);
    return text.ok ? { ok: true, seat: p[0]!, text: text.text } : text;
  }
  const words = positionals(a, 2, 'a seat and the text');
  return words.ok ? { ok: true, seat: words.args[0]!, text: words.args.slice(1).join(' ') } : words;
}

/** send's flags beside the seat and the text. */
function sendOptions(a: ParsedArgs): Failure | Omit<ClientParams<'send'>, 'seat' | 'text'> {
  const out: Omit<ClientParams<'send'>, 'seat' | 'text'> = {};
  if (a.flags['wait-for-idle'] !== undefined) {
    const n = Number(a.flags['wait-for-idle']);
    if (!Number.isFinite(n) || n < 0) return fail('BAD_USAGE', '--wait-for-idle takes a number of seconds');
    out.waitForIdle = n;
  }
  if (a.flags.force) out.force = true;
  const reason = str(a, 'reason');
  if (reason !== undefined) out.reason = reason;
  if (a.flags.verify) out.verify = true;
  if (a.flags['no-verify']) out.verify = false;
  return out;
}

/**
 * The rig a spec file names, read only for `up`'s progress (its rows are that rig's); anything
 * unreadable leaves it unnamed, and the engine's own reading of the spec gives the answer.
 */
function rigNamedIn(path: string): { rig?: string } {
  try {
    // Bounded and never waiting, as the engine reads it: a FIFO here must not hold the CLI either.
    const name: unknown = parseYaml(readRegularText(path, MAX_SPEC_BYTES))?.name;
    return typeof name === 'string' && name ? { rig: name } : {};
  } catch {
    return {};
  }
}

const up: CommandSpec = {
  usage: 'up <spec.yaml>               validate a rig spec, record it, launch every seat',
  toRequest: (a) => {
    const p = positionals(a, 1, 'a rig spec path');
    if (!p.ok) return p;
    const spec = resolve(p.args[0]!);
    return ready(
      prepare(
        'up',
        { spec },
        (r) =>
          r.seats
            .map(
              (s) =>
                `${s.seat}: ${s.outcome}${s.outcome === 'launched' ? ` (${s.launched.paneId}; attach: ${commandLine(s.launched.attach)})` : ''}`,
            )
            .join('\n'),
        () => rigNamedIn(spec),
      ),
    );
  },
};

const ps: CommandSpec = {
  usage: 'ps [--rig R] [--all]         seats with runtime, pane, pid, activity (--all: other agents too)',
  toRequest: (a) => {
    const rig = str(a, 'rig');
    // A one-shot engine reads each seat's changes for the CHANGES column; a serving engine keeps them.
    const params = { ...(rig !== undefined ? { rig } : {}), ...(a.flags.all ? { all: true } : {}), changes: true };
    return ready(prepare('ps', params, (r) => formatPs(r.seats, r.others, r.problems)));
  },
};

const launch: CommandSpec = {
  usage: 'launch <member@rig> [--fresh] start a stopped seat (on its last conversation when it can)',
  toRequest: (a) => {
    const s = seatOf(a);
    if (!s.ok) return s;
    return ready(
      prepare('launch', { seat: s.seat, ...(a.flags.fresh ? { fresh: true } : {}) }, ({ launched: l }) => {
        const on = l.conversationId ? `, conversation ${l.conversationId}` : '';
        return `${l.seat}: launched (${l.mode}${on}) in ${l.paneId}\nattach: ${commandLine(l.attach)}`;
      }),
    );
  },
};

const stop: CommandSpec = {
  usage: "stop <member@rig>            end a seat's agent by exact cleanup; recorded as intentional",
  toRequest: (a) => {
    const s = seatOf(a);
    if (!s.ok) return s;
    return ready(
      prepare('stop', { seat: s.seat }, ({ stopped }) => {
        const left = (stopped.outcome === 'not_running' ? [] : (stopped.leftRunning ?? [])).map(
          (l) => `left running: the ${l.runtime} daemon of ${l.home} (pid ${l.pid}): ${l.why}`,
        );
        return [stoppedLine(stopped), ...left].join('\n');
      }),
    );
  },
};

const down: CommandSpec = {
  usage: 'down <rig>                   stop every seat of a rig',
  toRequest: (a) => {
    const p = positionals(a, 1, 'a rig name');
    if (!p.ok) return p;
    return ready(prepare('down', { rig: p.args[0]! }, (r) => r.seats.map(stoppedLine).join('\n')));
  },
};

const send: CommandSpec = {
  usage:
    'send <member@rig> <text...>  paste text and press Enter (--file F or - for long text; --wait-for-idle N; --no-verify; --force --reason R)',
  toRequest: (a) => {
    const opts = sendOptions(a);
    if ('ok' in opts) return opts;
    const t = sendText(a);
    if (!t.ok) return t;
    return ready(
      prepare('send', { seat: t.seat, text: t.text, ...opts }, ({ sent: s }) =>
        [`${s.seat}: ${s.status} (${s.chars} characters)`, ...s.warnings.map((w) => `warning: ${w}`)].join('\n'),
      ),
    );
  },
};

const capture: CommandSpec = {
  usage: "capture <member@rig> [--lines N]  print the seat's screen (and N lines of history)",
  toRequest: (a) => {
    const lines = a.flags.lines === undefined ? undefined : Number(a.flags.lines);
    if (lines !== undefined && (!Number.isInteger(lines) || lines < 0))
      return fail('BAD_USAGE', '--lines takes a whole number');
    const s = seatOf(a);
    if (!s.ok) return s;
    const params = { seat: s.seat, ...(lines !== undefined ? { lines } : {}) };
    return ready(prepare('capture', params, (r) => r.text.replace(/\n+$/, '')));
  },
};

const attach: CommandSpec = {
  usage: "attach <member@rig> [--print]     attach this terminal to the seat's tmux session",
  toRequest: (a) => {
    const s = seatOf(a);
    if (!s.ok) return s;
    return ready(prepare('attach', { seat: s.seat }, (r) => commandLine(r.argv)));
  },
};

const events: CommandSpec = {
  usage: 'events [--seat S] [--rig R]  the event log',
  toRequest: (a) => {
    const seat = str(a, 'seat');
    const rig = str(a, 'rig');
    const params = { ...(seat !== undefined ? { seat } : {}), ...(rig !== undefined ? { rig } : {}) };
    return ready(
      prepare('events', params, (r) =>
        r.events.map((e) => `${e.seq}\t${new Date(e.at).toISOString()}\t${e.kind}\t${e.seat ?? ''}`).join('\n'),
      ),
    );
  },
};

const doctor: CommandSpec = {
  usage:
    'doctor [--fix]               check tmux, the agent CLIs, the home and the database (--fix ends a stuck tmux server)',
  toRequest: (a) =>
    ready(
      prepare('doctor', a.flags.fix ? { fix: true } : {}, (r) =>
        r.checks
          .map(
            (c) =>
              `${c.ok ? 'ok  ' : 'FAIL'} ${c.check}: ${c.detail}${c.hint && !c.ok ? `\n     next: ${c.hint}` : ''}`,
          )
          .join('\n'),
      ),
    ),
};

/** In the order `rigdesk --help` lists them. */
export const ENGINE_COMMANDS: Record<string, CommandSpec> = {
  up,
  ps,
  launch,
  stop,
  down,
  send,
  capture,
  attach,
  events,
  doctor,
};

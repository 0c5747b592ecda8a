import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { PsAgent, PsRow } from '../../shared/contract';
import { fail, type Result } from '../../shared/errors';
import type { ParsedArgs } from '../args';
import { commandLine, formatPs } from '../format';
import type { CommandTable } from './types';

/** The engine core's commands. */

function engineRequest(a: ParsedArgs): Result<{ method: string; params: Record<string, unknown> }> {
  const p = a.positionals;
  const need = (n: number, what: string) =>
    p.length < n ? fail('BAD_USAGE', `${a.command} needs ${what}`, { hint: `rigdesk ${a.command} --help` }) : undefined;
  switch (a.command) {
    case 'up':
      return need(1, 'a rig spec path') ?? { ok: true, method: 'up', params: { spec: resolve(p[0]!) } };
    case 'ps':
      return {
        ok: true,
        method: 'ps',
        params: {
          ...(typeof a.flags.rig === 'string' ? { rig: a.flags.rig } : {}),
          ...(a.flags.all ? { all: true } : {}),
        },
      };
    case 'launch':
      return (
        need(1, 'a seat (member@rig)') ?? {
          ok: true,
          method: 'launch',
          params: { seat: p[0], ...(a.flags.fresh ? { fresh: true } : {}) },
        }
      );
    case 'stop':
      return need(1, 'a seat (member@rig)') ?? { ok: true, method: 'stop', params: { seat: p[0] } };
    case 'down':
      return need(1, 'a rig name') ?? { ok: true, method: 'down', params: { rig: p[0] } };
    case 'capture': {
      const lines = a.flags.lines === undefined ? undefined : Number(a.flags.lines);
      if (lines !== undefined && (!Number.isInteger(lines) || lines < 0))
        return fail('BAD_USAGE', '--lines takes a whole number');
      return (
        need(1, 'a seat (member@rig)') ?? {
          ok: true,
          method: 'capture',
          params: { seat: p[0], ...(lines !== undefined ? { lines } : {}) },
        }
      );
    }
    case 'attach':
      return need(1, 'a seat (member@rig)') ?? { ok: true, method: 'attach', params: { seat: p[0] } };
    case 'doctor':
      return { ok: true, method: 'doctor', params: {} };
    case 'events':
      return {
        ok: true,
        method: 'events',
        params: {
          ...(typeof a.flags.seat === 'string' ? { seat: a.flags.seat } : {}),
          ...(typeof a.flags.rig === 'string' ? { rig: a.flags.rig } : {}),
        },
      };
    case 'send': {
      const extra: Record<string, unknown> = {};
      if (a.flags['wait-for-idle'] !== undefined) {
        const n = Number(a.flags['wait-for-idle']);
        if (!Number.isFinite(n) || n < 0) return fail('BAD_USAGE', '--wait-for-idle takes a number of seconds');
        extra.waitForIdle = n;
      }
      if (a.flags.force) extra.force = true;
      if (typeof a.flags.reason === 'string') extra.reason = a.flags.reason;
      if (a.flags.verify) extra.verify = true;
      if (a.flags['no-verify']) extra.verify = false;
      const r = sendRequest(a, p, need);
      return r.ok ? { ...r, params: { ...r.params, ...extra } } : r;
    }
    default:
      return fail('BAD_USAGE', a.command ? `unknown command "${a.command}"` : 'no command given', {
        hint: 'rigdesk --help lists the commands.',
      });
  }
}

function sendRequest(
  a: ParsedArgs,
  p: string[],
  need: (n: number, what: string) => ReturnType<typeof fail> | undefined,
): Result<{ method: string; params: Record<string, unknown> }> {
  switch (a.command) {
    case 'send': {
      // Long text cannot travel as one argv string (the kernel caps each at 128 KiB): --file or '-'.
      if (typeof a.flags.file === 'string') {
        const text = readTextArg(a.flags.file);
        if (!text.ok) return text;
        return need(1, 'a seat (member@rig)') ?? { ok: true, method: 'send', params: { seat: p[0], text: text.text } };
      }
      if (p.length === 2 && p[1] === '-') {
        const text = readTextArg('/dev/stdin');
        if (!text.ok) return text;
        return { ok: true, method: 'send', params: { seat: p[0], text: text.text } };
      }
      return (
        need(2, 'a seat and the text') ?? {
          ok: true,
          method: 'send',
          params: { seat: p[0], text: p.slice(1).join(' ') },
        }
      );
    }
    default:
      return fail('BAD_USAGE', `not a send: ${a.command}`);
  }
}

function readTextArg(path: string): Result<{ text: string }> {
  try {
    return { ok: true, text: readFileSync(path, 'utf8') };
  } catch (e) {
    return fail('BAD_USAGE', `cannot read the text to send from ${path}: ${(e as Error).message}`);
  }
}

function engineHuman(method: string, r: Record<string, unknown>): string {
  switch (method) {
    case 'ps':
      return formatPs(r.seats as PsRow[], r.others as PsAgent[], r.problems as string[]);
    case 'up':
      return (r.seats as { seat: string; outcome: string; launched?: { paneId: string; attach: string[] } }[])
        .map(
          (s) =>
            `${s.seat}: ${s.outcome}${s.launched ? ` (${s.launched.paneId}; attach: ${commandLine(s.launched.attach)})` : ''}`,
        )
        .join('\n');
    case 'launch': {
      const l = r.launched as { seat: string; mode: string; paneId: string; conversationId?: string; attach: string[] };
      return `${l.seat}: launched (${l.mode}${l.conversationId ? `, conversation ${l.conversationId}` : ''}) in ${l.paneId}\nattach: ${commandLine(l.attach)}`;
    }
    case 'stop': {
      const s = r.stopped as {
        seat: string;
        outcome: string;
        why?: string;
        leftRunning?: { runtime: string; pid: number; home: string; why: string }[];
      };
      const left = (s.leftRunning ?? []).map(
        (l) => `left running: the ${l.runtime} daemon of ${l.home} (pid ${l.pid}): ${l.why}`,
      );
      return [`${s.seat}: ${s.outcome.replace('_', ' ')}${s.why ? ` (${s.why})` : ''}`, ...left].join('\n');
    }
    case 'down':
      return (r.seats as { seat: string; outcome: string; why?: string }[])
        .map((s) => `${s.seat}: ${s.outcome.replace('_', ' ')}${s.why ? ` (${s.why})` : ''}`)
        .join('\n');
    case 'send': {
      const s = r.sent as { seat: string; status: string; chars: number; warnings: string[] };
      return [`${s.seat}: ${s.status} (${s.chars} characters)`, ...s.warnings.map((w) => `warning: ${w}`)].join('\n');
    }
    case 'capture':
      return String(r.text).replace(/\n+$/, '');
    case 'attach':
      return commandLine(r.argv as string[]);
    case 'doctor':
      return (r.checks as { check: string; ok: boolean; detail: string; hint?: string }[])
        .map(
          (c) => `${c.ok ? 'ok  ' : 'FAIL'} ${c.check}: ${c.detail}${c.hint && !c.ok ? `\n     next: ${c.hint}` : ''}`,
        )
        .join('\n');
    case 'events':
      return (r.events as { seq: number; at: number; kind: string; seat: string | null }[])
        .map((e) => `${e.seq}\t${new Date(e.at).toISOString()}\t${e.kind}\t${e.seat ?? ''}`)
        .join('\n');
    default:
      return JSON.stringify(r, null, 2);
  }
}

const ENGINE_USAGE: Record<string, string> = {
  up: 'up <spec.yaml>               validate a rig spec, record it, launch every seat',
  ps: 'ps [--rig R] [--all]         seats with runtime, pane, pid, activity (--all: other agents too)',
  launch: 'launch <member@rig> [--fresh] start a stopped seat (on its last conversation when it can)',
  stop: "stop <member@rig>            end a seat's agent by exact cleanup; recorded as intentional",
  down: 'down <rig>                   stop every seat of a rig',
  send: 'send <member@rig> <text...>  paste text and press Enter (--file F or - for long text; --wait-for-idle N; --no-verify; --force --reason R)',
  capture: "capture <member@rig> [--lines N]  print the seat's screen (and N lines of history)",
  attach: "attach <member@rig> [--print]     attach this terminal to the seat's tmux session",
  events: 'events [--seat S] [--rig R]  the event log',
  doctor: 'doctor                       check tmux, the agent CLIs, the home and the database',
};

export const ENGINE_COMMANDS: CommandTable = Object.fromEntries(
  Object.entries(ENGINE_USAGE).map(([name, usage]) => [
    name,
    {
      usage,
      toRequest: (a: ParsedArgs) => engineRequest({ ...a, command: name }),
      human: (r: Record<string, unknown>) => engineHuman(name, r),
    },
  ]),
);

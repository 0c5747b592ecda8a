import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { PsAgent, PsRow } from '../shared/contract';
import { exitCodeFor, fail, type Failure, type Result } from '../shared/errors';
import { dispatch } from '../main/engine/api';
import { liveEngineDeps } from '../main/engine/context';
import { Engine } from '../main/engine/engine';
import { resolveHome } from '../main/engine/home';
import { callRunningEngine } from '../main/engine/rpc/client';
import { serveEngineSocket } from '../main/engine/rpc/server';
import { parseArgs, USAGE, type ParsedArgs } from './args';
import { commandLine, formatFailure, formatPs } from './format';

type Out = { stdout: (s: string) => void; stderr: (s: string) => void };

function toRequest(a: ParsedArgs): Result<{ method: string; params: Record<string, unknown> }> {
  const p = a.positionals;
  const need = (n: number, what: string) => (p.length < n ? fail('BAD_USAGE', `${a.command} needs ${what}`, { hint: `rigdesk ${a.command} --help` }) : undefined);
  switch (a.command) {
    case 'up': return need(1, 'a rig spec path') ?? { ok: true, method: 'up', params: { spec: resolve(p[0]!) } };
    case 'ps': return { ok: true, method: 'ps', params: { ...(typeof a.flags.rig === 'string' ? { rig: a.flags.rig } : {}), ...(a.flags.all ? { all: true } : {}) } };
    case 'launch': return need(1, 'a seat (member@rig)') ?? { ok: true, method: 'launch', params: { seat: p[0], ...(a.flags.fresh ? { fresh: true } : {}) } };
    case 'stop': return need(1, 'a seat (member@rig)') ?? { ok: true, method: 'stop', params: { seat: p[0] } };
    case 'down': return need(1, 'a rig name') ?? { ok: true, method: 'down', params: { rig: p[0] } };
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
      return need(2, 'a seat and the text') ?? { ok: true, method: 'send', params: { seat: p[0], text: p.slice(1).join(' ') } };
    }
    case 'capture': {
      const lines = a.flags.lines === undefined ? undefined : Number(a.flags.lines);
      if (lines !== undefined && (!Number.isInteger(lines) || lines < 0)) return fail('BAD_USAGE', '--lines takes a whole number');
      return need(1, 'a seat (member@rig)') ?? { ok: true, method: 'capture', params: { seat: p[0], ...(lines !== undefined ? { lines } : {}) } };
    }
    case 'attach': return need(1, 'a seat (member@rig)') ?? { ok: true, method: 'attach', params: { seat: p[0] } };
    case 'doctor': return { ok: true, method: 'doctor', params: {} };
    case 'events': return { ok: true, method: 'events', params: { ...(typeof a.flags.seat === 'string' ? { seat: a.flags.seat } : {}), ...(typeof a.flags.rig === 'string' ? { rig: a.flags.rig } : {}) } };
    default: return fail('BAD_USAGE', a.command ? `unknown command "${a.command}"` : 'no command given', { hint: 'rigdesk --help lists the commands.' });
  }
}

function readTextArg(path: string): Result<{ text: string }> {
  try {
    return { ok: true, text: readFileSync(path, 'utf8') };
  } catch (e) {
    return fail('BAD_USAGE', `cannot read the text to send from ${path}: ${(e as Error).message}`);
  }
}

/** Runs the request on a running engine if there is one, else on an engine in this process. */
async function execute(method: string, params: Record<string, unknown>, env: NodeJS.ProcessEnv): Promise<Result<Record<string, unknown>>> {
  const layout = resolveHome(env);
  const remote = await callRunningEngine(layout.engineInfoPath, method, params);
  if (remote) return remote;
  // Scripts that must act through the app's engine (and never start their own) say so.
  if (env.RIGDESK_REQUIRE_ENGINE === '1') {
    return fail('ENGINE_UNREACHABLE', `no Rigdesk engine is running for ${layout.home}`, { hint: 'Start the app or `rigdesk serve`, or unset RIGDESK_REQUIRE_ENGINE to run one in this process.' });
  }
  mkdirSync(layout.home, { recursive: true, mode: 0o700 });
  const engine = new Engine(liveEngineDeps(env, { layout }));
  try {
    return await dispatch(engine, method, params);
  } finally {
    engine.store.close();
  }
}

function human(method: string, r: Record<string, unknown>): string {
  switch (method) {
    case 'ps': return formatPs(r.seats as PsRow[], r.others as PsAgent[], r.problems as string[]);
    case 'up': return (r.seats as { seat: string; outcome: string; launched?: { paneId: string; attach: string[] } }[]).map((s) => `${s.seat}: ${s.outcome}${s.launched ? ` (${s.launched.paneId}; attach: ${commandLine(s.launched.attach)})` : ''}`).join('\n');
    case 'launch': {
      const l = r.launched as { seat: string; mode: string; paneId: string; conversationId?: string; attach: string[] };
      return `${l.seat}: launched (${l.mode}${l.conversationId ? `, conversation ${l.conversationId}` : ''}) in ${l.paneId}\nattach: ${commandLine(l.attach)}`;
    }
    case 'stop': {
      const s = r.stopped as { seat: string; outcome: string; why?: string };
      return `${s.seat}: ${s.outcome.replace('_', ' ')}${s.why ? ` (${s.why})` : ''}`;
    }
    case 'down': return (r.seats as { seat: string; outcome: string; why?: string }[]).map((s) => `${s.seat}: ${s.outcome.replace('_', ' ')}${s.why ? ` (${s.why})` : ''}`).join('\n');
    case 'send': {
      const s = r.sent as { seat: string; status: string; chars: number; warnings: string[] };
      return [`${s.seat}: ${s.status} (${s.chars} characters)`, ...s.warnings.map((w) => `warning: ${w}`)].join('\n');
    }
    case 'capture': return String(r.text).replace(/\n+$/, '');
    case 'attach': return commandLine(r.argv as string[]);
    case 'doctor': return (r.checks as { check: string; ok: boolean; detail: string; hint?: string }[]).map((c) => `${c.ok ? 'ok  ' : 'FAIL'} ${c.check}: ${c.detail}${c.hint && !c.ok ? `\n     next: ${c.hint}` : ''}`).join('\n');
    case 'events': return (r.events as { seq: number; at: number; kind: string; seat: string | null }[]).map((e) => `${e.seq}\t${new Date(e.at).toISOString()}\t${e.kind}\t${e.seat ?? ''}`).join('\n');
    default: return JSON.stringify(r, null, 2);
  }
}

async function serve(env: NodeJS.ProcessEnv, out: Out, json: boolean): Promise<number> {
  const layout = resolveHome(env);
  mkdirSync(layout.home, { recursive: true, mode: 0o700 });
  const engine = new Engine(liveEngineDeps(env, { layout }));
  let handle;
  try {
    handle = await serveEngineSocket(engine);
  } catch (e) {
    const f = fail('ENGINE_UNREACHABLE', (e as Error).message, { hint: 'Use the running engine (the CLI finds it by itself), or stop it first.' });
    if (json) out.stdout(JSON.stringify(f) + '\n');
    else out.stderr(formatFailure(f) + '\n');
    return 1;
  }
  out.stdout(json ? JSON.stringify({ ok: true, serving: handle.info.socket, pid: process.pid }) + '\n' : `rigdesk engine serving ${handle.info.socket} (pid ${process.pid})\n`);
  await new Promise<void>((resolveStop) => {
    const stop = () => resolveStop();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await handle.close();
  engine.store.close();
  return 0;
}

export async function runCli(argv: readonly string[], env: NodeJS.ProcessEnv = process.env, out: Out = { stdout: (s) => process.stdout.write(s), stderr: (s) => process.stderr.write(s) }): Promise<number> {
  const a = parseArgs(argv);
  const json = a.flags.json === true;
  if (a.flags.version || a.command === 'version') {
    out.stdout(json ? JSON.stringify({ ok: true, version: '0.1.0' }) + '\n' : 'rigdesk 0.1.0\n');
    return 0;
  }
  if (a.flags.help || a.command === 'help' || a.command === undefined) {
    out.stdout(USAGE + '\n');
    return a.command === undefined && !a.flags.help ? 2 : 0;
  }
  if (a.command === 'serve') return serve(env, out, json);
  const req = toRequest(a);
  const report = (f: Failure) => {
    if (json) out.stdout(JSON.stringify(f) + '\n');
    else out.stderr(formatFailure(f) + '\n');
    return exitCodeFor(f.code);
  };
  if (!req.ok) return report(req);
  const res = await execute(req.method, req.params, env);
  if (!res.ok) return report(res);
  if (req.method === 'attach' && !json && !a.flags.print) {
    // Hand this terminal to tmux; the printed form is for people who want to paste it elsewhere.
    const argvAttach = res.argv as string[];
    const r = spawnSync(argvAttach[0]!, argvAttach.slice(1), { stdio: 'inherit', env: { ...env, TMUX: '' } });
    return r.status ?? 1;
  }
  out.stdout((json ? JSON.stringify(res) : human(req.method, res)) + '\n');
  return 0;
}

if (require.main === module) {
  runCli(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e: Error) => {
      process.stderr.write(`rigdesk: INTERNAL: ${e.stack ?? e.message}\n`);
      process.exit(1);
    },
  );
}

import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { startServe } from '../server/serve';
import { type ServeFlags, serveFlags } from './serve-flags';
import { PushHub } from '../main/window-hub/pushes';
import { startBackground } from '../main/engine/background';
import { exitCodeFor, fail, type Failure } from '../shared/errors';
import { dispatch } from '../main/engine/api';
import type { EngineCall } from '../shared/contract';
import { liveEngineDeps } from '../main/engine/context';
import { TmuxLinks } from '../main/engine/tmux/held';
import { Engine } from '../main/engine/engine';
import { resolveHome } from '../main/engine/home';
import { secureHome } from '../main/engine/home-safety';
import { callRunningEngine } from '../main/engine/rpc/client';
import { type EndWatch, signalExitCode, watchForEnd, within } from '../main/engine/lifetime';
import { serveEngineSocket } from '../main/engine/rpc/server';
import { parseArgs, USAGE_HEAD, USAGE_TAIL } from './args';
import { COMMANDS } from './commands';
import { formatFailure, reportLine } from './format';
import { FOLLOWED, withProgress } from './progress';

function usage(): string {
  return [USAGE_HEAD, ...Object.values(COMMANDS).map((c) => `  ${c.usage}`), USAGE_TAIL].join('\n');
}

/** The progress follower's timer. */
function after(fn: () => void, ms: number): { cancel(): void } {
  const t = setTimeout(fn, ms);
  return { cancel: () => clearTimeout(t) };
}

/** Where the CLI writes; `stderrTTY` (a person watching) turns progress lines on by default. */
type Out = { stdout: (s: string) => void; stderr: (s: string) => void; stderrTTY?: boolean };

/**
 * Runs requests on a running engine if there is one, else on one engine in this process, made at
 * the first request and kept for the rest (a command's progress reads its log while it runs). That
 * engine ends every process it started before the command exits, or when a signal or an uncaught
 * error ends the command early (lifetime.ts).
 */
function engineCall(
  env: NodeJS.ProcessEnv,
  out: Out,
): { call: EngineCall; close(): Promise<void>; endedBy(): number | undefined } {
  let local: Engine | undefined;
  let watch: EndWatch | undefined;
  /** The exit code a signal or an uncaught error chose, once one came: it wins over the command's own. */
  let endCode: number | undefined;
  const close = async () => {
    watch?.dispose();
    if (!local) return;
    // The hosts' ssh masters stay for the next command (Engine.close says why).
    await local.close(undefined, { sshMasters: 'leave' });
    local.store.close();
  };
  const call: EngineCall = async (method, params) => {
    if (local) return dispatch(local, method, params);
    const layout = resolveHome(env);
    // Before engine.json is trusted: a home others may write could point the CLI at their socket.
    const safe = secureHome(layout.home, process.getuid?.());
    if (!safe.ok) return safe;
    const remote = await callRunningEngine(layout.engineInfoPath, method, params);
    if (remote) return remote;
    // Scripts that must act through the app's engine (and never start their own) say so.
    if (env.RIGDESK_REQUIRE_ENGINE === '1') {
      return fail('ENGINE_UNREACHABLE', `no Rigdesk engine is running for ${layout.home}`, {
        hint: 'Start the app or `rigdesk serve`, or unset RIGDESK_REQUIRE_ENGINE to run one in this process.',
      });
    }
    const made = secureHome(layout.home, process.getuid?.(), { create: true });
    if (!made.ok) return made;
    if (!local) {
      // One-shot tmux commands, never a held control client: a control client attaching while a
      // session is made or closed can crash tmux 3.3a with every seat on it, and a command of its
      // own attaches one each time it runs (`rigdesk ps` in a loop beside a `rigdesk up`).
      local = new Engine(liveEngineDeps(env, { layout, tmux: new TmuxLinks('one-shot') }));
      watch = watchForEnd();
      const mine = local;
      void watch.reason.then(async (why) => {
        if (why.kind === 'fatal') out.stderr(`rigdesk: INTERNAL: ${why.error.stack ?? why.error.message}\n`);
        endCode = why.kind === 'fatal' ? 1 : signalExitCode(why.signal);
        await within(SHUTDOWN_MS, () => mine.close(undefined, { sshMasters: 'leave' }));
        process.exit(endCode);
      });
    }
    return dispatch(local, method, params);
  };
  return { call, close, endedBy: () => endCode };
}

/** How long an engine's process takes at most to end what it started, once asked to end. */
const SHUTDOWN_MS = 5_000;

async function serve(env: NodeJS.ProcessEnv, out: Out, json: boolean, flags: ServeFlags): Promise<number> {
  const refuse = (f: Failure) => {
    if (json) out.stdout(`${JSON.stringify(f)}\n`);
    else out.stderr(`${formatFailure(f)}\n`);
    return exitCodeFor(f.code);
  };
  const layout = resolveHome(env);
  const safe = secureHome(layout.home, process.getuid?.(), { create: true });
  if (!safe.ok) return refuse(safe);
  const engine = new Engine(liveEngineDeps(env, { layout }));
  // From here on a signal or an uncaught error ends the engine's processes before the exit.
  const watch = watchForEnd();
  let handle: Awaited<ReturnType<typeof serveEngineSocket>>;
  try {
    handle = await serveEngineSocket(engine);
  } catch (e) {
    watch.dispose();
    await engine.close();
    return refuse(
      fail('ENGINE_UNREACHABLE', (e as Error).message, {
        hint: 'Use the running engine (the CLI finds it by itself), or stop it first.',
      }),
    );
  }
  // Reconcile after a crash or a reboot, snapshots, the queue waker, the activity monitor.
  const background = await startBackground(engine, (r) => out.stderr(reportLine(r)));
  // The same engine hosts the window in a browser (the renderer over HTTP, the contract over a
  // WebSocket on 127.0.0.1 with a per-start token in the URL).
  let win: Awaited<ReturnType<typeof startServe>>;
  try {
    win = await startServe({
      engine,
      port: flags.port,
      staticDir: join(__dirname, '..', 'renderer'),
      pushes: new PushHub(engine, { activityEvents: true }),
      ...(flags.listen ? { listen: flags.listen } : {}),
    });
  } catch (e) {
    await within(SHUTDOWN_MS, async () => {
      background.stop();
      await handle.close();
      await engine.close();
    });
    watch.dispose();
    engine.store.close();
    return refuse(
      fail('BAD_USAGE', `cannot listen: ${(e as Error).message}`, { hint: 'Pick another address or port.' }),
    );
  }
  if (win.listenUrl && !flags.listen?.tls)
    out.stderr(
      `rigdesk: warning: the window for devices (${win.listenUrl}) has no TLS: anyone on that network can read it, device tokens included. Give --tls-cert and --tls-key (for example from \`tailscale cert\`), or reach it through Tailscale or an SSH tunnel.\n`,
    );
  const listen = win.listenUrl;
  out.stdout(
    json
      ? `${JSON.stringify({ ok: true, serving: handle.info.socket, pid: process.pid, url: win.url, ...(listen ? { listen } : {}) })}\n`
      : `rigdesk engine serving ${handle.info.socket} (pid ${process.pid})\nrigdesk window: ${win.url}\n${listen ? `rigdesk window for paired devices: ${listen} (pair one: rigdesk devices pair)\n` : ''}`,
  );
  await engine.deps.faults['serve.ready']?.();
  const why = await watch.reason;
  if (why.kind === 'fatal') out.stderr(`rigdesk: INTERNAL: ${why.error.stack ?? why.error.message}\n`);
  await within(SHUTDOWN_MS, async () => {
    background.stop();
    await win.close();
    await handle.close();
    await engine.close();
  });
  watch.dispose();
  engine.store.close();
  return why.kind === 'fatal' ? 1 : 0;
}

export async function runCli(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  out: Out = {
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    stderrTTY: process.stderr.isTTY === true,
  },
): Promise<number> {
  const a = parseArgs(argv);
  const json = a.flags.json === true;
  if (a.flags.version || a.command === 'version') {
    out.stdout(json ? `${JSON.stringify({ ok: true, version: '0.1.0' })}\n` : 'rigdesk 0.1.0\n');
    return 0;
  }
  if (a.flags.help || a.command === 'help' || a.command === undefined) {
    out.stdout(`${usage()}\n`);
    return a.command === undefined && !a.flags.help ? 2 : 0;
  }
  const cmd = a.command !== undefined && Object.hasOwn(COMMANDS, a.command) ? COMMANDS[a.command]! : undefined;
  const req = cmd
    ? cmd.toRequest(a)
    : fail('BAD_USAGE', a.command ? `unknown command "${a.command}"` : 'no command given', {
        hint: 'rigdesk --help lists the commands.',
      });
  const report = (f: Failure) => {
    if (json) out.stdout(`${JSON.stringify(f)}\n`);
    else out.stderr(`${formatFailure(f)}\n`);
    return exitCodeFor(f.code);
  };
  if (a.command === 'serve') {
    const flags = serveFlags(a);
    return flags.ok ? serve(env, out, json, flags) : report(flags);
  }
  if (!req.ok) return report(req);
  const method = req.prepared.method;
  const engine = engineCall(env, out);
  const run = () => req.prepared.run(engine.call);
  // Progress on stderr for a slow command: on when a person watches stderr, or asked for.
  const follow =
    FOLLOWED.has(method) && !a.flags['no-progress'] && (a.flags.progress === true || (out.stderrTTY && !json));
  let done: Awaited<ReturnType<typeof run>>;
  try {
    done = follow
      ? await withProgress(
          { call: engine.call, print: (l) => out.stderr(`${l}\n`), now: Date.now, after },
          { ...req.prepared.target(), label: [a.command, ...a.positionals].join(' '), json },
          run,
        )
      : await run();
  } finally {
    await engine.close();
  }
  // A command cut short by a signal fails as its requests are cut off; the signal is the answer.
  const ended = engine.endedBy();
  if (ended !== undefined) return ended;
  const res = done.result;
  if (!res.ok) return report(res);
  if (method === 'attach' && !json && !a.flags.print && 'argv' in res && Array.isArray(res.argv)) {
    // Hand this terminal to tmux; the printed form is for people who want to paste it elsewhere.
    const argvAttach = res.argv.map(String);
    const r = spawnSync(argvAttach[0]!, argvAttach.slice(1), { stdio: 'inherit', env: { ...env, TMUX: '' } });
    return r.status ?? 1;
  }
  out.stdout(`${json ? JSON.stringify(res) : (done.human ?? '')}\n`);
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

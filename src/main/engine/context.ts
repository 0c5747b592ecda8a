import { randomUUID } from 'node:crypto';
import { homedir } from 'node:os';
import type { ChildSet } from './children';
import { liveExec, liveFs, systemClock, type Clock, type Exec, type Fs } from './deps';
import { evidenceIO } from './evidence-io';
import { type FaultHooks, faultsFromEnv } from './faults';
import { resolveHome, socketPathForName, type HomeLayout } from './home';
import { liveProcReader } from './proc';
import type { ProcReader } from './proc/types';
import type { EvidenceIO } from './runtimes/types';
import { Store } from './store';
import { TmuxClient, tmuxEnv } from './tmux/client';
import { controlArgs, probeSocket, registerLinks, TmuxLinks } from './tmux/held';
import { serverArgs, serverKey, type TmuxServerRef } from './tmux/identity';

export interface EngineDeps {
  layout: HomeLayout;
  store: Store;
  exec: Exec;
  clock: Clock;
  /** The file system calls the engine makes (deps.ts); node:fs live. */
  fs: Fs;
  proc: ProcReader;
  io: EvidenceIO;
  /** The environment seats start from (PATH, HOME, LANG ...); identity markers are scrubbed later. */
  env: NodeJS.ProcessEnv;
  userHome: string;
  uid: number;
  selfPid: number;
  newId: () => string;
  faults: FaultHooks;
  /**
   * The held tmux control clients, one per server the engine holds one for (tmux/held.ts says
   * which); `new TmuxLinks('one-shot')` sends every command as its own process instead.
   */
  tmux: TmuxLinks;
  /** Every process the engine starts, tracked until it exits and ended with the engine (children.ts). */
  children: ChildSet;
}

export function liveEngineDeps(
  baseEnv: NodeJS.ProcessEnv = process.env,
  overrides: Partial<EngineDeps> = {},
): EngineDeps {
  const env = overrides.env ?? baseEnv;
  const layout = overrides.layout ?? resolveHome(env);
  const clock = overrides.clock ?? systemClock;
  const fs = overrides.fs ?? liveFs;
  // An engine given an exec of its own (a fault injected into tmux's answers, a counting bench)
  // sends its tmux commands through that exec, one-shot, unless it is also given its links.
  const tmux = overrides.tmux ?? new TmuxLinks(overrides.exec ? 'one-shot' : 'held', overrides.children);
  const children = overrides.children ?? tmux.children;
  // One exec function per engine: the engine's tmux links are found from it (tmux/held.ts).
  const exec: Exec = overrides.exec ?? ((file, args, opts) => liveExec(file, args, opts, children));
  registerLinks(exec, tmux);
  return {
    layout,
    store: overrides.store ?? Store.open(layout.dbPath, () => clock.now()),
    exec,
    clock,
    fs,
    proc: overrides.proc ?? liveProcReader(),
    io: overrides.io ?? evidenceIO(fs),
    env,
    userHome: overrides.userHome ?? env.HOME ?? homedir(),
    uid: overrides.uid ?? process.getuid?.() ?? 0,
    selfPid: overrides.selfPid ?? process.pid,
    newId: overrides.newId ?? randomUUID,
    faults: overrides.faults ?? faultsFromEnv(env),
    tmux,
    children,
  };
}

/**
 * A client for a server on this machine. Rigdesk's own server is reached through its held
 * control-mode client (one for every TmuxClient of it); any other server one-shot (tmux/held.ts).
 */
export function tmuxFor(deps: EngineDeps, ref: TmuxServerRef): TmuxClient {
  const own =
    ref.kind === deps.layout.tmuxServer.kind && JSON.stringify(ref) === JSON.stringify(deps.layout.tmuxServer);
  const base = { exec: deps.exec, env: deps.env, configFile: own ? deps.layout.tmuxConfig : undefined };
  if (!own) return new TmuxClient(ref, base);
  const control = deps.tmux.link(serverKey(ref), () => {
    const oneShot = new TmuxClient(ref, base);
    const socket = ownSocketPath(deps);
    const conf = base.configFile ? ['-f', base.configFile] : [];
    return {
      key: serverKey(ref),
      argv: ['tmux', '-u', ...serverArgs(ref), ...conf, ...controlArgs()],
      env: tmuxEnv(deps.env),
      probe: () => probeSocket(socket),
      absentText: `no server running on ${socket}`,
      oneShot: (args, o) => oneShot.runOneShot(args, o),
    };
  });
  return new TmuxClient(ref, { ...base, control });
}

export function ownSocketPath(deps: EngineDeps): string {
  const s = deps.layout.tmuxServer;
  return s.kind === 'path' ? s.path : socketPathForName(s.name, deps.uid, deps.env);
}

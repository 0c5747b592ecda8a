import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TmuxServerRef } from './tmux/identity';

/** Where Rigdesk keeps its state, and which tmux server it owns. */
export interface HomeLayout {
  home: string;
  dbPath: string;
  socketPath: string;
  /** Who is listening on the socket, with the token a client must present (mode 0600). */
  engineInfoPath: string;
  /** Where activity hooks installed into seats' isolated configs write their events. */
  hooksDir: string;
  /** Fifos the activity watch reads pane output from (pipe-pane), one per watched pane. */
  watchDir: string;
  tmuxServer: TmuxServerRef;
  /** Config file for Rigdesk's own tmux server, if one is set (tests use /dev/null). */
  tmuxConfig?: string;
}

export function resolveHome(env: NodeJS.ProcessEnv = process.env): HomeLayout {
  const home = resolve(env.RIGDESK_HOME || join(homedir(), '.rigdesk'));
  const sock = env.RIGDESK_TMUX_SOCKET;
  const tmuxServer: TmuxServerRef = !sock
    ? { kind: 'name', name: 'rigdesk' }
    : sock.includes('/')
      ? { kind: 'path', path: resolve(sock) }
      : { kind: 'name', name: sock };
  return {
    home,
    dbPath: join(home, 'rigdesk.db'),
    socketPath: join(home, 'engine.sock'),
    engineInfoPath: join(home, 'engine.json'),
    hooksDir: join(home, 'hooks'),
    watchDir: join(home, 'watch'),
    tmuxServer,
    tmuxConfig: env.RIGDESK_TMUX_CONF || undefined,
  };
}

/** Path of a `-L name` socket, to recognise the same server when an agent names it by path. */
export function socketPathForName(name: string, uid: number, env: NodeJS.ProcessEnv = process.env): string {
  return join(env.TMUX_TMPDIR || '/tmp', `tmux-${uid}`, name);
}

/**
 * Which tmux server: by socket name (`-L name`, under the user's tmux dir) or by path (`-S path`).
 * Stored as `L:<name>` or `S:<path>` so a row always says how to reach its server again.
 */
export type TmuxServerRef = ({ kind: 'name'; name: string } | { kind: 'path'; path: string }) & {
  /** The host the server runs on; absent for this machine. Part of the key, so identities carry it. */
  host?: string;
};

/** `L:<name>` / `S:<path>` on this machine, `H:<host>|L:<name>` on another (host names cannot hold `|`). */
export function serverKey(ref: TmuxServerRef): string {
  const base = ref.kind === 'name' ? `L:${ref.name}` : `S:${ref.path}`;
  return ref.host ? `H:${ref.host}|${base}` : base;
}

export function parseServerKey(key: string): TmuxServerRef {
  if (key.startsWith('H:')) {
    const bar = key.indexOf('|');
    if (bar > 2) return { ...parseServerKey(key.slice(bar + 1)), host: key.slice(2, bar) };
  }
  if (key.startsWith('L:')) return { kind: 'name', name: key.slice(2) };
  if (key.startsWith('S:')) return { kind: 'path', path: key.slice(2) };
  throw new Error(`not a tmux server key: ${key}`);
}

/** The host a server key names; `local` for this machine's servers. */
export function hostOfServer(key: string): string {
  if (typeof key !== 'string' || !key.startsWith('H:')) return 'local';
  const bar = key.indexOf('|');
  return bar > 2 ? key.slice(2, bar) : 'local';
}

/** The flags that select this server, for commands and for attach lines shown to a person. */
export function serverArgs(ref: TmuxServerRef): string[] {
  return ref.kind === 'name' ? ['-L', ref.name] : ['-S', ref.path];
}

/**
 * A tmux session's immutable identity. Session names can be reused and `$N` ids restart at `$0`
 * when a server restarts, so only server pid + session id + creation time together prove that a
 * session is the one we created (docs/architecture.md invariant 4).
 */
export interface SessionIdentity {
  server: string; // serverKey
  serverPid: number;
  sessionId: string; // $N
  sessionCreated: number; // seconds since the epoch
  sessionName: string;
  paneId: string; // %N
  panePid: number;
}

export function sameSession(
  a: Pick<SessionIdentity, 'server' | 'serverPid' | 'sessionId' | 'sessionCreated'>,
  b: Pick<SessionIdentity, 'server' | 'serverPid' | 'sessionId' | 'sessionCreated'>,
): boolean {
  return (
    a.server === b.server &&
    a.serverPid === b.serverPid &&
    a.sessionId === b.sessionId &&
    a.sessionCreated === b.sessionCreated
  );
}

import type { Ports } from '../ports';
import { hostOfServer } from '../tmux/identity';

/** The command that attaches a terminal to a seat's session, on its host's server or Rigdesk's own here. */
export function attachArgv(
  ports: Pick<Ports, 'hosts' | 'layout' | 'ownKey'>,
  sessionId: string,
  server: string = ports.ownKey,
): string[] {
  const host = hostOfServer(server);
  if (host !== 'local') {
    const h = ports.hosts.get(host);
    if (h) return h.attachArgv(sessionId);
  }
  const s = ports.layout.tmuxServer;
  return ['tmux', ...(s.kind === 'name' ? ['-L', s.name] : ['-S', s.path]), 'attach-session', '-t', sessionId];
}

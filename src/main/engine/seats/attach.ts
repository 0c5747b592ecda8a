import type { Engine } from '../engine';
import { hostOfServer } from '../tmux/identity';

/** The command that attaches a terminal to a seat's session, on its host's server or Rigdesk's own here. */
export function attachArgv(engine: Engine, sessionId: string, server: string = engine.ownKey): string[] {
  const host = hostOfServer(server);
  if (host !== 'local') {
    const h = engine.hosts.get(host);
    if (h) return h.attachArgv(sessionId);
  }
  const s = engine.deps.layout.tmuxServer;
  return ['tmux', ...(s.kind === 'name' ? ['-L', s.name] : ['-S', s.path]), 'attach-session', '-t', sessionId];
}

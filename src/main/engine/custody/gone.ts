import type { Ports } from '../ports';
import type { SessionRow } from '../store';

/**
 * Whether a live row's session is provably gone, asked of tmux now. A roster is a moment in the
 * past: a row another process created after it was taken is missing from it without being gone,
 * so a row is ended only on a fresh probe of its immutable identity (docs/architecture.md invariant 4).
 */
export async function sessionGone(
  ports: Pick<Ports, 'client'>,
  row: SessionRow,
): Promise<'gone' | 'present' | 'unknown'> {
  const p = await ports.client(row.server).probeSession(row.sessionId);
  if (p.state === 'absent') return 'gone';
  if (p.state === 'indeterminate') return 'unknown';
  return p.serverPid === row.serverPid && p.sessionCreated === row.sessionCreated ? 'present' : 'gone';
}

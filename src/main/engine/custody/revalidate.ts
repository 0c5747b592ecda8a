import { fail, type Result } from '../../../shared/errors';
import type { Ports } from '../ports';

/** What a write was decided against; re-read immediately before the keystrokes. */
export interface WriteTarget {
  server: string;
  paneId: string;
  sessionId: string;
  serverPid: number;
  panePid: number;
  panePidStart?: string;
  agent?: { pid: number; startTime: string };
}

/**
 * Design.md invariant 5: between deciding and typing, a pane can change hands and a pid can be
 * reused. Pane id, its session, its pid and the processes' start times must all be unchanged.
 */
export async function revalidateTarget(ports: Pick<Ports, 'client' | 'procNow'>, t: WriteTarget): Promise<Result> {
  const now = await ports.client(t.server).paneNow(t.paneId);
  const changed = (why: string, evidence: Record<string, unknown> = {}) =>
    fail('TARGET_CHANGED', `pane ${t.paneId} changed between the check and the write: ${why}; nothing was typed`, {
      hint: 'Look at the seat (rigdesk ps), then send again.',
      evidence: { expected: t, ...evidence },
    });
  if (now.state === 'absent') return changed('the pane is gone');
  if (now.state === 'indeterminate') return changed(`the pane could not be read (${now.why})`);
  if (now.panePid !== t.panePid || now.sessionId !== t.sessionId || now.serverPid !== t.serverPid || now.dead) {
    return changed('the pane now belongs to another process or session', { found: now });
  }
  const paneNow = await ports.procNow(t.server, t.panePid);
  if (paneNow === 'unknown') return changed(`the host of pane ${t.paneId} did not answer`);
  const pane = paneNow;
  if (!pane || (t.panePidStart !== undefined && pane.startTime !== t.panePidStart))
    return changed(`pid ${t.panePid} was reused by another process`);
  if (t.agent) {
    const agentNow = await ports.procNow(t.server, t.agent.pid);
    if (agentNow === 'unknown') return changed(`the host of pane ${t.paneId} did not answer`);
    const agent = agentNow;
    if (!agent) return changed(`the agent process ${t.agent.pid} exited`);
    if (agent.startTime !== t.agent.startTime)
      return changed(`pid ${t.agent.pid} now belongs to another process (start time changed)`, {
        found: { pid: agent.pid, startTime: agent.startTime, argv: agent.argv },
      });
  }
  return { ok: true };
}

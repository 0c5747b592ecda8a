import { fail, type Result } from '../../../shared/errors';
import { checkConversationFree } from '../custody/guard';
import { revalidateTarget, type WriteTarget } from '../custody/revalidate';
import type { Engine } from '../engine';
import { runtimeById } from '../runtimes';
import { findSeat } from '../services/resolve';
import { validateSendText } from './text';

export interface SendResult {
  seat: string;
  status: 'delivered';
  paneId: string;
  chars: number;
  warnings: string[];
}

/**
 * Sends text to a seat: custody first, then the target is re-read just before the keystrokes
 * (design.md invariants 1 and 5), then a bracketed paste of a literal buffer and Enter.
 */
export async function sendToSeat(engine: Engine, ref: unknown, textIn: unknown): Promise<Result<{ sent: SendResult }>> {
  const found = findSeat(engine, ref);
  if (!found.ok) return found;
  const { seat } = found;
  const text = validateSendText(textIn);
  if (!text.ok) return text;
  const res = await deliver(engine, seat.seat, seat.rig, seat.runtime, text.text);
  if (!res.ok) engine.store.events.append('seat.send_refused', { rig: seat.rig, seat: seat.seat }, { code: res.code, message: res.message, evidence: res.evidence ?? {} });
  return res;
}

async function deliver(engine: Engine, seatName: string, rig: string, runtime: string, text: string): Promise<Result<{ sent: SendResult }>> {
  const live = engine.store.sessions.live(seatName);
  if (!live) return fail('SEAT_NOT_RUNNING', `${seatName} is not running`, { hint: `Start it with rigdesk launch ${seatName}.` });
  const roster = await engine.roster();
  const pane = engine.paneOf(roster, live);
  if (!pane) return fail('SEAT_NOT_RUNNING', `${seatName}'s session ${live.sessionId} is gone`, { hint: `Start it again with rigdesk launch ${seatName}.` });

  const warnings: string[] = [];
  const adapter = runtimeById(runtime);
  const conversationId = pane.agent?.conversationId ?? live.conversationId ?? undefined;
  const ownPids = [pane.panePid, ...pane.lineage.map((p) => p.pid)];
  if (adapter && adapter.id !== 'shell') {
    if (conversationId) {
      const free = checkConversationFree(roster, { runtime: adapter.id, conversationId, allowPids: ownPids, allowSessionId: live.id }, engine.store.sessions.liveBoundTo(adapter.id, conversationId));
      if (!free.ok) return free;
    } else {
      warnings.push(`the conversation of ${seatName} is not known yet; only its own pane was checked`);
    }
  }
  const target: WriteTarget = {
    server: live.server, paneId: live.paneId, sessionId: live.sessionId, serverPid: live.serverPid,
    panePid: pane.panePid, panePidStart: pane.panePidStart,
    // The process that reads the keystrokes: the agent, or for a plain program the seat's program
    // (the wrapper's child). If it exits or its pid is reused, the write is refused.
    agent: pane.agent ? { pid: pane.agent.pid, startTime: pane.agent.startTime } : pane.lineage[0] ? { pid: pane.lineage[0].pid, startTime: pane.lineage[0].startTime } : undefined,
  };
  await engine.deps.faults['send.before_revalidate']?.();
  const moved = await revalidateTarget(engine, target);
  if (!moved.ok) return moved;

  const client = engine.client(live.server);
  const buffer = `rigdesk-${engine.deps.newId()}`;
  const pasted = await client.paste(live.paneId, text, buffer);
  if (!pasted.ok) return pasted;
  // Some runtimes drop an Enter that arrives right after pasted text (Codex): the adapter says how long to wait.
  const delay = adapter?.submitDelayMs ?? 0;
  if (delay) await engine.deps.clock.sleep(delay);
  const entered = await client.sendKeys(live.paneId, ['Enter']);
  if (!entered.ok) return entered;
  engine.store.events.append('seat.send', { rig, seat: seatName }, { paneId: live.paneId, chars: text.length, preview: text.slice(0, 120), conversationId: conversationId ?? null });
  return { ok: true, sent: { seat: seatName, status: 'delivered', paneId: live.paneId, chars: text.length, warnings } };
}

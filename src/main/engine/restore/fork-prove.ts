import type { ForkResult, LaunchedSeat } from '../../../shared/contract';
import type { ErrorCode } from '../../../shared/errors';
import type { Ports } from '../ports';
import type { RuntimeAdapter } from '../runtimes';
import { bindDiscoveredConversations } from '../seats/bind';
import type { SessionRow } from '../store';
import { execContext } from './execute';
import { verifyConversation, type VerifyOptions } from './verify';
import { paneOf } from '../roster/lookup';
import type { VerifyPorts } from './ports';

/**
 * The proof that a fork (./fork.ts) started: a process in the new pane names a conversation that
 * is not X (Claude: the id chosen up front; Codex: whatever thread its writer lock holds), with no
 * "conversation missing" report about X. Anything else keeps the pane so its output can be read.
 */

/** A fork that did not start; the answer is a failure carrying it as evidence. */
export interface ForkFailed {
  seat: string;
  outcome: 'failed';
  code: ErrorCode;
  why: string;
  from: string;
  paneId: string;
  sessionId: string;
  pid?: number;
  evidence?: Record<string, unknown>;
}
export type ForkEnd = ForkResult | ForkFailed;

export async function proveFork(
  ports: VerifyPorts,
  f: { seat: string; rig: string; from: string; adapter: RuntimeAdapter; live: SessionRow; launched: LaunchedSeat },
  opts: { verify?: Partial<VerifyOptions> },
): Promise<ForkEnd> {
  const { seat, from, live, launched: l } = f;
  const at = { seat, from, paneId: l.paneId, sessionId: l.sessionId };
  const ctx = execContext(ports, f.rig, null, opts.verify);
  const expect = l.conversationId
    ? { accept: (id: string) => id === l.conversationId, missingId: from }
    : { accept: (id: string) => id !== from, missingId: from };
  const v = await verifyConversation(ports, live, expect, ctx.verify, ctx);
  switch (v.verdict) {
    case 'resumed': {
      const id = v.conversationId;
      if (!l.conversationId) {
        const unbound = await bindByLock(ports, seat, live, id);
        if (unbound) return { ...at, outcome: 'failed', ...unbound, pid: v.pid };
      }
      return {
        ...at,
        outcome: 'forked',
        why: `forked from ${from}`,
        conversationId: id,
        pid: v.pid,
        evidence: { source: v.source },
      };
    }
    case 'attention':
      return {
        ...at,
        outcome: 'attention_required',
        why: `the fork is up but waiting on a ${v.reason.replace('_', ' ')}; the pane is kept`,
        ...(l.conversationId ? { conversationId: l.conversationId } : {}),
        evidence: { reason: v.reason, screen: v.screen },
      };
    case 'missing':
      return {
        ...at,
        outcome: 'failed',
        code: 'AGENT_EXITED',
        why: `${f.adapter.displayName} reported ${from} missing; the pane is kept`,
        evidence: { screen: v.screen },
      };
    case 'exited':
      return {
        ...at,
        outcome: 'failed',
        code: 'AGENT_EXITED',
        why: 'the fork exited without naming its conversation; the pane is kept',
        evidence: { screen: v.screen },
      };
    case 'gone':
      return {
        ...at,
        outcome: 'failed',
        code: 'SEAT_NOT_RUNNING',
        why: "the fork's session vanished while it was verified",
      };
    case 'unproven':
      return {
        ...at,
        outcome: 'failed',
        code: 'RESUME_UNPROVEN',
        why: `no process in the pane named a new conversation within ${ctx.verify.timeoutMs} ms; the pane is kept`,
        evidence: { screen: v.screen, agentConversation: v.agentConversation },
      };
  }
}

/** Codex: only a writer lock names the new thread; it is bound to the new seat now, or the fork fails. */
async function bindByLock(
  ports: Pick<Ports, 'roster' | 'store'>,
  seat: string,
  live: SessionRow,
  id: string,
): Promise<{ code: ErrorCode; why: string } | undefined> {
  const r = await ports.roster();
  const pane = paneOf(r, live);
  if (pane?.agent?.conversationSource !== 'writer_lock' || pane.agent.conversationId !== id)
    return {
      code: 'RESUME_UNPROVEN',
      why: `the fork's process named ${id} but no writer lock confirms it; the pane is kept`,
    };
  bindDiscoveredConversations(ports, r);
  if (ports.store.rigs.seat(seat)?.conversationId !== id)
    return { code: 'INTERNAL', why: `the fork holds ${id} but it could not be bound to ${seat}; the pane is kept` };
  return undefined;
}

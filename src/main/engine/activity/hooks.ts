import { readFileSync, statSync } from 'node:fs';
import type { Engine } from '../engine';
import type { RemoteHookRead } from '../hosts/hook-watch';
import { hookFileFor, readClaudeHook } from '../runtimes/hooks/claude';
import type { Evidence } from './decide';

/** The seat's last Claude hook event, if it belongs to the conversation the pane's agent writes. */
export function readHookEvidence(
  engine: Engine,
  seat: string,
  conversationId: string | undefined,
): Evidence | undefined {
  const file = hookFileFor(engine.deps.layout.hooksDir, seat);
  let raw: string;
  let at: number;
  try {
    at = statSync(file).mtimeMs;
    raw = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const h = readClaudeHook(raw);
  if (conversationId && h.sessionId && h.sessionId !== conversationId) return undefined; // another occupant's
  if (!h.activity && !h.needsInput) return undefined;
  const e: Evidence = { source: 'hook', at: Math.min(at, engine.now()), detail: `hook ${h.event}` };
  if (h.activity) e.activity = h.activity;
  if (h.needsInput) e.needsInput = h.needsInput;
  return e;
}

/** A remote seat's last Claude hook event as activity evidence, when it is this occupant's. */
export function remoteHookEvidence(
  read: RemoteHookRead | undefined,
  conversationId: string | undefined,
  now: number,
): Evidence | undefined {
  if (!read) return undefined;
  const h = readClaudeHook(read.raw);
  if (conversationId && h.sessionId && h.sessionId !== conversationId) return undefined; // another occupant's
  if (!h.activity && !h.needsInput) return undefined;
  const e: Evidence = { source: 'hook', at: Math.min(read.readAt - read.ageMs, now), detail: `hook ${h.event}` };
  if (h.activity) e.activity = h.activity;
  if (h.needsInput) e.needsInput = h.needsInput;
  return e;
}

import type { Ports } from '../ports';
import type { RemoteHookRead } from '../hosts/hook-watch';
import { HOOK_FILE_MAX_BYTES, readRegularText } from '../read-file';
import { hookFileFor } from '../runtimes/hooks/claude';
import type { HookReading, RuntimeAdapter } from '../runtimes/types';
import type { Evidence } from './decide';

type ReadHook = NonNullable<RuntimeAdapter['readHook']>;

/** The seat's last hook event (its runtime's `readHook`), if it belongs to the conversation the pane's agent writes. */
export function readHookEvidence(
  ports: Pick<Ports, 'clock' | 'fs' | 'layout'>,
  readHook: ReadHook,
  seat: string,
  conversationId: string | undefined,
): Evidence | undefined {
  const file = hookFileFor(ports.layout.hooksDir, seat);
  let raw: string;
  let at: number;
  try {
    at = ports.fs.statSync(file).mtimeMs;
    raw = readRegularText(file, HOOK_FILE_MAX_BYTES, ports.fs); // a FIFO planted there is refused, not waited on
  } catch {
    return undefined;
  }
  return hookEvidence(readHook(raw), conversationId, Math.min(at, ports.clock.now()));
}

/** A remote seat's last hook event as activity evidence, when it is this occupant's. */
export function remoteHookEvidence(
  readHook: ReadHook,
  read: RemoteHookRead | undefined,
  conversationId: string | undefined,
  now: number,
): Evidence | undefined {
  if (!read) return undefined;
  return hookEvidence(readHook(read.raw), conversationId, Math.min(read.readAt - read.ageMs, now));
}

function hookEvidence(h: HookReading, conversationId: string | undefined, at: number): Evidence | undefined {
  if (conversationId && h.sessionId && h.sessionId !== conversationId) return undefined; // another occupant's
  if (!h.activity && !h.needsInput) return undefined;
  const e: Evidence = { source: 'hook', at, detail: `hook ${h.event}` };
  if (h.activity) e.activity = h.activity;
  if (h.needsInput) e.needsInput = h.needsInput;
  return e;
}

import type { Engine } from '../engine';
import type { EventKind } from '../store/events';

/**
 * The event kinds answering a prompt records. store/events.ts owns the EventKind union; until it
 * includes `| PromptEventKind` (as it does RestoreEventKind), the one cast lives here.
 */
export type PromptEventKind = 'seat.prompt_answered' | 'seat.prompt_answer_refused';

export function appendPromptEvent(engine: Engine, kind: PromptEventKind, where: { rig: string; seat: string }, data: Record<string, unknown>): number {
  return engine.store.events.append(kind, where, data);
}

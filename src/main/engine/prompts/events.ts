import type { Engine } from '../engine';
import type { PromptEventKind } from '../store/event-kinds';

export type { PromptEventKind };

export function appendPromptEvent(
  engine: Engine,
  kind: PromptEventKind,
  where: { rig: string; seat: string },
  data: Record<string, unknown>,
): number {
  return engine.store.events.append(kind, where, data);
}

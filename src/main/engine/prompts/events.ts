import type { Ports } from '../ports';
import type { PromptEventKind } from '../store/event-kinds';

export type { PromptEventKind };

export function appendPromptEvent(
  ports: Pick<Ports, 'store'>,
  kind: PromptEventKind,
  where: { rig: string; seat: string },
  data: Record<string, unknown>,
): number {
  return ports.store.events.append(kind, where, data);
}

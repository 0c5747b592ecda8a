import { createContext, useContext } from 'react';
import type { HandoffItem } from '../../../shared/contract';

/** What the topology's nodes and edges ask of the view around them (its overlay, the keys, the handoffs). */
export interface TopologyCtx {
  /** A seat under the pointer (or none): its screen's last lines show beside it. */
  hover(seat: string | undefined, el?: HTMLElement): void;
  /** The seat's menu, beside its node. */
  menu(seat: string, el: HTMLElement): void;
  /** The arrow keys: the focus moves to the nearest seat that way. */
  move(from: string, key: 'ArrowUp' | 'ArrowDown' | 'ArrowLeft' | 'ArrowRight'): void;
  /** Open queue handoffs between two seats, either way. */
  handoffs(a: string, b: string): HandoffItem[];
  /** Zoomed too far out to read a seat's words: each seat is a tile of its state, each pod says its counts. */
  far: boolean;
}

export const TopologyContext = createContext<TopologyCtx>({
  hover: () => undefined,
  menu: () => undefined,
  move: () => undefined,
  handoffs: () => [],
  far: false,
});

export const useTopology = () => useContext(TopologyContext);

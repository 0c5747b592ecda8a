import type { Call } from '../../../shared/contract';
import type { PushMessage } from '../../../shared/contract/app';

/** The renderer's one view of the contract; IPC and WebSocket implement it identically. */
export interface Transport {
  readonly kind: 'ipc' | 'ws';
  /** Typed by the method name: its params and its answer come from the contract. */
  request: Call;
  onPush(fn: (msg: PushMessage) => void): () => void;
  sendFrame(bytes: Uint8Array): void;
  onFrame(fn: (bytes: Uint8Array) => void): () => void;
  onStatus(fn: (status: 'connecting' | 'open' | 'closed') => void): () => void;
}

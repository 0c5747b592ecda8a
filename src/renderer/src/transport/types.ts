import type { PushMessage } from '../../../shared/contract/app';
import type { Result } from '../../../shared/errors';

/** The renderer's one view of the contract; IPC and WebSocket implement it identically. */
export interface Transport {
  readonly kind: 'ipc' | 'ws';
  request<T extends object = Record<string, unknown>>(method: string, params?: unknown): Promise<Result<T>>;
  onPush(fn: (msg: PushMessage) => void): () => void;
  sendFrame(bytes: Uint8Array): void;
  onFrame(fn: (bytes: Uint8Array) => void): () => void;
  onStatus(fn: (status: 'connecting' | 'open' | 'closed') => void): () => void;
}

import type { RigdeskBridge } from '../../../shared/contract/app';
import { answerFromWire } from '../../../shared/contract/wire';
import { fail } from '../../../shared/errors';
import type { Transport } from './types';

/** Desktop mode: the preload's bridge, which only forwards to the main process. */
export function ipcTransport(bridge: RigdeskBridge): Transport {
  let nextId = 1;
  return {
    kind: 'ipc',
    request: async (method, params) => {
      try {
        const r = await bridge.request({ id: nextId++, method, params });
        return answerFromWire(method, r.result);
      } catch (e) {
        return fail('ENGINE_UNREACHABLE', `the app did not answer: ${(e as Error).message}`);
      }
    },
    onPush: (fn) => bridge.onPush(fn),
    sendFrame: (b) => bridge.sendFrame(b),
    onFrame: (fn) => bridge.onFrame(fn),
    onStatus: (fn) => (fn('open'), () => undefined),
  };
}

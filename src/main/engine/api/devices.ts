import type { DEVICES_ANSWERS, DEVICES_REQUESTS } from '../../../shared/contract/devices';
import type { Handlers } from './types';

export const DEVICES_HANDLERS: Handlers<typeof DEVICES_REQUESTS, typeof DEVICES_ANSWERS> = {
  'devices.pair': async (e, p) => e.devices.pair(p.name),
  'devices.list': async (e) => ({ ok: true, ...e.devices.list() }),
  'devices.revoke': async (e, p) => e.devices.revoke(p.id),
};

import type { ENGINE_ANSWERS, ENGINE_REQUESTS } from '../../../shared/contract/engine';
import { budgetedSend } from '../services/send';
import { launchSeat } from '../seats/launch';
import { doctor } from '../services/doctor';
import { attachCommand, captureSeat } from '../services/seat-screen';
import { ps } from '../services/ps';
import { downRig } from '../services/down';
import { stopSeat } from '../seats/stop';
import { upRig } from '../services/up';
import type { Handlers } from './types';

export const ENGINE_HANDLERS: Handlers<typeof ENGINE_REQUESTS, typeof ENGINE_ANSWERS> = {
  up: (e, p) => upRig(e, p.spec),
  ps: (e, p) => ps(e, p),
  launch: (e, p) => launchSeat(e.ports, p.seat, { fresh: p.fresh }),
  stop: (e, p) => stopSeat(e.ports, p.seat),
  down: (e, p) => downRig(e, p.rig),
  send: (e, p) => budgetedSend(e, p),
  capture: (e, p) => captureSeat(e, p.seat, p.lines),
  attach: (e, p) => attachCommand(e, p.seat),
  doctor: (e, p) => doctor(e, p),
  events: async (e, p) => ({ ok: true, events: e.store.events.list(p) }),
};

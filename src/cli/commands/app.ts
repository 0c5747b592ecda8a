import { parseDeepLink, seatDeepLink } from '../../shared/contract/app';
import { fail } from '../../shared/errors';
import type { CommandTable } from './types';

/** The window's commands (issue 3). `open` reaches the window through the same deep-link route. */
export const APP_COMMANDS: CommandTable = {
  open: {
    usage: 'open <member@rig | rigdesk://seat/R/M>  focus that seat in the open Rigdesk window',
    toRequest: (a) => {
      const target = a.positionals[0];
      if (!target) return fail('BAD_USAGE', 'open needs a seat (member@rig) or a rigdesk://seat/<rig>/<member> link');
      const link = target.startsWith('rigdesk:') ? target : seatDeepLink(target);
      if (!link || !parseDeepLink(link).ok) return fail('SEAT_NAME_INVALID', `not a seat or seat link: ${target.slice(0, 200)}`);
      return { ok: true, method: 'open', params: { link } };
    },
    human: (r) => `${String(r.seat)}: focused in ${String(r.windows)} window(s)`,
  },
  topology: {
    usage: 'topology [--rig R]           rigs, pods, seats and edges',
    toRequest: (a) => ({ ok: true, method: 'topology', params: typeof a.flags.rig === 'string' ? { rig: a.flags.rig } : {} }),
    human: (r) =>
      (r.rigs as { name: string; pods: { id: string; seats: { seat: string }[] }[]; edges: { from: string; to: string; kind: string }[] }[])
        .map((rig) => [`${rig.name}`, ...rig.pods.map((p) => `  ${p.id}: ${p.seats.map((s) => s.seat).join(', ')}`), ...rig.edges.map((e) => `  ${e.from} -${e.kind}-> ${e.to}`)].join('\n'))
        .join('\n'),
  },
};

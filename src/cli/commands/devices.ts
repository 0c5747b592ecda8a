import type { AnswerOf } from '../../shared/contract';
import { fail, type Result } from '../../shared/errors';
import type { ParsedArgs } from '../args';
import { terminalQr } from '../qr';
import { type CommandTable, type Prepared, prepare } from './types';

/** `rigdesk devices [list] | pair [--name N] | revoke <id>`. */

type Req = Result<{ prepared: Prepared }>;
const ok = (prepared: Prepared): Req => ({ ok: true, prepared });

function toRequest(a: ParsedArgs): Req {
  const [sub, id] = a.positionals;
  switch (sub ?? 'list') {
    case 'list':
      return ok(prepare('devices.list', {}, listText));
    case 'pair': {
      if (a.flags.name === true) return fail('BAD_USAGE', '--name needs a name');
      const name = typeof a.flags.name === 'string' ? a.flags.name : undefined;
      return ok(prepare('devices.pair', name ? { name } : {}, pairText));
    }
    case 'revoke':
      if (!id) return fail('BAD_USAGE', 'devices revoke needs a device id', { hint: '`rigdesk devices` lists them.' });
      return ok(
        prepare('devices.revoke', { id }, (r) => `revoked ${r.name} (${r.id}); closed ${r.closed} connection(s)`),
      );
    default:
      return fail('BAD_USAGE', `unknown devices command "${sub}"`, {
        hint: 'rigdesk devices | devices pair [--name N] | devices revoke <id>',
      });
  }
}

function pairText(r: AnswerOf<'devices.pair'>): string {
  const minutes = Math.round((r.expiresAt - Date.now()) / 60_000);
  return [
    `Open this on the device (once, within ${minutes} minutes):`,
    `  ${r.url}`,
    `code: ${r.code}`,
    '',
    terminalQr(r.url),
  ].join('\n');
}

const when = (t: number | null) => (t === null ? '-' : new Date(t).toISOString().replace('T', ' ').slice(0, 16));

function listText(r: AnswerOf<'devices.list'>): string {
  const head = r.listening
    ? `listening for devices at ${r.listening}`
    : 'not listening for devices (rigdesk serve --listen)';
  if (r.devices.length === 0) return `${head}\n(no devices paired)`;
  const rows = r.devices.map(
    (d) =>
      `${d.id}  ${d.name.padEnd(20)}  paired ${when(d.pairedAt)}  last seen ${when(d.lastSeenAt)}  ${d.lastAddress ?? '-'}${d.revokedAt !== null ? `  revoked ${when(d.revokedAt)}` : d.connections ? `  ${d.connections} open` : ''}`,
  );
  return [head, ...rows].join('\n');
}

export const DEVICES_COMMANDS: CommandTable = {
  devices: {
    usage: 'devices [pair [--name N] | revoke <id>]  devices that may open the window (serve --listen)',
    toRequest,
  },
};

import { fail, type Result } from '../../shared/errors';
import type { HostCheck } from '../../shared/contract';
import type { ParsedArgs } from '../args';
import type { CommandTable } from './types';

/** `rigdesk hosts add|list|check`. */

type Req = Result<{ method: string; params: Record<string, unknown> }>;

/** `[user@]host[:port]`, the way people write an ssh destination. */
export function parseDestination(d: string): { host: string; user?: string; port?: number } | undefined {
  const m = /^(?:([^@\s:]+)@)?([^@\s:]+|\[[^\]]+\])(?::(\d{1,5}))?$/.exec(d);
  if (!m) return undefined;
  const out: { host: string; user?: string; port?: number } = { host: m[2]!.replace(/^\[|\]$/g, '') };
  if (m[1]) out.user = m[1];
  if (m[3]) out.port = Number(m[3]);
  return out;
}

function toRequest(a: ParsedArgs): Req {
  const [sub, name, dest] = a.positionals;
  const str = (k: string) => (typeof a.flags[k] === 'string' ? (a.flags[k] as string) : undefined);
  switch (sub) {
    case 'list':
      return { ok: true, method: 'hostsList', params: {} };
    case 'check':
      if (!name) return fail('BAD_USAGE', 'hosts check needs a host name');
      return { ok: true, method: 'hostsCheck', params: { name } };
    case 'add': {
      if (!name || !dest) return fail('BAD_USAGE', 'hosts add needs a name and a destination ([user@]host[:port])');
      const d = parseDestination(dest);
      if (!d)
        return fail('BAD_USAGE', `not an ssh destination: ${dest}`, {
          hint: 'Write it as user@host, host or user@host:2222.',
        });
      const params: Record<string, unknown> = { name, ...d };
      if (str('port')) params.port = Number(str('port'));
      if (str('identity')) params.identityFile = str('identity');
      if (str('known-hosts')) params.knownHostsFile = str('known-hosts');
      if (str('strict')) params.strictHostKeyChecking = str('strict');
      if (str('ssh-config')) params.configFile = str('ssh-config');
      if (str('tmux-socket')) params.tmuxSocket = str('tmux-socket');
      return { ok: true, method: 'hostsAdd', params };
    }
    default:
      return fail('BAD_USAGE', sub ? `unknown hosts command "${sub}"` : 'hosts needs add, list or check', {
        hint: 'rigdesk hosts add <name> <[user@]host[:port]> | hosts list | hosts check <name>',
      });
  }
}

function human(r: Record<string, unknown>): string {
  if (r.check) {
    const c = r.check as HostCheck;
    const lines = [
      `${c.host}: ssh ok (${c.ssh.rttMs ?? '?'} ms), ${c.tmux.ok ? c.tmux.detail : `tmux NOT OK: ${c.tmux.detail || 'missing'}`}`,
    ];
    for (const rt of c.runtimes) lines.push(`  ${rt.runtime.padEnd(12)} ${rt.found ?? '-'}`);
    lines.push(c.missing.length ? `missing: ${c.missing.join('; ')}` : 'nothing missing');
    return lines.join('\n');
  }
  if (r.host) return `added host ${(r.host as { name: string }).name}`;
  const hosts = (r.hosts ?? []) as {
    name: string;
    source: string;
    ssh?: { host: string; user?: string; port?: number };
    seats: string[];
    health?: { state: string };
  }[];
  if (hosts.length === 0) return 'no hosts (add one with: rigdesk hosts add <name> <[user@]host[:port]>)';
  return hosts
    .map(
      (h) =>
        `${h.name}\t${h.ssh ? `${h.ssh.user ? `${h.ssh.user}@` : ''}${h.ssh.host}${h.ssh.port ? `:${h.ssh.port}` : ''}` : 'local'}\t${h.source}\t${h.health?.state ?? 'unchecked'}\t${h.seats.join(',') || '-'}`,
    )
    .join('\n');
}

export const HOSTS_COMMANDS: CommandTable = {
  hosts: {
    usage:
      'hosts add <name> <[user@]host[:port]> [--identity=F --known-hosts=F --strict=yes|accept-new|no --ssh-config=F --tmux-socket=N] | hosts list | hosts check <name>',
    toRequest,
    human,
  },
};

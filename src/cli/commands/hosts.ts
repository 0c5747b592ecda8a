import {
  type AnswerOf,
  type ClientParams,
  type HostListing,
  sshNameProblem,
  strictHostKeyChecking,
} from '../../shared/contract';
import { fail, type Result } from '../../shared/errors';
import type { ParsedArgs } from '../args';
import { type CommandTable, type Prepared, prepare } from './types';

/** `rigdesk hosts add|list|check`. */

type Req = Result<{ prepared: Prepared }>;
const ok = (prepared: Prepared): Req => ({ ok: true, prepared });

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
  switch (sub) {
    case 'list':
      return ok(prepare('hosts.list', {}, listText));
    case 'check':
      if (!name) return fail('BAD_USAGE', 'hosts check needs a host name');
      return ok(prepare('hosts.check', { name }, checkText));
    case 'add': {
      if (!name || !dest) return fail('BAD_USAGE', 'hosts add needs a name and a destination ([user@]host[:port])');
      const params = addParams(a, name, dest);
      return params.ok ? ok(prepare('hosts.add', params.params, (r) => `added host ${r.host.name}`)) : params;
    }
    default:
      return fail('BAD_USAGE', sub ? `unknown hosts command "${sub}"` : 'hosts needs add, list or check', {
        hint: 'rigdesk hosts add <name> <[user@]host[:port]> | hosts list | hosts check <name>',
      });
  }
}

function addParams(a: ParsedArgs, name: string, dest: string): Result<{ params: ClientParams<'hosts.add'> }> {
  const str = (k: string) => {
    const v = a.flags[k];
    return typeof v === 'string' ? v : undefined;
  };
  const d = parseDestination(dest);
  if (!d)
    return fail('BAD_USAGE', `not an ssh destination: ${dest}`, {
      hint: 'Write it as user@host, host or user@host:2222.',
    });
  for (const field of ['host', 'user'] as const) {
    const value = d[field];
    const problem = value === undefined ? undefined : sshNameProblem(value);
    if (problem)
      return fail('BAD_USAGE', `ssh ${field} ${JSON.stringify(value!.slice(0, 40))} ${problem}`, {
        hint: 'Write the destination as user@host, host or user@host:2222.',
        evidence: { field },
      });
  }
  const params: ClientParams<'hosts.add'> = { name, ...d };
  if (str('port')) params.port = Number(str('port'));
  if (str('identity')) params.identityFile = str('identity');
  if (str('known-hosts')) params.knownHostsFile = str('known-hosts');
  const strict = str('strict');
  if (strict) {
    const mode = strictHostKeyChecking.safeParse(strict);
    if (!mode.success)
      return fail('BAD_USAGE', `--strict takes yes, accept-new or no, not ${JSON.stringify(strict).slice(0, 40)}`);
    params.strictHostKeyChecking = mode.data;
  }
  if (str('ssh-config')) params.configFile = str('ssh-config');
  if (str('tmux-socket')) params.tmuxSocket = str('tmux-socket');
  return { ok: true, params };
}

function checkText({ check: c }: AnswerOf<'hosts.check'>): string {
  const lines = [
    `${c.host}: ssh ok (${c.ssh.rttMs} ms), ${c.tmux.ok ? c.tmux.detail : `tmux NOT OK: ${c.tmux.detail || 'missing'}`}`,
  ];
  for (const rt of c.runtimes) lines.push(`  ${rt.runtime.padEnd(12)} ${rt.binary.padEnd(10)} ${rt.found ?? '-'}`);
  lines.push(c.missing.length ? `missing: ${c.missing.join('; ')}` : 'nothing missing');
  return lines.join('\n');
}

const destinationOf = ({ ssh }: HostListing) =>
  ssh ? `${ssh.user ? `${ssh.user}@` : ''}${ssh.host}${ssh.port ? `:${ssh.port}` : ''}` : 'local';

function listText({ hosts }: AnswerOf<'hosts.list'>): string {
  if (hosts.length === 0) return 'no hosts (add one with: rigdesk hosts add <name> <[user@]host[:port]>)';
  return hosts
    .map(
      (h) =>
        `${h.name}\t${destinationOf(h)}\t${h.source}\t${h.health?.state ?? 'unchecked'}\t${h.seats.join(',') || '-'}`,
    )
    .join('\n');
}

export const HOSTS_COMMANDS: CommandTable = {
  hosts: {
    usage:
      'hosts add <name> <[user@]host[:port]> [--identity=F --known-hosts=F --strict=yes|accept-new|no --ssh-config=F --tmux-socket=N] | hosts list | hosts check <name>',
    toRequest,
  },
};

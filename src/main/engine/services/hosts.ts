import { resolve } from 'node:path';
import { fail, type Result } from '../../../shared/errors';
import type { AnswerOf, HostListing, RequestOf } from '../../../shared/contract';
import type { Engine } from '../engine';
import type { HostSpec } from '../hosts/types';
import { AGENT_RUNTIMES } from '../runtimes';

/** `rigdesk hosts add`: records an ssh host; a spec's hosts: entry of the same name replaces it at the next up. */
export function addHost(engine: Engine, p: RequestOf<'hosts.add'>): Result<AnswerOf<'hosts.add'>> {
  const abs = (f?: string) => (f ? resolve(f) : undefined);
  const ssh: NonNullable<HostSpec['ssh']> = { host: p.host };
  if (p.user) ssh.user = p.user;
  if (p.port) ssh.port = p.port;
  if (p.identityFile) ssh.identityFile = abs(p.identityFile);
  if (p.knownHostsFile) ssh.knownHostsFile = abs(p.knownHostsFile);
  if (p.strictHostKeyChecking) ssh.strictHostKeyChecking = p.strictHostKeyChecking;
  if (p.configFile) ssh.configFile = abs(p.configFile);
  const spec: HostSpec = { name: p.name, ssh, ...(p.tmuxSocket ? { tmuxSocket: p.tmuxSocket } : {}) };
  engine.store.hosts.upsert(spec, 'cli');
  engine.store.events.append('host.added', {}, { host: p.name, ssh });
  return { ok: true, host: spec };
}

/** Known hosts with the seats that name them; health is what this engine last saw (none yet: unchecked). */
export function listHosts(engine: Engine): Result<AnswerOf<'hosts.list'>> {
  const seats = engine.store.rigs.seats();
  const hosts = engine.store.hosts.all().map((h): HostListing => {
    const live = engine.hosts.peek(h.name);
    return {
      name: h.name,
      source: h.source,
      ...(h.spec.ssh ? { ssh: h.spec.ssh } : {}),
      ...(h.spec.tmuxSocket ? { tmuxSocket: h.spec.tmuxSocket } : {}),
      seats: seats.filter((s) => s.host === h.name).map((s) => s.seat),
      ...(live ? { health: live.health() } : {}),
    };
  });
  return { ok: true, hosts };
}

/**
 * `rigdesk hosts check <name>`: one round trip that proves ssh works, reads tmux's version and
 * looks up every runtime's CLI on the host's login PATH, then says what is missing.
 */
export async function checkHost(engine: Engine, name: string): Promise<Result<AnswerOf<'hosts.check'>>> {
  const h = engine.hosts.get(name);
  if (!h)
    return fail('HOST_NOT_FOUND', `no host named "${name}"`, {
      hint: 'rigdesk hosts list shows the known hosts; add one with rigdesk hosts add.',
      evidence: { host: name },
    });
  // Each runtime's program, then what else its seats need on the PATH (omp's bun, omo's own CLI).
  const bins = AGENT_RUNTIMES.filter((r) => r.binary).flatMap((r) =>
    [r.binary!, ...(r.needs ?? [])].map((binary) => ({ runtime: r.id, binary })),
  );
  const script =
    'echo rd-ok; tmux -V 2>/dev/null || echo "tmux: none"; shift; for b in "$@"; do printf "%s=%s\\n" "$b" "$(command -v "$b" 2>/dev/null)"; done';
  const t0 = engine.now();
  const r = await h.exec('sh', ['-c', script, 'rd', 'x', ...bins.map((b) => b.binary)], { timeoutMs: 8_000 });
  const rttMs = engine.now() - t0;
  if (r.spawnError || !r.stdout.startsWith('rd-ok')) {
    const why = r.spawnError ?? (r.stderr.trim() || `exit ${r.code}`);
    return fail('HOST_UNREACHABLE', `host ${name} does not answer over ssh: ${why}`, {
      hint: 'Check the address, port, user and key (ssh with the same options by hand), and that sshd runs there.',
      evidence: { host: name, reason: why, missing: ['ssh'] },
    });
  }
  const lines = r.stdout.split('\n');
  const tmuxLine = lines[1] ?? '';
  const m = /^tmux (\d+)\.(\d+)/.exec(tmuxLine);
  const tmuxOk = !!m && (Number(m[1]) > 3 || (Number(m[1]) === 3 && Number(m[2]) >= 2));
  const found = new Map(
    lines
      .slice(2)
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)] as const),
  );
  const runtimes = bins.map((b) => ({ ...b, ...(found.get(b.binary) ? { found: found.get(b.binary) } : {}) }));
  const missing: string[] = [];
  if (!tmuxOk) missing.push(m ? `tmux 3.2 or newer (found ${tmuxLine.trim()})` : 'tmux');
  const wanted = new Set(
    engine.store.rigs
      .seats()
      .filter((s) => s.host === name)
      .map((s) => s.runtime),
  );
  for (const rt of runtimes)
    if (!rt.found && wanted.has(rt.runtime))
      missing.push(`${rt.binary} (runtime ${rt.runtime}, used by a seat on ${name})`);
  return {
    ok: true,
    check: {
      host: name,
      ssh: { ok: true, detail: 'connected', rttMs },
      tmux: { ok: tmuxOk, detail: tmuxLine.trim() },
      runtimes,
      missing,
    },
  };
}

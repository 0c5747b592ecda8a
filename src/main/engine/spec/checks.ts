import { expandPath, expandVars } from './expand';
import { valueAt, formatPath } from './locate';
import { quote } from './names';
import type { Problem } from './problems';
import type { RawRig } from './schema';
import type { HostSpec } from '../../../shared/contract/hosts';
import type { BudgetSpec, EdgeSpec, MemberSpec, PodSpec, RigSpec, SpecDeps } from './types';

/**
 * Rules that need the whole (schema-valid) spec: unique ids, edges naming members, known runtimes,
 * variable expansion and cwds that exist. Reads the live system only through `deps`.
 */

export interface CheckContext {
  knownRuntimes: readonly string[];
  /** Hosts known outside this spec (added with `rigdesk hosts add`). */
  knownHosts: readonly string[];
  deps: SpecDeps;
  specPath: string;
  specDir: string;
  /** The untouched YAML data, to see keys the schema library drops (`__proto__`). */
  raw: unknown;
  lineOf(path: readonly PropertyKey[]): number;
}

/** A member's folder: absolute on its host, or expanded here and checked to exist. */
function memberCwd(
  raw: string,
  host: string | undefined,
  at: PropertyKey[],
  ctx: CheckContext,
  problems: Problem[],
): string {
  if (host) {
    // A remote folder cannot be resolved or checked from here: it must be absolute, and
    // launch checks it on the host.
    if (raw.startsWith('/')) return raw.replace(/\/+$/, '') || '/';
    problems.push({
      code: 'SPEC_INVALID',
      path: [...at, 'cwd'],
      message: `cwd of a member on host ${quote(host)} must be an absolute path on that host`,
    });
    return ctx.specDir;
  }
  const expanded = expandPath(raw, { env: ctx.deps.env, homeDir: ctx.deps.homeDir, baseDir: ctx.specDir });
  if (!expanded.ok) {
    problems.push({ code: 'SPEC_INVALID', path: [...at, 'cwd'], message: expanded.message, extra: expanded.evidence });
    return ctx.specDir;
  }
  const missing = cwdProblem(expanded.path, ctx.deps);
  if (missing)
    problems.push({ code: 'CWD_MISSING', path: [...at, 'cwd'], message: missing, extra: { cwd: expanded.path } });
  return expanded.path;
}

/** A member's environment with $VARs expanded; `__proto__` (which the schema drops) is refused. */
function memberEnv(
  raw: Record<string, string> | null | undefined,
  at: PropertyKey[],
  ctx: CheckContext,
  problems: Problem[],
): Record<string, string> {
  const env: Record<string, string> = {};
  const rawEnv = valueAt(ctx.raw, [...at, 'env']);
  if (rawEnv && typeof rawEnv === 'object' && Object.hasOwn(rawEnv, '__proto__')) {
    problems.push({
      code: 'SPEC_INVALID',
      path: [...at, 'env', '__proto__'],
      message: 'environment variable name "__proto__" is not allowed',
    });
  }
  for (const [key, value] of Object.entries(raw ?? {})) {
    const v = expandVars(value, ctx.deps.env);
    if (v.ok) env[key] = v.value;
    else problems.push({ code: 'SPEC_INVALID', path: [...at, 'env', key], message: v.message, extra: v.evidence });
  }
  return env;
}

export function buildSpec(data: RawRig, ctx: CheckContext): { spec: RigSpec } | { problems: Problem[] } {
  const problems: Problem[] = [];
  const firstPod = new Map<string, readonly PropertyKey[]>();
  const firstMember = new Map<string, readonly PropertyKey[]>();
  const seenAt = (p: readonly PropertyKey[]) => `${formatPath(p)}, line ${ctx.lineOf(p)}`;

  const hosts = buildHosts(data, ctx, problems);
  const pods: PodSpec[] = data.pods.map((pod, pi) => {
    const podPath = ['pods', pi, 'id'];
    const earlier = firstPod.get(pod.id);
    if (earlier)
      problems.push({
        code: 'SPEC_INVALID',
        path: podPath,
        message: `duplicate pod id ${quote(pod.id)} (first used at ${seenAt(earlier)})`,
      });
    else firstPod.set(pod.id, podPath);

    const members = pod.members.map((m, mi): MemberSpec => {
      const at = ['pods', pi, 'members', mi];
      const prior = firstMember.get(m.id);
      if (prior) {
        problems.push({
          code: 'SPEC_INVALID',
          path: [...at, 'id'],
          message: `duplicate member id ${quote(m.id)}: member ids are unique across the whole rig (first used at ${seenAt(prior)})`,
        });
      } else firstMember.set(m.id, [...at, 'id']);

      if (!ctx.knownRuntimes.includes(m.runtime)) {
        problems.push({
          code: 'RUNTIME_UNKNOWN',
          path: [...at, 'runtime'],
          message: `unknown runtime ${quote(m.runtime)} (known: ${ctx.knownRuntimes.join(', ')})`,
          extra: { known: [...ctx.knownRuntimes] },
        });
      }

      // `here: local` entries are other names for this machine.
      const localNames = new Set([
        'local',
        ...Object.entries(data.hosts ?? {})
          .filter(([, h]) => h === 'local')
          .map(([n]) => n),
      ]);
      const host = m.host && !localNames.has(m.host) ? m.host : undefined;
      if (host && !hosts.some((h) => h.name === host) && !ctx.knownHosts.includes(host)) {
        const names = [...new Set(['local', ...hosts.map((h) => h.name), ...ctx.knownHosts])];
        problems.push({
          code: 'SPEC_INVALID',
          path: [...at, 'host'],
          message: `member names unknown host ${quote(host)} (hosts: ${names.join(', ')}); declare it under hosts: or add it with rigdesk hosts add`,
        });
      }
      const cwd = memberCwd(m.cwd, host, at, ctx, problems);
      const env = memberEnv(m.env, at, ctx, problems);

      const member: MemberSpec = {
        id: m.id,
        podId: pod.id,
        runtime: m.runtime,
        cwd,
        args: [...(m.args ?? [])],
        env,
        restorePolicy: m.restore_policy ?? 'resume_if_possible',
      };
      if (m.command !== undefined && m.command !== null) member.command = m.command;
      if (host) member.host = host;
      const worktree = worktreeOf(m.worktree ?? pod.worktree);
      if (worktree) {
        member.worktree = worktree;
        if (!host && !problems.some((p) => p.code === 'CWD_MISSING' && p.extra?.cwd === cwd))
          repoProblem(cwd, ctx.deps, [...at, 'cwd'], problems);
      }
      const checks = checksArgv(pod.checks ?? data.checks);
      if (checks) member.checks = checks;
      return member;
    });
    return { id: pod.id, members, ...withBudget(pod.budget) };
  });

  const edges: EdgeSpec[] = (data.edges ?? []).map((e, ei) => {
    for (const end of ['from', 'to'] as const) {
      if (!firstMember.has(e[end])) {
        problems.push({
          code: 'SPEC_INVALID',
          path: ['edges', ei, end],
          message: `edge names unknown member ${quote(e[end])} (members: ${[...firstMember.keys()].join(', ')})`,
        });
      }
    }
    if (e.from === e.to) {
      problems.push({
        code: 'SPEC_INVALID',
        path: ['edges', ei, 'to'],
        message: `edge from ${quote(e.from)} to itself`,
      });
    }
    return { from: e.from, to: e.to, kind: e.kind };
  });

  if (problems.length > 0) return { problems };
  const spec: RigSpec = { name: data.name, specPath: ctx.specPath, pods, edges, ...withBudget(data.budget) };
  if (hosts.length > 0) spec.hosts = hosts;
  return { spec };
}

function buildHosts(data: RawRig, ctx: CheckContext, problems: Problem[]): HostSpec[] {
  const out: HostSpec[] = [];
  for (const [name, h] of Object.entries(data.hosts ?? {})) {
    if (name === 'local') {
      if (h !== 'local')
        problems.push({
          code: 'SPEC_INVALID',
          path: ['hosts', name],
          message: 'the host name "local" means this machine and cannot name an ssh target',
        });
      continue;
    }
    if (!/^[a-z0-9][a-z0-9._-]{0,62}$/i.test(name)) {
      problems.push({
        code: 'SPEC_INVALID',
        path: ['hosts', name],
        message: `invalid host name ${quote(name)}: use letters, digits, ".", "_" and "-"`,
      });
      continue;
    }
    if (h === 'local') continue;
    const file = (v: string | null | undefined) =>
      v ? expandPath(v, { env: ctx.deps.env, homeDir: ctx.deps.homeDir, baseDir: ctx.specDir }) : undefined;
    const ssh: HostSpec['ssh'] = { host: h.ssh.host };
    if (h.ssh.user) ssh.user = h.ssh.user;
    if (h.ssh.port) ssh.port = h.ssh.port;
    if (h.ssh.strict_host_key_checking) ssh.strictHostKeyChecking = h.ssh.strict_host_key_checking;
    for (const [key, field] of [
      ['identity_file', 'identityFile'],
      ['known_hosts_file', 'knownHostsFile'],
      ['config_file', 'configFile'],
    ] as const) {
      const r = file(h.ssh[key]);
      if (!r) continue;
      if (!r.ok) problems.push({ code: 'SPEC_INVALID', path: ['hosts', name, 'ssh', key], message: r.message });
      else ssh[field] = r.path;
    }
    out.push({ name, ssh, ...(h.tmux_socket ? { tmuxSocket: h.tmux_socket } : {}) });
  }
  return out;
}

/** A member's or its pod's `worktree:` as the engine sees it; undefined when off. */
function worktreeOf(w: boolean | { base?: string | null } | null | undefined): { base?: string } | undefined {
  if (!w) return undefined;
  return w === true || !w.base ? {} : { base: w.base };
}

/** `budget:` as the spec's field: only the limits it names (the schema has checked at least one). */
function withBudget(b: { tokens?: number | null; usd?: number | null } | null | undefined): { budget?: BudgetSpec } {
  if (!b) return {};
  return { budget: { ...(b.tokens != null ? { tokens: b.tokens } : {}), ...(b.usd != null ? { usd: b.usd } : {}) } };
}

/** `checks: npm test` runs through sh, as a person would type it; a list is an argv as it is. */
function checksArgv(c: string | string[] | null | undefined): string[] | undefined {
  if (c === undefined || c === null) return undefined;
  return typeof c === 'string' ? ['sh', '-c', c] : [...c];
}

/**
 * A seat with a worktree needs its cwd in a git repository: a `.git` (a folder, or a worktree's
 * file) in the cwd or a folder above it. The launch asks git itself; this gives the spec's line.
 */
function repoProblem(cwd: string, deps: SpecDeps, path: PropertyKey[], problems: Problem[]): void {
  for (let dir = cwd; ; ) {
    if (deps.exists(`${dir === '/' ? '' : dir}/.git`)) return;
    const up = dir.replace(/\/[^/]*$/, '') || '/';
    if (up === dir) break;
    dir = up;
  }
  problems.push({
    code: 'NOT_A_REPO',
    path,
    message: `${quote(cwd, 200)} is not inside a git repository, and the member asks for a worktree`,
    extra: { cwd },
  });
}

function cwdProblem(cwd: string, deps: SpecDeps): string | undefined {
  try {
    if (!deps.exists(cwd)) return `folder ${quote(cwd, 200)} does not exist`;
    if (!deps.isDirectory(cwd)) return `${quote(cwd, 200)} is not a folder`;
    return undefined;
  } catch (e) {
    return `cannot check folder ${quote(cwd, 200)}: ${e instanceof Error ? e.message : String(e)}`;
  }
}

import { z } from 'zod';
import { sshNameProblem } from '../../../shared/contract';
import { ENV_NAME_RE } from './expand';
import { nameProblem, type NameKind } from './names';
import { EDGE_KINDS, RESTORE_POLICIES } from './types';

/**
 * The YAML shape of a rig spec, strict at every level: an unknown key is far more often a typo
 * (`restorePolicy`, `member:`) than an extension, and a typo silently ignored is a seat started with
 * the wrong policy. Cross-field rules (unique ids, edges naming members, known runtimes, existing
 * cwds) live in checks.ts, where they can see the whole spec.
 */

function name(kind: NameKind, field = 'id') {
  return z.string().superRefine((value, ctx) => {
    const problem = nameProblem(value);
    if (problem !== undefined)
      ctx.addIssue({
        code: 'custom',
        message: `invalid ${kind} ${field} ${JSON.stringify(value.slice(0, 40))}: it ${problem}`,
      });
  });
}

const noNul = (what: string) =>
  z.string().refine((s) => !s.includes('\0'), { error: `${what} must not contain a NUL character` });

const nonEmpty = (what: string) => noNul(what).refine((s) => s.length > 0, { error: `${what} must not be empty` });

/**
 * `worktree: true` or `worktree: { base: <branch> }`: the seat runs in a git worktree of its own
 * (`false` turns a pod's default off for one member).
 */
export const worktreeSchema = z.union([z.boolean(), z.strictObject({ base: nonEmpty('base').nullish() })]);

/** `checks: npm test` (run by sh in the seat's worktree) or an argv list: the merge gate's command. */
export const checksSchema = z.union([nonEmpty('checks'), z.array(noNul('an argument')).min(1)]);

/**
 * `budget: {tokens: N, usd: X}` per local day, on a rig or a pod: reached, its seats' queue wakes
 * and sends park behind a decision (nothing running is stopped). At least one of the two.
 */
export const budgetSchema = z
  .strictObject({
    tokens: z
      .number({ error: 'tokens must be a whole number of tokens per day' })
      .int({ error: 'tokens must be a whole number of tokens per day' })
      .positive({ error: 'tokens must be more than 0' })
      .max(Number.MAX_SAFE_INTEGER)
      .nullish(),
    usd: z
      .number({ error: 'usd must be a number of US dollars per day' })
      .positive({ error: 'usd must be more than 0' })
      .max(1e9, { error: 'usd must be at most 1e9' })
      .nullish(),
  })
  .refine((b) => b.tokens != null || b.usd != null, { error: 'a budget needs tokens, usd or both' });

export const memberSchema = z.strictObject({
  id: name('member'),
  runtime: nonEmpty('runtime'),
  cwd: nonEmpty('cwd'),
  command: nonEmpty('command').nullish(),
  args: z.array(noNul('an argument')).nullish(),
  env: z.record(z.string().regex(ENV_NAME_RE), noNul('an environment value')).nullish(),
  restore_policy: z.enum(RESTORE_POLICIES, { error: `must be one of: ${RESTORE_POLICIES.join(', ')}` }).nullish(),
  host: name('host', 'name').nullish(),
  worktree: worktreeSchema.nullish(),
});

/** An ssh host or user: never read by ssh as an option, no whitespace or control character. */
const sshName = (what: string) =>
  z.string().superRefine((value, ctx) => {
    const problem = sshNameProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: `${what} ${JSON.stringify(value.slice(0, 40))} ${problem}` });
  });

/** `hosts: { box: { ssh: {...} }, here: local }`: where members may run; `local` is this machine. */
export const sshSchema = z.strictObject({
  host: sshName('ssh host'),
  user: sshName('ssh user').nullish(),
  port: z.number().int().min(1).max(65535).nullish(),
  identity_file: nonEmpty('identity_file').nullish(),
  known_hosts_file: nonEmpty('known_hosts_file').nullish(),
  strict_host_key_checking: z.enum(['yes', 'accept-new', 'no']).nullish(),
  config_file: nonEmpty('config_file').nullish(),
});

export const hostSchema = z.union([
  z.literal('local'),
  z.strictObject({ ssh: sshSchema, tmux_socket: nonEmpty('tmux_socket').nullish() }),
]);

export const podSchema = z.strictObject({
  id: name('pod'),
  members: z.array(memberSchema).min(1, { error: 'a pod needs at least one member' }),
  worktree: worktreeSchema.nullish(),
  checks: checksSchema.nullish(),
  budget: budgetSchema.nullish(),
});

export const edgeSchema = z.strictObject({
  from: name('member', 'name'),
  to: name('member', 'name'),
  kind: z.enum(EDGE_KINDS, { error: `must be one of: ${EDGE_KINDS.join(', ')}` }),
});

export const rigSchema = z.strictObject({
  name: name('rig', 'name'),
  pods: z.array(podSchema).min(1, { error: 'a rig needs at least one pod' }),
  edges: z.array(edgeSchema).nullish(),
  hosts: z.record(z.string(), hostSchema).nullish(),
  checks: checksSchema.nullish(),
  budget: budgetSchema.nullish(),
});

export type RawRig = z.output<typeof rigSchema>;
export type RawMember = z.output<typeof memberSchema>;

/** Keys allowed at a path, for "unknown key" messages that say what was meant instead. */
export function allowedKeysAt(path: readonly PropertyKey[]): readonly string[] | undefined {
  const at = path.map((p) => (typeof p === 'number' ? '#' : String(p))).join('/');
  switch (at) {
    case '':
      return Object.keys(rigSchema.shape);
    case 'pods/#':
      return Object.keys(podSchema.shape);
    case 'pods/#/members/#':
      return Object.keys(memberSchema.shape);
    case 'edges/#':
      return Object.keys(edgeSchema.shape);
    case 'budget':
    case 'pods/#/budget':
      return ['tokens', 'usd'];
    default:
      return undefined;
  }
}

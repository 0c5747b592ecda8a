import { z } from 'zod';
import type { AnswerSchemas } from './answer';

/** Hosts over SSH: known hosts, their health, and what each one lacks. */

export const hostName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, { message: 'use letters, digits, ".", "_" and "-"' })
  .refine((n) => n !== 'local', { message: '"local" is this machine' });

const tmuxSocketName = z.string().regex(/^[A-Za-z0-9._-]{1,64}$/);

/**
 * Why an ssh host or user cannot be used as given (undefined: it can). ssh reads an argument that
 * starts with `-` as an option (`-oProxyCommand=…` runs a command), and whitespace or a control
 * character has no place in a name; the spec, the contract and the CLI refuse them by this one rule.
 */
export function sshNameProblem(value: string): string | undefined {
  if (value === '') return 'is empty';
  if (value.startsWith('-')) return 'starts with "-", which ssh would read as an option';
  const bad = /[\s\x00-\x1f\x7f-\x9f]/u.exec(value);
  if (bad)
    return `contains ${/\s/u.test(bad[0]) ? 'whitespace' : 'a control character'} (U+${bad[0].codePointAt(0)!.toString(16).padStart(4, '0').toUpperCase()})`;
  return undefined;
}

/** An ssh host or user in a request: the field is named by the issue's path. */
const sshName = (max: number) =>
  z
    .string()
    .max(max)
    .superRefine((v, ctx) => {
      const problem = sshNameProblem(v);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });
export const strictHostKeyChecking = z.enum(['yes', 'accept-new', 'no']);

export const HOSTS_REQUESTS = {
  'hosts.add': z.strictObject({
    name: hostName,
    host: sshName(255),
    user: sshName(64).optional(),
    port: z.number().int().min(1).max(65535).optional(),
    identityFile: z.string().min(1).max(4096).optional(),
    knownHostsFile: z.string().min(1).max(4096).optional(),
    strictHostKeyChecking: strictHostKeyChecking.optional(),
    configFile: z.string().min(1).max(4096).optional(),
    tmuxSocket: tmuxSocketName.optional(),
  }),
  'hosts.list': z.strictObject({}),
  'hosts.check': z.strictObject({ name: hostName }),
} as const;

/** How the engine reaches a host with OpenSSH (files are absolute once recorded). */
export const sshTarget = z.strictObject({
  host: z.string(),
  user: z.string().optional(),
  port: z.number().int().optional(),
  identityFile: z.string().optional(),
  /** Known-hosts file for this host; tests point it at their own file, never the person's. */
  knownHostsFile: z.string().optional(),
  /** Passed to StrictHostKeyChecking; `yes` when absent. */
  strictHostKeyChecking: strictHostKeyChecking.optional(),
  /** ssh client config file; `/dev/null` keeps the person's ~/.ssh/config out (tests). */
  configFile: z.string().optional(),
});
export type SshTarget = z.output<typeof sshTarget>;

/** A machine seats run on, as recorded: `ssh` is absent only for this machine. */
export const hostSpec = z.strictObject({
  name: z.string(),
  ssh: sshTarget.optional(),
  /** The tmux server the engine owns on that host (`-L name`); default `rigdesk`. */
  tmuxSocket: z.string().optional(),
});
export type HostSpec = z.output<typeof hostSpec>;

/**
 * A host's health as the engine last saw it, by state. (`hostHealthRow` below is the same read
 * as one flat row, the form the window's push carries.)
 */
export const hostHealth = z.discriminatedUnion('state', [
  z.strictObject({ host: z.string(), state: z.literal('local') }),
  z.strictObject({ host: z.string(), state: z.literal('reachable'), checkedAt: z.number(), rttMs: z.number() }),
  z.strictObject({
    host: z.string(),
    state: z.literal('unreachable'),
    checkedAt: z.number(),
    reason: z.string(),
    /** When the next try may connect (reconnect back-off). */
    retryAt: z.number(),
    failures: z.number().int().min(1),
  }),
]);
export type HostHealth = z.output<typeof hostHealth>;

/** One known host in `hosts list`. */
export const hostListing = z.strictObject({
  name: z.string(),
  /** Who recorded it: `cli` (rigdesk hosts add) or the rig spec that declares it. */
  source: z.string(),
  ssh: sshTarget.optional(),
  tmuxSocket: z.string().optional(),
  /** Seats that name this host. */
  seats: z.array(z.string()),
  /** Absent until this engine has talked to the host. */
  health: hostHealth.optional(),
});
export type HostListing = z.output<typeof hostListing>;

/** What `hosts check` found on a host that answered (one that does not is HOST_UNREACHABLE). */
export const hostCheck = z.strictObject({
  host: z.string(),
  ssh: z.strictObject({ ok: z.boolean(), detail: z.string(), rttMs: z.number() }),
  /** ok: tmux 3.2 or newer; detail: what `tmux -V` said. */
  tmux: z.strictObject({ ok: z.boolean(), detail: z.string() }),
  /**
   * Every runtime's CLI and each other program its seats need (a row each, under the runtime's
   * id), and where the host's login PATH has it (absent: not found).
   */
  runtimes: z.array(z.strictObject({ runtime: z.string(), binary: z.string(), found: z.string().optional() })),
  /** One line per thing to install or fix, empty when the host has everything. */
  missing: z.array(z.string()),
});
export type HostCheck = z.output<typeof hostCheck>;

/** What each request answers beside `ok: true`. */
export const HOSTS_ANSWERS = {
  'hosts.add': z.strictObject({ host: hostSpec }),
  'hosts.list': z.strictObject({ hosts: z.array(hostListing) }),
  'hosts.check': z.strictObject({ check: hostCheck }),
} as const satisfies AnswerSchemas<typeof HOSTS_REQUESTS>;

/** A remote host's health as the window shows it (pushed with the seats). */
export const hostHealthRow = z.strictObject({
  host: z.string(),
  state: z.enum(['local', 'reachable', 'unreachable']),
  checkedAt: z.number().optional(),
  rttMs: z.number().optional(),
  reason: z.string().optional(),
  retryAt: z.number().optional(),
  failures: z.number().int().optional(),
});
export type HostHealthRow = z.output<typeof hostHealthRow>;

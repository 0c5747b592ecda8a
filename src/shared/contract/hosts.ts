import { z } from 'zod';
import { type AnswerSchemas, untypedAnswer } from './answer';

/** Hosts over SSH: known hosts, their health, and what each one lacks. */

export const hostName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, { message: 'use letters, digits, ".", "_" and "-"' })
  .refine((n) => n !== 'local', { message: '"local" is this machine' });

export const HOSTS_REQUESTS = {
  hostsAdd: z.strictObject({
    name: hostName,
    host: z.string().min(1).max(255),
    user: z.string().min(1).max(64).optional(),
    port: z.number().int().min(1).max(65535).optional(),
    identityFile: z.string().min(1).max(4096).optional(),
    knownHostsFile: z.string().min(1).max(4096).optional(),
    strictHostKeyChecking: z.enum(['yes', 'accept-new', 'no']).optional(),
    configFile: z.string().min(1).max(4096).optional(),
    tmuxSocket: z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,64}$/)
      .optional(),
  }),
  hostsList: z.strictObject({}),
  hostsCheck: z.strictObject({ name: hostName }),
} as const;

/** What each request answers beside `ok: true`. */
export const HOSTS_ANSWERS = {
  hostsAdd: untypedAnswer,
  hostsList: untypedAnswer,
  hostsCheck: untypedAnswer,
} as const satisfies AnswerSchemas<typeof HOSTS_REQUESTS>;

export interface HostCheck {
  host: string;
  ssh: { ok: boolean; detail: string; rttMs?: number };
  tmux: { ok: boolean; detail: string };
  runtimes: { runtime: string; binary: string; found?: string }[];
  /** One line per thing to install or fix, empty when the host has everything. */
  missing: string[];
}

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

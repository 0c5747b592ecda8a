import type { HostSpec } from '../../../shared/contract/hosts';
/**
 * The validated shape of a rig spec, as the rest of the engine sees it. The YAML uses snake_case
 * (`restore_policy`); these types use camelCase and carry only normalised values: absolute cwds,
 * expanded env values, defaults filled in.
 */

export type RestorePolicy = 'resume_if_possible' | 'fresh' | 'never';
export type EdgeKind = 'delegates_to' | 'escalates_to' | 'collaborates_with';

export const RESTORE_POLICIES = ['resume_if_possible', 'fresh', 'never'] as const satisfies readonly RestorePolicy[];
export const EDGE_KINDS = ['delegates_to', 'escalates_to', 'collaborates_with'] as const satisfies readonly EdgeKind[];

export interface MemberSpec {
  id: string;
  podId: string;
  runtime: string;
  /** Absolute, `~` and `$VAR` expanded, normalised. Relative paths resolve from the spec's folder. */
  cwd: string;
  command?: string;
  args: string[];
  env: Record<string, string>;
  restorePolicy: RestorePolicy;
  /** The host it runs on; absent for this machine. */
  host?: string;
  /** The seat runs in a git worktree of its own, from `base` (the repository's current branch when absent). */
  worktree?: { base?: string };
  /** The merge gate's checks (the pod's, else the rig's) as an argv. */
  checks?: string[];
}

/** A daily budget (per local day): tokens in and out, and/or the cost estimate in US dollars. */
export interface BudgetSpec {
  tokens?: number;
  usd?: number;
}

export interface PodSpec {
  id: string;
  members: MemberSpec[];
  budget?: BudgetSpec;
}

export interface EdgeSpec {
  from: string;
  to: string;
  kind: EdgeKind;
}

export interface RigSpec {
  name: string;
  /** Absolute path of the spec file. */
  specPath: string;
  pods: PodSpec[];
  edges: EdgeSpec[];
  /** Remote hosts the members name (`local` entries are not listed). */
  hosts?: HostSpec[];
  budget?: BudgetSpec;
}

/** Everything spec parsing needs from the live system; tests inject a fake. */
export interface SpecDeps {
  env: Record<string, string | undefined>;
  homeDir: string;
  exists(path: string): boolean;
  isDirectory(path: string): boolean;
  /** Throws (ENOENT, EISDIR, ...) when the file cannot be read. */
  readFile(path: string): string;
}

/** Resource limits: a spec is a small hand-written file, anything far bigger is a mistake or an attack. */
export const MAX_SPEC_BYTES = 256 * 1024;
export const MAX_ALIAS_COUNT = 100;
export const MAX_PROBLEMS = 10;

import type { Exec, ExecResult } from '../deps';

/**
 * The one port the git adapter uses: run `git` with an argv (never a shell string here) and keep a
 * private scratch copy of a file (the index, so untracked files can be counted without touching
 * the seat's own index). A seat on this machine gets `localGitPort`; a seat on another host gets
 * `execGitPort` over that host's exec, which quotes each argument for the remote shell.
 */
export interface GitRunOptions {
  /** Extra variables for this run (GIT_INDEX_FILE for a scratch index). */
  env?: Record<string, string>;
  input?: string;
  timeoutMs?: number;
}

export interface GitPort {
  git(args: readonly string[], opts?: GitRunOptions): Promise<ExecResult>;
  /** A copy of `file` that only the caller writes; `drop` removes it. Undefined when it cannot be made. */
  scratchCopy(file: string): Promise<Scratch | undefined>;
}

export interface Scratch {
  path: string;
  drop(): Promise<void>;
}

/** What a local port needs from the file system: a private folder, a copy into it, its removal. */
export interface ScratchFs {
  makeTempDir(prefix: string): Promise<string>;
  copyFile(from: string, to: string): Promise<void>;
  removeDir(path: string): Promise<void>;
}

/**
 * Variables that would point git somewhere else than the folder it is given (a hook's GIT_DIR,
 * an inherited GIT_INDEX_FILE): dropped from every run, so `-C <dir>` alone says which repository.
 */
const REDIRECTING =
  /^GIT_(DIR|WORK_TREE|INDEX_FILE|OBJECT_DIRECTORY|ALTERNATE_OBJECT_DIRECTORIES|COMMON_DIR|NAMESPACE|PREFIX|CEILING_DIRECTORIES|CONFIG_PARAMETERS|CONFIG_COUNT|CONFIG_KEY_\d+|CONFIG_VALUE_\d+)$/;

/**
 * Every run reads without taking the index lock an agent's own `git commit` needs
 * (GIT_OPTIONAL_LOCKS=0), prints messages in one language (LC_ALL=C, for the few it reads), and
 * never asks for a password.
 */
export const GIT_ENV: Readonly<Record<string, string>> = {
  GIT_OPTIONAL_LOCKS: '0',
  LC_ALL: 'C',
  GIT_TERMINAL_PROMPT: '0',
};

export function gitEnv(base: NodeJS.ProcessEnv, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(base)) if (!REDIRECTING.test(k)) env[k] = v;
  return { ...env, ...GIT_ENV, ...extra };
}

/** Git on this machine, through the engine's exec and file system. */
export function localGitPort(exec: Exec, fs: ScratchFs, baseEnv: NodeJS.ProcessEnv): GitPort {
  return {
    git: (args, opts = {}) =>
      exec('git', args, { env: gitEnv(baseEnv, opts.env), input: opts.input, timeoutMs: opts.timeoutMs ?? 30_000 }),
    scratchCopy: async (file) => {
      let dir: string | undefined;
      try {
        dir = await fs.makeTempDir('rigdesk-git-');
        const path = `${dir}/index`;
        await fs.copyFile(file, path);
        const made = dir;
        return { path, drop: () => fs.removeDir(made) };
      } catch {
        if (dir) await fs.removeDir(dir).catch(() => undefined);
        return undefined;
      }
    },
  };
}

/**
 * Git on a host, through its exec (one ssh round trip a run). The remote side gets no local
 * environment, so the variables ride `env NAME=VALUE git …`, each word quoted by the exec.
 */
export function execGitPort(exec: Exec): GitPort {
  const vars = (extra: Record<string, string> = {}) =>
    Object.entries({ ...GIT_ENV, ...extra }).map(([k, v]) => `${k}=${v}`);
  return {
    git: (args, opts = {}) =>
      exec('env', [...vars(opts.env), 'git', ...args], { input: opts.input, timeoutMs: opts.timeoutMs ?? 30_000 }),
    scratchCopy: async (file) => {
      // The script is fixed; the file name arrives as a positional parameter, never in the script.
      const r = await exec('sh', [
        '-c',
        // -p keeps the index's times (see liveScratchFs): git's same-second check reads them.
        'd=$(mktemp -d) && cp -p -- "$1" "$d/index" && printf %s "$d"',
        'rigdesk-git',
        file,
      ]);
      const dir = r.code === 0 ? r.stdout.trim() : '';
      if (!dir.startsWith('/')) return undefined;
      return {
        path: `${dir}/index`,
        drop: async () => {
          await exec('rm', ['-rf', '--', dir]);
        },
      };
    },
  };
}

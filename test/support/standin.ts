import { spawn, type ChildProcess } from 'node:child_process';

/**
 * A stand-in agent: a process whose argv reads like an agent's (`claude --resume X`) but that only
 * prints its name and waits. `exec -a` sets argv[0]; node keeps the rest of argv as given and never rewrites it.
 * Killed by pid (or with its test's own tmux server).
 */
export function standInArgv(argv0: string, args: string[]): string[] {
  return [
    'bash',
    '-c',
    // A line on screen, as an agent draws (restore's quiet spell counts from the first drawing).
    `printf '%s (stand-in)\\n' ${argv0}; exec -a ${argv0} "${process.execPath}" -e 'setInterval(() => {}, 60000)' -- "$@"`,
    'standin',
    ...args,
  ];
}

export function spawnHeadlessStandIn(
  argv0: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): ChildProcess {
  const [cmd, ...rest] = standInArgv(argv0, args);
  return spawn(cmd!, rest, { stdio: 'ignore', env });
}

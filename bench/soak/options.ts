/**
 * How long and how hard a soak runs. The bench reads these from the environment (a person's long
 * run); the suite's short run passes its own. Periods are in milliseconds.
 */
export interface SoakOptions {
  /** How long random actions are fired. */
  durationMs: number;
  /** One action is started every this often (when fewer than `maxInFlight` are running). */
  actionEveryMs: number;
  /** Actions running at once at most: a tick finding this many still running is skipped, not queued. */
  maxInFlight: number;
  /** The rig's tmux server is killed every this often (first at this mark). */
  killTmuxEveryMs: number;
  /** The engine is ended (SIGTERM) and started again every this often... */
  restartEngineEveryMs: number;
  /** ...first at this mark (so kills and restarts do not fall together). */
  restartEngineOffsetMs: number;
  /** An action with no answer after this long is a hang (a failure). */
  actionTimeoutMs: number;
  /** Shell seats beside the one Claude Code and one Codex seat. */
  shellSeats: number;
  /** Seed of the action sequence (a run can be replayed in the same order). */
  seed: number;
}

const MIN = 60_000;

export const DEFAULT_SOAK: SoakOptions = {
  durationMs: 20 * MIN,
  actionEveryMs: 200,
  maxInFlight: 6,
  killTmuxEveryMs: 5 * MIN,
  restartEngineEveryMs: 5 * MIN,
  restartEngineOffsetMs: 2.5 * MIN,
  actionTimeoutMs: 120_000,
  shellSeats: 20,
  seed: Date.now() % 1_000_000,
};

const num = (env: NodeJS.ProcessEnv, key: string, fallback: number): number => {
  const v = env[key];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${key}=${v} is not a number of the right kind`);
  return n;
};

/** RDSOAK_MINUTES, RDSOAK_ACTION_MS, RDSOAK_KILL_MINUTES, RDSOAK_RESTART_MINUTES, ... (README). */
export function soakOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): SoakOptions {
  const d = DEFAULT_SOAK;
  const restart = num(env, 'RDSOAK_RESTART_MINUTES', d.restartEngineEveryMs / MIN) * MIN;
  return {
    durationMs: num(env, 'RDSOAK_MINUTES', d.durationMs / MIN) * MIN,
    actionEveryMs: num(env, 'RDSOAK_ACTION_MS', d.actionEveryMs),
    maxInFlight: num(env, 'RDSOAK_MAX_IN_FLIGHT', d.maxInFlight),
    killTmuxEveryMs: num(env, 'RDSOAK_KILL_MINUTES', d.killTmuxEveryMs / MIN) * MIN,
    restartEngineEveryMs: restart,
    restartEngineOffsetMs: num(env, 'RDSOAK_RESTART_OFFSET_MINUTES', restart / 2 / MIN) * MIN,
    actionTimeoutMs: num(env, 'RDSOAK_ACTION_TIMEOUT_MS', d.actionTimeoutMs),
    shellSeats: num(env, 'RDSOAK_SHELL_SEATS', d.shellSeats),
    seed: num(env, 'RDSOAK_SEED', d.seed),
  };
}

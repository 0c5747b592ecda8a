import type { Engine } from '../engine';

/**
 * TEST-ONLY fault points of restore, in the same form as the engine's fence faults
 * (`RIGDESK_TEST_FAULT=<point>:pause`, see context.ts): the process announces the point on stderr
 * and waits there until a test SIGKILLs it. Production never sets the variable. Kept here because
 * the engine's FaultPoint list is not this domain's to extend.
 */
export type RestoreFaultPoint =
  | 'restore.after_snapshot'
  | 'restore.after_plan'
  | 'restore.after_launch'
  | 'restore.before_rollback'
  | 'restore.after_rollback_kill'
  | 'restore.before_finish'
  | 'restart.after_reserved'
  | 'restart.after_respawn';

export async function restoreFault(engine: Engine, point: RestoreFaultPoint): Promise<void> {
  if (engine.deps.env.RIGDESK_TEST_FAULT !== `${point}:pause`) return;
  process.stderr.write(`rigdesk: test fault: paused at ${point}\n`);
  await new Promise(() => setInterval(() => undefined, 60_000));
}

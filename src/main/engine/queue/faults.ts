import type { Engine } from '../engine';

/**
 * TEST-ONLY fault points of the queue waker, in the engine's form (`RIGDESK_TEST_FAULT=<point>:pause`,
 * see context.ts): the process says so on stderr and waits there until a test SIGKILLs it. The
 * crash tests kill a `rigdesk queue wake` between writing the wake row and typing, and between
 * typing and marking it sent. Production never sets the variable. Kept here because the engine's
 * FaultPoint list is not this domain's to extend.
 */
export type QueueFaultPoint = 'queue.after_wake_row' | 'queue.after_wake_typed';

export async function queueFault(engine: Engine, point: QueueFaultPoint): Promise<void> {
  if (engine.deps.env.RIGDESK_TEST_FAULT !== `${point}:pause`) return;
  process.stderr.write(`rigdesk: test fault: paused at ${point}\n`);
  // A timer keeps the event loop alive: a bare pending promise would let the process exit.
  await new Promise(() => setInterval(() => undefined, 60_000));
}

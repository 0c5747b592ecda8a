/**
 * Test-only fault injection, for the whole engine: named points where it awaits a hook.
 * Production passes none. Tests use them to force interleavings (a pid reused between check and
 * write) or to SIGKILL a process at an exact phase of a fence, a restore or a queue wake.
 */
export type FaultPoint =
  | 'fence.after_reserved'
  | 'fence.after_helper_invoked'
  | 'fence.after_created'
  | 'send.before_revalidate'
  /** Present: the send's Enter is not pressed, as when an agent drops it. */
  | 'send.drop_enter'
  | 'queue.after_wake_row'
  | 'queue.after_wake_typed'
  | 'restore.after_snapshot'
  | 'restore.after_plan'
  | 'restore.after_launch'
  | 'restore.before_rollback'
  | 'restore.after_rollback_kill'
  | 'restore.before_finish'
  | 'restart.after_reserved'
  | 'restart.after_respawn'
  /** `rigdesk serve` is serving (the exit tests arm an uncaught error here). */
  | 'serve.ready';

export type FaultHooks = Partial<Record<FaultPoint, () => Promise<void> | void>>;

/** Runs the hook at `point`, if a test set one. */
export async function atFault(faults: FaultHooks, point: FaultPoint): Promise<void> {
  await faults[point]?.();
}

/**
 * `RIGDESK_TEST_FAULT=<point>:pause` makes the engine stop at that point until killed: the
 * process says so on stderr and waits there; only the crash tests set it. `<point>:throw-on-sigusr2`
 * arms an error nobody catches, thrown when the process gets SIGUSR2 (the exit tests end an engine
 * that way). It is read once, here, and nowhere else.
 */
export function faultsFromEnv(env: NodeJS.ProcessEnv): FaultHooks {
  const spec = env.RIGDESK_TEST_FAULT;
  if (!spec) return {};
  const [point, action] = spec.split(':') as [FaultPoint, string];
  if (action === 'throw-on-sigusr2')
    return {
      [point]: () => {
        process.once('SIGUSR2', () =>
          setImmediate(() => {
            throw new Error(`test fault: an uncaught error at ${point}`);
          }),
        );
      },
    };
  if (action !== 'pause') return {};
  return {
    [point]: async () => {
      process.stderr.write(`rigdesk: test fault: paused at ${point}\n`);
      // A timer keeps the event loop alive: a bare pending promise would let the process exit.
      await new Promise(() => setInterval(() => undefined, 60_000));
    },
  };
}

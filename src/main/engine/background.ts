import type { Failure } from '../../shared/errors';
import { ActivityMonitor } from './activity/monitor';
import { parcelWatchPort } from './changes/parcel-port';
import type { Engine } from './engine';
import { startQueueWaker } from './queue/waker';
import { reconcile } from './restore/reconcile';
import { startSnapshotTimer } from './restore/snapshot';
import { serveEngineSocket } from './rpc/server';
import { startUsageSampling } from './services/usage';
import { SAMPLE_MS } from './usage/sampler';

/** How often a long-lived engine snapshots its rigs and wakes idle seats with open queue items. */
export const SNAPSHOT_EVERY_MS = 5 * 60_000;
export const WAKE_EVERY_MS = 5_000;

export type BackgroundReport =
  | { kind: 'reconcile'; failure: Failure }
  | { kind: 'waker'; error: Error }
  | { kind: 'monitor'; error: Error }
  | { kind: 'usage'; error: Error }
  | { kind: 'engine_elsewhere'; message: string };

export interface Background {
  stop(): void;
}

/**
 * What a long-lived engine runs besides answering requests, the same in `rigdesk serve` and in
 * the app: the store compared with tmux and the process table after a crash or a reboot, rig
 * snapshots, the queue waker (idle seats told about their open items) and the activity monitor
 * (each change an event row). Only the engine that owns the home's socket runs them: two wakers
 * would each tell a seat about the same items.
 */
export async function startBackground(engine: Engine, report: (r: BackgroundReport) => void): Promise<Background> {
  const rec = await reconcile(engine.ports);
  if (!rec.ok) report({ kind: 'reconcile', failure: rec });
  const stopSnapshots = startSnapshotTimer(engine.ports, SNAPSHOT_EVERY_MS);
  const stopWaker = startQueueWaker(engine.ports, WAKE_EVERY_MS, (e) => report({ kind: 'waker', error: e as Error }));
  const monitor = new ActivityMonitor(engine.ports, { onError: (error) => report({ kind: 'monitor', error }) });
  await monitor.start();
  const stopSampling = startUsageSampling(engine, SAMPLE_MS, (e) => report({ kind: 'usage', error: e as Error }));
  // Worktrees are watched from now on: a write reaches ps and the windows without a poll of git.
  engine.ports.changes.startWatching(parcelWatchPort());
  return {
    stop: () => {
      stopSampling();
      void engine.ports.changes.close();
      monitor.stop();
      stopWaker();
      stopSnapshots();
    },
  };
}

export interface ClaimedEngine {
  /** Set when this process serves the home's engine socket and runs the background. */
  background?: Background;
  close(): Promise<void>;
}

/**
 * The app's engine: serves the home's socket (so the CLI reaches this window's engine) and runs
 * the background. If another engine already serves this home (`rigdesk serve`, another app), the
 * window still works, on the same store, but the background stays with that engine, and the
 * report says so.
 */
export async function claimEngine(
  engine: Engine,
  report: (r: BackgroundReport) => void,
  serveSocket: typeof serveEngineSocket = serveEngineSocket,
): Promise<ClaimedEngine> {
  let socket: Awaited<ReturnType<typeof serveEngineSocket>>;
  try {
    socket = await serveSocket(engine);
  } catch (e) {
    report({
      kind: 'engine_elsewhere',
      message: `${(e as Error).message}; the CLI will reach that engine, which also runs the activity monitor and the queue waker`,
    });
    return { close: async () => undefined };
  }
  let background: Background;
  try {
    background = await startBackground(engine, report);
  } catch (e) {
    // Serving the socket without the background would leave the CLI talking to an engine that
    // never wakes or watches anything: give the socket back and fail as a whole.
    await socket.close();
    throw e;
  }
  return {
    background,
    close: async () => {
      background.stop();
      await socket.close();
    },
  };
}

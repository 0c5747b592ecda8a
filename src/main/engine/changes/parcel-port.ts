import type { WatchPort } from './watch';

/**
 * The live watch port: @parcel/watcher (inotify on Linux, FSEvents on macOS), one native thread
 * for every watch, a watch per folder rather than per file. Loaded on first use, so a CLI command
 * that never watches never loads the native module.
 */
export function parcelWatchPort(): WatchPort {
  return {
    subscribe: async (dir, onEvents, opts) => {
      const watcher = await import('@parcel/watcher');
      const sub = await watcher.subscribe(
        dir,
        (err, events) => onEvents(err ?? null, err ? [] : events.map((e) => e.path)),
        { ignore: opts.ignore },
      );
      return { unsubscribe: () => sub.unsubscribe() };
    },
  };
}

import { type Fs, liveFs } from '../deps';
import { dirname } from 'node:path';
import { CONFIG_MAX_BYTES, readRegularText } from '../read-file';

/**
 * How Rigdesk reads and writes a seat's own config files (settings, hooks) before a launch. This
 * machine's files by default; for a seat on another host, an IO over that host (hosts/host-files.ts)
 * whose reads are answered in rounds over the shared connection and whose writes are made there
 * together, just before the pane is created.
 */
export interface SettingsIO {
  /** The file's text; undefined when it does not exist; throws (with .code) when it cannot be read. */
  readText(path: string): string | undefined;
  /** Replaces the file whole (a temporary file renamed over it), making its folder as needed. */
  writeText(path: string, text: string, mode?: number): void;
  /** Makes a folder and its parents (the mode applies to folders it makes). */
  ensureDir(path: string, mode?: number): void;
  /** Whether the path exists (links followed); throws (with .code) when that cannot be told. */
  exists(path: string): boolean;
  /** A symbolic link at `path` to `target`, its folder made as needed; anything already at `path` is left. */
  symlink(target: string, path: string): void;
}

/** Settings files read and written through a file system. */
export function settingsIO(fs: Fs): SettingsIO {
  return {
    readText(path) {
      try {
        return readRegularText(path, CONFIG_MAX_BYTES, fs);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw e;
      }
    },
    writeText(path, text, mode) {
      fs.mkdirSync(dirname(path), { recursive: true });
      const tmp = `${path}.rigdesk-${process.pid}`;
      fs.writeFileSync(tmp, text, mode === undefined ? undefined : { mode });
      fs.renameSync(tmp, path);
    },
    ensureDir(path, mode) {
      fs.mkdirSync(path, { recursive: true, ...(mode === undefined ? {} : { mode }) });
    },
    exists: (path) => fs.existsSync(path),
    symlink(target, path) {
      try {
        fs.lstatSync(path);
        return;
      } catch {
        /* absent: made below */
      }
      fs.mkdirSync(dirname(path), { recursive: true });
      fs.symlinkSync(target, path, 'dir');
    },
  };
}

/** This machine's settings files. */
export const localSettingsIO: SettingsIO = settingsIO(liveFs);

/**
 * A CLI's own JSON settings file, as Rigdesk reads and changes it for a seat (Gemini's session
 * cleanup, Qwen's proxy): absent is `undefined`; anything that is not a plain JSON object is a
 * reason, never a guess (a file with comments is not rewritten).
 */
export function readJsonObject(
  path: string,
  io: SettingsIO = localSettingsIO,
): { ok: true; value?: Record<string, unknown> } | { ok: false; why: string; unreadable: boolean } {
  let text: string | undefined;
  try {
    text = io.readText(path);
  } catch (e) {
    return { ok: false, why: (e as Error).message, unreadable: true };
  }
  if (text === undefined) return { ok: true };
  try {
    const v: unknown = JSON.parse(text);
    if (typeof v === 'object' && v !== null && !Array.isArray(v))
      return { ok: true, value: v as Record<string, unknown> };
    return { ok: false, why: 'not a JSON object', unreadable: false };
  } catch (e) {
    return { ok: false, why: `not plain JSON (${(e as Error).message})`, unreadable: false };
  }
}

/** Replaces the file whole (a temporary file renamed over it): a reader never sees half of it. */
export function writeJsonAtomic(path: string, value: unknown, mode = 0o600, io: SettingsIO = localSettingsIO): void {
  io.writeText(path, `${JSON.stringify(value, null, 2)}\n`, mode);
}

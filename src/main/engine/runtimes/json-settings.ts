import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * A CLI's own JSON settings file, as Rigdesk reads and changes it for a seat (Gemini's session
 * cleanup, Qwen's proxy): absent is `undefined`; anything that is not a plain JSON object is a
 * reason, never a guess (a file with comments is not rewritten).
 */
export function readJsonObject(
  path: string,
): { ok: true; value?: Record<string, unknown> } | { ok: false; why: string; unreadable: boolean } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { ok: true };
    return { ok: false, why: (e as Error).message, unreadable: true };
  }
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
export function writeJsonAtomic(path: string, value: unknown, mode = 0o600): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.rigdesk-${process.pid}`;
  writeFileSync(tmp, `${JSON.stringify(value, null, 2)}\n`, { mode });
  renameSync(tmp, path);
}

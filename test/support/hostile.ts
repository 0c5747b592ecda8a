import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { basename, join } from 'node:path';

/**
 * Helpers for the hostile-input tests: folder names tmux would read as formats, every process's
 * command line, and whether a command that a format would have run left its mark.
 */

/** Folder names a repository may hold: `#()` runs a command, `#{}` is replaced, in a tmux format. */
export const HOSTILE_FOLDERS = ['x#(touch ran.txt)', 'y#{pane_id}'] as const;

/** Every process whose command line holds `marker`, read from /proc now (`root`: another /proc). */
export function cmdlinesHolding(marker: string, root = '/proc'): { pid: number; cmdline: string }[] {
  const out: { pid: number; cmdline: string }[] = [];
  for (const name of readdirSync(root)) {
    if (!/^\d+$/.test(name)) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(join(root, name, 'cmdline'), 'latin1');
    } catch {
      continue; // gone as we looked
    }
    if (cmdline.includes(marker)) out.push({ pid: Number(name), cmdline: cmdline.replace(/\0/g, ' ') });
  }
  return out;
}

/**
 * Scans every process's command line every few milliseconds until stopped, so a process that
 * lived only for a moment (a one-shot tmux) is seen too; `stop()` gives what was found.
 */
export function watchCmdlines(marker: string, everyMs = 20): { stop(): { pid: number; cmdline: string }[] } {
  const seen = new Map<number, string>();
  const look = () => {
    for (const h of cmdlinesHolding(marker)) seen.set(h.pid, h.cmdline);
  };
  look();
  const t = setInterval(look, everyMs);
  return {
    stop() {
      clearInterval(t);
      look();
      return [...seen].map(([pid, cmdline]) => ({ pid, cmdline }));
    },
  };
}

/** A process's environment as a map. */
export function environOf(pid: number, root = '/proc'): Record<string, string> {
  return Object.fromEntries(
    readFileSync(join(root, String(pid), 'environ'), 'utf8')
      .split('\0')
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
}

export function cwdOf(pid: number): string {
  return readlinkSync(`/proc/${pid}/cwd`);
}

/**
 * A pane's folder once its program runs: tmux reports the pane's pid right after fork, before the
 * child's chdir and exec, so on a busy machine /proc still shows the server's folder for a moment.
 */
export async function paneCwdOf(pid: number, ms = 5000): Promise<string> {
  const until = Date.now() + ms;
  while (Date.now() < until && basename(readlinkSync(`/proc/${pid}/exe`)) === 'tmux') {
    await new Promise((r) => setTimeout(r, 20));
  }
  return cwdOf(pid);
}

/** Every file named `name` under `dirs` (to `depth` levels below each), for "nothing ran". */
export function filesNamed(name: string, dirs: readonly string[], depth = 4): string[] {
  const found: string[] = [];
  const walk = (dir: string, left: number) => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.name === name) found.push(p);
      if (e.isDirectory() && left > 0 && e.name !== 'node_modules' && e.name !== '.git') walk(p, left - 1);
    }
  };
  for (const d of new Set(dirs)) walk(d, depth);
  return found;
}

import { buildSnapshot } from '../proc/lineage';
import { parseEnviron, parseLocks, parseStat } from '../proc/linux';
import type { FileLock, ProcInfo, ProcReader, ProcSnapshot } from '../proc/types';
import { PANE_FORMAT, parsePaneRows, serverAbsent, type PaneRow } from '../tmux/format';

/**
 * A host's process table and its tmux panes in one round trip. One POSIX sh script runs on the
 * host and prints every section the roster needs, each read with a single program over all pids
 * (grep and find take the whole glob), so neither the round trips nor the remote spawns grow with
 * the number of seats. Sections start with `\x1eRD:<name>\n`; argv and environ entries keep their
 * NUL separators (grep -z), so argument boundaries survive exactly as /proc has them.
 */
export const HOST_SCAN_SCRIPT = [
  'cd /proc || exit 97',
  'G=$1',
  'sec() { printf "\\036RD:%s\\n" "$1"; }',
  'sec uid; id -u',
  'if [ -n "$2" ]; then sec panes; tmux -u -L "$2" list-panes -a -F "$3" 2>&1; rc=$?; sec panes-rc; echo "$rc"; fi',
  'sec stat; grep -s -H "" $G/stat',
  'sec owner; find $G -maxdepth 0 -printf "%f %U\\n" 2>/dev/null',
  'sec cmdline; grep -s -a -z -H "" $G/cmdline',
  'sec environ; grep -s -a -z -H -E "$4" $G/environ',
  'sec cwd; find $G/cwd -maxdepth 0 -printf "%h\\t%l\\0" 2>/dev/null',
  'sec locks; cat locks 2>/dev/null',
  'sec end',
].join('\n');

/** Environment variables the roster reads from agents; nothing else of a remote environment is fetched. */
export function envFilter(names: readonly string[]): string {
  return `^(${[...new Set(names)].map((n) => n.replace(/[^A-Za-z0-9_]/g, '')).join('|')})=`;
}

export function hostScanArgs(opts: { glob: string; tmuxSocket?: string; envNames: readonly string[] }): string[] {
  return [
    '-c',
    HOST_SCAN_SCRIPT,
    'rigdesk-scan',
    opts.glob,
    opts.tmuxSocket ?? '',
    PANE_FORMAT,
    envFilter(opts.envNames),
  ];
}

export interface HostScan {
  uid: number;
  /** Absent when no tmux socket was asked for. */
  panes?: { running: true; rows: PaneRow[]; malformed: number } | { running: false } | { error: string };
  procs: Map<number, ProcInfo>;
  environ: Map<number, Record<string, string>>;
  cwd: Map<number, string>;
  locks: FileLock[];
}

/** Parses the script's output; throws when it is cut short (the roster then reports the host). */
export function parseHostScan(out: string): HostScan {
  const sections = new Map<string, string>();
  const re = /\x1eRD:([a-z-]+)\n/g;
  let m: RegExpExecArray | null;
  let name: string | undefined;
  let from = 0;
  while ((m = re.exec(out)) !== null) {
    if (name !== undefined) sections.set(name, out.slice(from, m.index));
    name = m[1];
    from = re.lastIndex;
  }
  if (name !== 'end') throw new Error('host scan output is incomplete');
  const uid = Number((sections.get('uid') ?? '').trim());
  if (!Number.isInteger(uid)) throw new Error('host scan did not say its uid');

  const owners = new Map<number, number>();
  for (const line of (sections.get('owner') ?? '').split('\n')) {
    const [p, u] = line.split(' ');
    if (p && u && /^\d+$/.test(p) && /^\d+$/.test(u)) owners.set(Number(p), Number(u));
  }
  const argv = new Map<number, string[]>();
  for (const rec of (sections.get('cmdline') ?? '').split('\0')) {
    const hit = /^(\d+)\/cmdline:/.exec(rec);
    if (!hit) continue;
    const pid = Number(hit[1]);
    const list = argv.get(pid) ?? [];
    list.push(rec.slice(hit[0].length));
    argv.set(pid, list);
  }
  const procs = new Map<number, ProcInfo>();
  for (const line of (sections.get('stat') ?? '').split('\n')) {
    const hit = /^(\d+)\/stat:/.exec(line);
    if (!hit) continue;
    const pid = Number(hit[1]);
    const st = parseStat(line.slice(hit[0].length), pid);
    if (!st) continue;
    procs.set(pid, { ...st, argv: argv.get(pid) ?? [], uid: owners.get(pid) ?? 0 });
  }
  const environ = new Map<number, Record<string, string>>();
  const envRaw = new Map<number, string[]>();
  for (const rec of (sections.get('environ') ?? '').split('\0')) {
    const hit = /^(\d+)\/environ:/.exec(rec);
    if (!hit) continue;
    const list = envRaw.get(Number(hit[1])) ?? [];
    list.push(rec.slice(hit[0].length));
    envRaw.set(Number(hit[1]), list);
  }
  for (const [pid, list] of envRaw) environ.set(pid, parseEnviron(list.join('\0')));
  const cwd = new Map<number, string>();
  for (const rec of (sections.get('cwd') ?? '').split('\0')) {
    const tab = rec.indexOf('\t');
    if (tab > 0 && /^\d+$/.test(rec.slice(0, tab))) cwd.set(Number(rec.slice(0, tab)), rec.slice(tab + 1));
  }
  const scan: HostScan = { uid, procs, environ, cwd, locks: parseLocks(sections.get('locks') ?? '') };
  if (sections.has('panes')) {
    const text = sections.get('panes') ?? '';
    const rc = (sections.get('panes-rc') ?? '').trim();
    if (rc === '0') scan.panes = { running: true, ...parsePaneRows(text) };
    else if (serverAbsent(text)) scan.panes = { running: false };
    else scan.panes = { error: text.trim() || `tmux exited ${rc}` };
  }
  return scan;
}

/** A ProcReader over one scan: the roster reads it synchronously, as it reads /proc locally. */
export function scanProcReader(scan: HostScan, takenAt: number): ProcReader {
  const snap: ProcSnapshot = buildSnapshot(scan.procs.values(), takenAt);
  return {
    snapshot: () => snap,
    read: (pid) => scan.procs.get(pid),
    cwd: (pid) => scan.cwd.get(pid),
    environ: (pid) => (scan.procs.has(pid) ? (scan.environ.get(pid) ?? {}) : undefined),
    locks: () => scan.locks,
  };
}

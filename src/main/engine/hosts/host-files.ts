import type { Exec } from '../deps';
import type { SettingsIO } from '../runtimes/json-settings';
import type { LaunchFiles } from '../runtimes/types';
import { NotProbedYet, parseProbeAnswers, probeArgs, probeKey, type Probe, type ProbeAnswer } from './evidence-batch';
import { shq } from './ssh';

/**
 * A seat's own files on its host, for the steps before a launch (its runtime's settings, its
 * activity hooks, Pi's session header). The steps are the runtimes' own synchronous code, run as
 * the evidence rounds run adapters: against the answers read so far, every file they ask about and
 * have no answer for is read on the host in one round trip, and they run again, until nothing is
 * missing. What they write is kept (later reads in the same run see it) and made on the host in
 * one round trip, just before the pane is created. A step that fails writes nothing.
 */
export interface HostWrite {
  /** `link`: a symbolic link to `text`, made only where nothing is at the path yet. */
  kind: 'file' | 'new' | 'dir' | 'link';
  path: string;
  text: string;
  mode?: number;
}

export class HostFileIO implements SettingsIO, LaunchFiles {
  readonly writes: HostWrite[] = [];

  constructor(
    private readonly known: ReadonlyMap<string, ProbeAnswer>,
    private readonly wanted: Map<string, Probe>,
    private readonly real: ReadonlyMap<string, string>,
  ) {}

  readText(path: string): string | undefined {
    for (let i = this.writes.length - 1; i >= 0; i--) {
      const w = this.writes[i]!;
      if (w.path === path && (w.kind === 'file' || w.kind === 'new')) return w.text;
    }
    const p: Probe = { op: 'read', path };
    const a = this.known.get(probeKey(p));
    if (!a) {
      this.wanted.set(probeKey(p), p);
      throw new NotProbedYet(`read ${path}: not read from the host yet`);
    }
    if (a.status === 3) return undefined;
    if (a.status === 5) throw Object.assign(new Error(`EACCES: ${path} on the host`), { code: 'EACCES' });
    return a.data;
  }

  writeText(path: string, text: string, mode?: number): void {
    this.writes.push({ kind: 'file', path, text, ...(mode === undefined ? {} : { mode }) });
  }

  ensureDir(path: string, mode?: number): void {
    this.writes.push({ kind: 'dir', path, text: '', ...(mode === undefined ? {} : { mode }) });
  }

  exists(path: string): boolean {
    if (this.writes.some((w) => w.path === path && w.kind !== 'link')) return true;
    const p: Probe = { op: 'exists', path };
    const a = this.known.get(probeKey(p));
    if (!a) {
      this.wanted.set(probeKey(p), p);
      throw new NotProbedYet(`exists ${path}: not asked of the host yet`);
    }
    if (a.status === 5) throw Object.assign(new Error(`EACCES: ${path} on the host`), { code: 'EACCES' });
    return a.status === 0;
  }

  symlink(target: string, path: string): void {
    this.writes.push({ kind: 'link', path, text: target });
  }

  realPath(path: string): string {
    return this.real.get(path) ?? path;
  }

  createNew(path: string, text: string): void {
    this.writes.push({ kind: 'new', path, text });
  }
}

export type HostFilesOutcome<T> =
  | { ok: true; value: T; writes: HostWrite[] }
  | { ok: false; unreachable: boolean; reason: string };

/**
 * Runs `step` against the host's files until it has read everything it asks for (one round trip
 * per round), and returns what it answered and what it wrote. `real` maps a path to the host's
 * real path of it (the seat's folder, as `pwd -P` there said).
 */
export async function withHostFiles<T>(
  exec: Exec,
  step: (io: HostFileIO) => T,
  real: ReadonlyMap<string, string> = new Map(),
  maxRounds = 4,
): Promise<HostFilesOutcome<T>> {
  const known = new Map<string, ProbeAnswer>();
  for (let round = 0; ; round++) {
    const wanted = new Map<string, Probe>();
    const io = new HostFileIO(known, wanted, real);
    let value: T | undefined;
    let thrown: unknown;
    try {
      value = step(io);
    } catch (e) {
      thrown = e;
    }
    // A step that swallowed the question it was thrown still asked: its answer is not taken.
    if (wanted.size === 0) {
      if (thrown !== undefined) throw thrown;
      return { ok: true, value: value as T, writes: io.writes };
    }
    if (round >= maxRounds)
      return { ok: false, unreachable: false, reason: `its files did not settle within ${maxRounds} round trips` };
    const probes = [...wanted.values()];
    const r = await exec('sh', probeArgs(probes), { timeoutMs: 8_000 });
    if (r.spawnError) return { ok: false, unreachable: true, reason: r.spawnError };
    try {
      for (const [i, a] of parseProbeAnswers(r.stdout, probes.length).entries()) known.set(probeKey(probes[i]!), a);
    } catch (e) {
      return { ok: false, unreachable: false, reason: (e as Error).message };
    }
  }
}

/**
 * Makes `writes` on the host in order, in one round trip: a file replaces the old one whole (a
 * temporary file renamed over it), a new file is never made over an existing one, a link only
 * where nothing is. Stops at the first failure and says which. What files hold (a proxy setting
 * may hold a password) comes on stdin, each its byte count read with `head -c` (which reads no
 * further), never in the command line ssh and the host's shell show to every user there.
 */
const WRITE_SCRIPT = [
  'while [ $# -ge 4 ]; do',
  '  k=$1; p=$2; m=$3; t=$4; shift 4',
  '  case $k in',
  '    dir) mkdir -p -- "$p" && { [ -z "$m" ] || chmod "$m" -- "$p"; } ;;',
  '    file) mkdir -p -- "$(dirname -- "$p")" && tmp="$p.rigdesk-$$" && head -c "$t" > "$tmp" && { [ -z "$m" ] || chmod "$m" -- "$tmp"; } && mv -f -- "$tmp" "$p" ;;',
  '    new) mkdir -p -- "$(dirname -- "$p")" && ( set -C; head -c "$t" > "$p" ) ;;',
  '    link) [ -e "$p" ] || [ -L "$p" ] || { mkdir -p -- "$(dirname -- "$p")" && ln -s -- "$t" "$p"; } ;;',
  '    *) false ;;',
  '  esac || { echo "rigdesk-failed $p"; exit 0; }',
  'done',
  'echo rigdesk-wrote',
].join('\n');

/** A seat's files are small: this bounds one launch's writes. */
const MAX_WRITE_BYTES = 96 * 1024;

export async function writeOnHost(
  exec: Exec,
  writes: readonly HostWrite[],
): Promise<{ ok: true } | { ok: false; unreachable: boolean; reason: string }> {
  if (writes.length === 0) return { ok: true };
  // A file's text goes on stdin and its byte count in the argv; a link's target (a path) in the argv.
  const onStdin = (w: HostWrite) => w.kind === 'file' || w.kind === 'new';
  const args = writes.flatMap((w) => [
    w.kind,
    w.path,
    w.mode === undefined ? '' : w.mode.toString(8),
    onStdin(w) ? String(Buffer.byteLength(w.text)) : w.text,
  ]);
  const input = writes
    .filter(onStdin)
    .map((w) => w.text)
    .join('');
  const size = args.reduce((n, a) => n + shq(a).length + 1, 0) + Buffer.byteLength(input);
  if (size > MAX_WRITE_BYTES)
    return { ok: false, unreachable: false, reason: `${size} bytes of files to write is more than one launch writes` };
  const r = await exec('sh', ['-c', WRITE_SCRIPT, 'rigdesk-write', ...args], { input, timeoutMs: 8_000 });
  if (r.spawnError) return { ok: false, unreachable: true, reason: r.spawnError };
  const said = r.stdout.trim().split('\n').pop() ?? '';
  if (said === 'rigdesk-wrote') return { ok: true };
  const failed = /^rigdesk-failed (.*)$/.exec(said)?.[1];
  return {
    ok: false,
    unreachable: false,
    reason: `could not write ${failed ?? 'its files'}${r.stderr.trim() ? `: ${r.stderr.trim().slice(0, 200)}` : ''}`,
  };
}

/** The folder a file's hook events go to on the host: inside the seat's own config home there. */
export function remoteHooksDir(configHome: string): string {
  return `${configHome.replace(/\/+$/, '')}/rigdesk-hooks`;
}

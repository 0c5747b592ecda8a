import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { countingExec, liveExec, type Exec } from '../../src/main/engine/deps';
import { descendants } from '../../src/main/engine/proc/lineage';
import { linuxProcReader } from '../../src/main/engine/proc/linux';
import { parsePsOutput, PS_ARGS, psProcReader, splitCommArgs } from '../../src/main/engine/proc/ps';
import { TestTmux } from '../support/tmux';
import { hasProc, killTmux, Procs, waitFor } from './helpers';

const procs = new Procs();
afterEach(() => procs.cleanup());

const hasPs = spawnSync('ps', PS_ARGS as string[]).status === 0;
const hasTmux = spawnSync('tmux', ['-V']).status === 0;

describe.runIf(hasProc && hasPs)('psProcReader agrees with /proc for processes we spawned', () => {
  const reader = linuxProcReader();

  it('one ps spawn; same pids, ppids, pgids, sids, uids, comm (even with spaces and parens) as linuxProcReader', async () => {
    const dir = procs.tmpDir();
    const odd = join(dir, 'a (b) c');
    copyFileSync('/bin/sleep', odd);
    chmodSync(odd, 0o755);
    const tree = procs.spawn('bash', ['-c', `sleep 33 & ${JSON.stringify(odd)} 34 & (sleep 35; true) & wait`], {
      detached: true,
    });
    const titled = procs.spawn(process.execPath, ['-e', 'process.title = "pi agent"; setInterval(() => {}, 1000)']);
    await procs.until(titled.pid, (q) => q.argv[0] === 'pi agent');
    await waitFor(() => descendants(reader.snapshot(), tree.pid).length === 4 || undefined, {
      what: 'the tree',
      intervalMs: 20,
    });
    await new Promise((r) => setTimeout(r, 100)); // let every exec settle before the two reads

    const exec = countingExec(liveExec);
    const ps = await psProcReader(exec).snapshotAsync();
    const lin = reader.snapshot();
    expect(exec.count).toBe(1);

    const ours = [tree.pid, titled.pid, ...descendants(lin, tree.pid).map((p) => p.pid)];
    expect(ours).toHaveLength(6);
    for (const pid of ours) {
      const a = lin.byPid.get(pid)!;
      const b = ps.byPid.get(pid);
      expect(b, `pid ${pid} in ps`).toBeDefined();
      expect({
        pid: b!.pid,
        ppid: b!.ppid,
        pgid: b!.pgid,
        sid: b!.sid,
        tpgid: b!.tpgid,
        ttyNr: b!.ttyNr,
        uid: b!.uid,
        comm: b!.comm,
      }).toEqual({
        pid: a.pid,
        ppid: a.ppid,
        pgid: a.pgid,
        sid: a.sid,
        tpgid: a.tpgid,
        ttyNr: a.ttyNr,
        uid: a.uid,
        comm: a.comm,
      });
      expect(b!.argv.join(' ')).toBe(a.argv.join(' ')); // ps joins argv with spaces: compare joined
      expect(b!.startTime).toMatch(/^[A-Z][a-z]{2} [A-Z][a-z]{2} \d{1,2} \d\d:\d\d:\d\d \d{4}$/);
    }
    expect(ps.byPid.get(tree.pid)!.sid).toBe(tree.pid); // detached: a session of its own
    expect([...(ps.children.get(tree.pid) ?? [])].sort()).toEqual([...(lin.children.get(tree.pid) ?? [])].sort());
    // kernel threads (no cmdline) read as argv [] in both
    const kthreadd = lin.byPid.get(2);
    if (kthreadd && kthreadd.argv.length === 0) expect(ps.byPid.get(2)?.argv).toEqual([]);
    expect(await psProcReader(liveExec).readAsync(titled.pid)).toMatchObject({
      pid: titled.pid,
      ppid: process.pid,
      comm: 'pi agent',
    });
    expect(await psProcReader(liveExec).readAsync(999_999_999)).toBeUndefined();
  });

  it.runIf(hasTmux)('ttyNr and tpgid from ps match /proc for a process on a tmux pty', async () => {
    const tmux = new TestTmux('rdps');
    try {
      const { panePid } = tmux.newSession('ps', ['sleep', '60']);
      const a = await procs.until(panePid, (q) => q.comm === 'sleep');
      const b = (await psProcReader(liveExec).snapshotAsync()).byPid.get(panePid)!;
      expect(a.ttyNr).not.toBe(0);
      expect({ ttyNr: b.ttyNr, tpgid: b.tpgid, sid: b.sid }).toEqual({ ttyNr: a.ttyNr, tpgid: a.tpgid, sid: a.sid });
    } finally {
      killTmux(tmux);
    }
  });
});

describe('psProcReader errors and parsing', () => {
  it('rejects when ps cannot run', async () => {
    const broken: Exec = async () => ({
      code: null,
      signal: null,
      stdout: '',
      stderr: '',
      timedOut: false,
      spawnError: 'ENOENT',
    });
    await expect(psProcReader(broken).snapshotAsync()).rejects.toThrow(/ENOENT/);
  });

  it('parses Darwin-style output: sess is a pointer (ignored), comm is a path, tty ?? / ttys001, wider columns', () => {
    // columns as BSD ps pads them: every column but the last to its widest value
    const out = [
      '    1     0     1      0     0     0 ??       Thu Nov 26 09:00:00 2026     /sbin/launchd                                    /sbin/launchd',
      '  501     1   501      0     0   501 ??       Thu Nov 26 09:00:01 2026     /Applications/Google Chrome.app/Contents/MacOS/G /Applications/Google Chrome.app/Contents/MacOS/Google Chrome --flag',
      '  900     1   900      0   950   501 ttys001  Thu Nov 26 09:01:00 2026     login                                            login -pf me',
      '  901   900   901      0   950   501 ttys001  Thu Nov 26 09:01:00 2026     -zsh                                             -zsh',
      '  950   901   950      0   950   501 ttys001  Thu Nov 26 09:02:03 2026     node                                             claude --resume x',
      '  951   950   950      0   950   501 ttys001  Thu Nov 26 09:02:04 2026     zsh                                              (zsh)',
      'garbage line',
    ].join('\n');
    const got = parsePsOutput(out, 'darwin');
    expect(got).toHaveLength(6);
    const by = new Map(got.map((p) => [p.pid, p]));
    expect(by.get(501)).toMatchObject({
      comm: 'G',
      argv: ['/Applications/Google', 'Chrome.app/Contents/MacOS/Google', 'Chrome', '--flag'],
      sid: 0,
      tpgid: -1,
      ttyNr: 0,
    });
    expect(by.get(950)).toMatchObject({
      comm: 'node',
      argv: ['claude', '--resume', 'x'],
      ppid: 901,
      pgid: 950,
      tpgid: 950,
      uid: 501,
      startTime: 'Thu Nov 26 09:02:03 2026',
    });
    expect(by.get(950)!.sid).toBe(900); // topmost ancestor on ttys001
    expect(by.get(951)!.argv).toEqual([]);
    expect(by.get(1)).toMatchObject({ comm: 'launchd', argv: ['/sbin/launchd'], ppid: 0 });
  });

  it('splitCommArgs finds the shared column even when comms contain spaces; odd rows fall back', () => {
    const rows = [
      'sleep           sleep 30',
      'a (b) c         /tmp/a (b) c 20',
      'pi-agent custom pi-agent custom title',
      'x  y',
    ];
    expect(splitCommArgs(rows)).toEqual([
      ['sleep', 'sleep 30'],
      ['a (b) c', '/tmp/a (b) c 20'],
      ['pi-agent custom', 'pi-agent custom title'],
      ['x', 'y'],
    ]);
  });
});

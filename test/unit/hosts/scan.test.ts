import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { liveExec } from '../../../src/main/engine/deps';
import { hostScanArgs, parseHostScan } from '../../../src/main/engine/hosts/remote-proc';
import { backoffMs, BACKOFF_MAX_MS } from '../../../src/main/engine/hosts/transport';
import { remoteCommand, shq } from '../../../src/main/engine/hosts/ssh';
import { linuxProcReader } from '../../../src/main/engine/proc';
import { hostOfServer, parseServerKey, serverKey } from '../../../src/main/engine/tmux/identity';
import { waitForExit } from '../../agents/claude-run';

describe('the one-round-trip host scan', () => {
  it('reads the same argv, start time and environment as /proc, argument boundaries included', async () => {
    // Arguments a space-joined ps line would merge or split: spaces, a newline, quotes, an empty one.
    const weird = ['a b', 'line1\nline2', `it's "q"`, '', '--resume', 'x'];
    const child = spawn('sleep', ['30', ...weird].slice(0, 1), {
      env: { ...process.env, RIGDESK_SEAT: 'w@scan', TMUX: '/tmp/x,1,2' },
    });
    const holder = spawn('/bin/sh', ['-c', 'sleep 30', 'sh', ...weird], {
      env: { PATH: process.env.PATH, RIGDESK_SEAT: 'w@scan' },
    });
    try {
      await new Promise((r) => setTimeout(r, 100));
      const r = await liveExec('sh', hostScanArgs({ glob: '[0-9]*', envNames: ['RIGDESK_SEAT', 'TMUX'] }));
      expect(r.code, r.stderr).toBe(0);
      const scan = parseHostScan(r.stdout);
      const local = linuxProcReader();
      for (const pid of [child.pid!, holder.pid!]) {
        const want = local.read(pid)!;
        expect(scan.procs.get(pid)).toEqual(want);
      }
      expect(scan.procs.get(holder.pid!)!.argv).toEqual(['/bin/sh', '-c', 'sleep 30', 'sh', ...weird]);
      expect(scan.environ.get(holder.pid!)).toEqual({ RIGDESK_SEAT: 'w@scan' });
      expect(scan.environ.get(child.pid!)).toMatchObject({ RIGDESK_SEAT: 'w@scan', TMUX: '/tmp/x,1,2' });
      expect(scan.cwd.get(holder.pid!)).toBe(process.cwd());
      expect(scan.uid).toBe(process.getuid!());
    } finally {
      child.kill('SIGKILL');
      holder.kill('SIGKILL');
      await Promise.all([waitForExit(child.pid!, 2000), waitForExit(holder.pid!, 2000)]);
    }
  });

  it('refuses output that was cut short instead of reading it as an empty host', () => {
    expect(() =>
      parseHostScan('\x1eRD:uid\n0\n\x1eRD:stat\n1/stat:1 (init) S 0 1 1 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0'),
    ).toThrow(/incomplete/);
  });
});

describe('remote command quoting', () => {
  it('every argument reaches the remote shell as exactly one word, unexpanded', async () => {
    const args = ['plain', 'two words', "it's", '$HOME', '`id`', '*', 'a\nb', '', '; rm -rf x', '\x1f sep'];
    const r = await liveExec('sh', ['-c', `${remoteCommand('printf', ['%s\\0', ...args])}`]);
    expect(r.stdout.split('\0').slice(0, -1)).toEqual(args);
    expect(shq('L:rdr-1')).toBe('L:rdr-1');
  });
});

describe('identities carry their host', () => {
  it('server keys round-trip with and without a host, and name the host', () => {
    for (const ref of [
      { kind: 'name', name: 'rigdesk' },
      { kind: 'path', path: '/tmp/a|b' },
      { kind: 'name', name: 'x', host: 'box' },
      { kind: 'path', path: '/t/s', host: 'gpu-1' },
    ] as const) {
      expect(parseServerKey(serverKey(ref))).toEqual(ref);
    }
    expect(serverKey({ kind: 'name', name: 'x', host: 'box' })).toBe('H:box|L:x');
    expect(hostOfServer('H:box|L:x')).toBe('box');
    expect(hostOfServer('L:x')).toBe('local');
    expect(hostOfServer('S:/tmp/H:odd|path')).toBe('local');
  });
});

describe('reconnect back-off', () => {
  it('doubles from half a second and never waits longer than five seconds', () => {
    expect([1, 2, 3, 4, 5, 9].map(backoffMs)).toEqual([500, 1000, 2000, 4000, 5000, 5000]);
    expect(backoffMs(50)).toBe(BACKOFF_MAX_MS);
  });
});

import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  linuxProcReader,
  parseCmdline,
  parseEnviron,
  parseLocks,
  parseStat,
  splitDev,
} from '../../src/main/engine/proc/linux';

const roots: string[] = [];
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});
function freshRoot(): string {
  const r = mkdtempSync(join(tmpdir(), 'rdfakeproc-'));
  roots.push(r);
  return r;
}

function statLine(o: {
  pid: number;
  comm: string;
  state?: string;
  ppid: number;
  pgid: number;
  sid: number;
  tty: number;
  tpgid: number;
  start: string;
  flags?: number;
}): string {
  // 52 fields as a 6.x kernel writes them; field 9 is flags, field 22 starttime.
  const after = [
    o.state ?? 'S',
    o.ppid,
    o.pgid,
    o.sid,
    o.tty,
    o.tpgid,
    o.flags ?? 4194304,
    10,
    0,
    0,
    0,
    1,
    2,
    0,
    0,
    20,
    0,
    1,
    0,
    o.start,
    2990080,
    405,
  ];
  const tail = Array.from({ length: 30 }, (_, i) => i);
  return `${o.pid} (${o.comm}) ${[...after, ...tail].join(' ')}\n`;
}

describe('parseStat', () => {
  it('takes comm up to the LAST ")" and numbers the fields after it', () => {
    const line = statLine({
      pid: 77,
      comm: 'a) 1 2 (b c)',
      ppid: 5,
      pgid: 6,
      sid: 7,
      tty: 34816,
      tpgid: 6,
      start: '123456',
    });
    expect(parseStat(line, 77)).toEqual({
      pid: 77,
      comm: 'a) 1 2 (b c)',
      ppid: 5,
      pgid: 6,
      sid: 7,
      ttyNr: 34816,
      tpgid: 6,
      startTime: '123456',
    });
  });

  it('rejects a line for another pid, a truncated line, and non-numeric fields', () => {
    const full = statLine({ pid: 9, comm: 'x', ppid: 1, pgid: 9, sid: 9, tty: 0, tpgid: -1, start: '12345' });
    const cutInStart = full.slice(0, full.indexOf(' 12345 ') + 4); // "... 123": starttime cut short
    expect(parseStat(cutInStart, 9)).toBeUndefined();
    const ok = statLine({ pid: 9, comm: 'x', ppid: 1, pgid: 9, sid: 9, tty: 0, tpgid: -1, start: '5' });
    expect(parseStat(ok, 9)?.tpgid).toBe(-1);
    expect(parseStat(ok, 10)).toBeUndefined();
    expect(parseStat(ok.slice(0, 40), 9)).toBeUndefined();
    expect(parseStat(ok.replace(' 1 9 9 ', ' one 9 9 '), 9)).toBeUndefined();
    expect(parseStat('', 9)).toBeUndefined();
    expect(parseStat('9 (x', 9)).toBeUndefined();
  });

  it('property: any comm (spaces, parens, newlines, unicode) and ids parse back exactly', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 15, unit: fc.constantFrom('a', ' ', '(', ')', '1', '-', '\n', 'é', ':') }),
        fc.integer({ min: 1, max: 4194304 }),
        fc.integer({ min: 0, max: 4194304 }),
        fc.integer({ min: -1, max: 4194304 }),
        fc.bigInt({ min: 0n, max: 2n ** 63n }),
        (comm, pid, ppid, tpgid, start) => {
          const line = statLine({ pid, comm, ppid, pgid: ppid, sid: ppid, tty: 0, tpgid, start: String(start) });
          expect(parseStat(line, pid)).toEqual({
            pid,
            comm,
            ppid,
            pgid: ppid,
            sid: ppid,
            ttyNr: 0,
            tpgid,
            startTime: String(start),
          });
        },
      ),
    );
  });
});

describe('parseCmdline / parseEnviron', () => {
  it('splits on NUL, drops trailing empty entries, keeps a rewritten title whole', () => {
    expect(parseCmdline('sleep\u000030\u0000')).toEqual(['sleep', '30']);
    expect(parseCmdline('pi agent title\u0000\u0000\u0000\u0000')).toEqual(['pi agent title']);
    expect(parseCmdline('rewritten title   ')).toEqual(['rewritten title   ']);
    expect(parseCmdline('a\u0000\u0000b\u0000')).toEqual(['a', '', 'b']);
    expect(parseCmdline('')).toEqual([]);
    expect(parseCmdline('\u0000\u0000')).toEqual([]);
  });

  it('environ: first definition wins, values may contain "=", junk entries ignored', () => {
    expect(parseEnviron('A=1\u0000B=x=y\u0000A=2\u0000junk\u0000=v\u0000\u0000')).toEqual({ A: '1', B: 'x=y' });
  });
});

describe('parseLocks', () => {
  it('parses FLOCK/POSIX/OFDLCK lines, hex devices, decimal inodes; skips blocked waiters', () => {
    const raw = [
      '1: FLOCK  ADVISORY  WRITE 21390 fd:01:1234567 0 EOF',
      '1: -> FLOCK  ADVISORY  WRITE 21400 fd:01:1234567 0 EOF',
      '-> FLOCK  ADVISORY  WRITE 21401 fd:01:1234567 0 EOF',
      '2: POSIX  ADVISORY  READ 5678 08:02:393240 1073741826 1073742335',
      '3: OFDLCK ADVISORY  READ  -1 00:05:3 0 EOF',
      '4: LEASE  ACTIVE    READ 99 103:1a:42 0 EOF',
      'garbage',
      '5: POSIX ADVISORY WRITE notapid 08:02:1 0 EOF',
      '6: POSIX ADVISORY WRITE 12 nodev 0 EOF',
      '',
    ].join('\n');
    expect(parseLocks(raw)).toEqual([
      { kind: 'FLOCK', mode: 'WRITE', pid: 21390, devMajor: 253, devMinor: 1, inode: 1234567 },
      { kind: 'POSIX', mode: 'READ', pid: 5678, devMajor: 8, devMinor: 2, inode: 393240 },
      { kind: 'OFDLCK', mode: 'READ', pid: -1, devMajor: 0, devMinor: 5, inode: 3 },
      { kind: 'LEASE', mode: 'READ', pid: 99, devMajor: 259, devMinor: 26, inode: 42 },
    ]);
  });
});

describe('splitDev', () => {
  it("matches glibc major()/minor(), including bits above 32 (which JS's 32-bit >> would lose)", () => {
    const makedev = (ma: bigint, mi: bigint) =>
      ((ma & 0xfffn) << 8n) | ((ma & ~0xfffn) << 32n) | (mi & 0xffn) | ((mi & ~0xffn) << 12n);
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 0xffffffffn }), fc.bigInt({ min: 0n, max: 0xffffffffn }), (ma, mi) => {
        expect(splitDev(makedev(ma, mi))).toEqual({ devMajor: Number(ma), devMinor: Number(mi) });
      }),
    );
    expect(splitDev(65024)).toEqual({ devMajor: 254, devMinor: 0 });
  });
});

describe('snapshot over a fake procRoot with half-written and garbage files', () => {
  const junkBytes = fc.uint8Array({ maxLength: 300 });
  const junkText = fc.string({
    maxLength: 200,
    unit: fc.constantFrom('1', '2', ' ', '(', ')', '\u0000', '\n', 'S', '-', 'x', 'é'),
  });
  const fileContent = fc.oneof(
    junkBytes.map((b) => Buffer.from(b)),
    junkText.map((s) => Buffer.from(s)),
    // a valid line cut anywhere: what a reader can see of a file being written
    fc
      .tuple(fc.integer({ min: 1, max: 99999 }), fc.string({ maxLength: 15 }), fc.nat(400))
      .map(([pid, comm, cut]) =>
        Buffer.from(
          statLine({ pid, comm, ppid: 1, pgid: pid, sid: pid, tty: 0, tpgid: -1, start: '99' }).slice(0, cut),
        ),
      ),
  );
  const entry = fc.record({
    name: fc.oneof(
      fc.integer({ min: 1, max: 99999 }).map(String),
      fc.constantFrom('self', '0', '007', '12a', '99999999999'),
    ),
    kind: fc.constantFrom(
      'dir',
      'valid-cut',
      'valid-cut',
      'file',
      'symlink-loop',
      'stat-is-dir',
      'missing-stat',
      'missing-cmdline',
    ),
    cut: fc.nat(420),
    comm: fc.string({ maxLength: 15 }),
    stat: fileContent,
    cmdline: fileContent,
  });

  it('property: snapshot(), read() and locks() never throw, whatever the files hold', () => {
    let parsedTotal = 0;
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 12 }), fileContent, (entries, locksFile) => {
        const root = freshRoot();
        try {
          writeFileSync(join(root, 'locks'), locksFile);
          for (const e of entries) {
            const dir = join(root, e.name);
            try {
              if (e.kind === 'file') writeFileSync(dir, e.stat);
              else if (e.kind === 'symlink-loop') symlinkSync(dir, dir);
              else {
                mkdirSync(dir, { recursive: true });
                if (e.kind === 'stat-is-dir') mkdirSync(join(dir, 'stat'), { recursive: true });
                else if (e.kind === 'valid-cut') {
                  const pid = Number(e.name);
                  const line = statLine({
                    pid,
                    comm: e.comm,
                    ppid: 1,
                    pgid: pid,
                    sid: pid,
                    tty: 0,
                    tpgid: -1,
                    start: '99',
                  });
                  writeFileSync(join(dir, 'stat'), line.slice(0, e.cut));
                } else if (e.kind !== 'missing-stat') writeFileSync(join(dir, 'stat'), e.stat);
                if (e.kind !== 'missing-cmdline') writeFileSync(join(dir, 'cmdline'), e.cmdline);
              }
            } catch {
              /* duplicate names: keep whatever the first made */
            }
          }
          const r = linuxProcReader({ procRoot: root });
          const snap = r.snapshot();
          parsedTotal += snap.byPid.size;
          for (const [pid, p] of snap.byPid) {
            expect(p.pid).toBe(pid);
            expect(Number.isSafeInteger(p.ppid)).toBe(true);
            expect(p.startTime).toMatch(/^\d+$/);
            expect(Array.isArray(p.argv)).toBe(true);
          }
          for (const e of entries) r.read(Number(e.name));
          expect(Array.isArray(r.locks())).toBe(true);
          for (const e of entries) {
            const pid = Number(e.name);
            for (const f of [() => r.cwd(pid), () => r.environ(pid)]) {
              try {
                f();
              } catch (err) {
                // cwd/environ may throw only for reasons other than "gone"
                expect((err as { code?: string }).code).not.toMatch(/^(ENOENT|ESRCH)$/);
              }
            }
          }
        } finally {
          rmSync(root, { recursive: true, force: true });
        }
      }),
      { numRuns: 150 },
    );
    expect(parsedTotal).toBeGreaterThan(0); // not vacuous: complete-enough lines were accepted
  });

  it('a well-formed fake tree is read exactly, including the children index', () => {
    const root = freshRoot();
    const put = (pid: number, ppid: number, comm: string, argv: string[]) => {
      mkdirSync(join(root, String(pid)));
      writeFileSync(
        join(root, String(pid), 'stat'),
        statLine({ pid, comm, ppid, pgid: pid, sid: 1, tty: 0, tpgid: -1, start: String(pid * 10) }),
      );
      writeFileSync(join(root, String(pid), 'cmdline'), argv.map((a) => `${a}\u0000`).join(''));
    };
    put(1, 0, 'init', ['/sbin/init']);
    put(10, 1, 'bash', ['bash']);
    put(11, 10, 'a (b) c', ['./a (b) c', '--x']);
    put(12, 10, 'sleep', ['sleep', '5']);
    // a kernel thread (PF_KTHREAD in flags): argv [] and uid 0 without reading cmdline
    mkdirSync(join(root, '2'));
    writeFileSync(
      join(root, '2', 'stat'),
      statLine({ pid: 2, comm: 'kthreadd', ppid: 0, pgid: 0, sid: 0, tty: 0, tpgid: -1, start: '0', flags: 0x208040 }),
    );
    writeFileSync(join(root, '2', 'cmdline'), 'not\u0000read\u0000');
    // flags >= 2^31 (PF_SUSPEND_TASK...) must not flip the kthread test through a signed `&`
    mkdirSync(join(root, '13'));
    writeFileSync(
      join(root, '13', 'stat'),
      statLine({
        pid: 13,
        comm: 'hi',
        ppid: 10,
        pgid: 13,
        sid: 1,
        tty: 0,
        tpgid: -1,
        start: '7',
        flags: 0x80000000 + 0x400100,
      }),
    );
    writeFileSync(join(root, '13', 'cmdline'), 'hi\u0000');
    mkdirSync(join(root, 'self'));
    writeFileSync(join(root, 'uptime'), '1 1');
    const snap = linuxProcReader({ procRoot: root }).snapshot();
    expect([...snap.byPid.keys()].sort((a, b) => a - b)).toEqual([1, 2, 10, 11, 12, 13]);
    expect(snap.children.get(10)?.sort()).toEqual([11, 12, 13]);
    expect(snap.children.get(0)?.sort()).toEqual([1, 2]);
    expect(snap.byPid.get(2)).toMatchObject({ comm: 'kthreadd', argv: [], uid: 0 });
    expect(snap.byPid.get(13)?.argv).toEqual(['hi']);
    expect(snap.byPid.get(11)).toMatchObject({
      comm: 'a (b) c',
      argv: ['./a (b) c', '--x'],
      startTime: '110',
      ppid: 10,
    });
    expect(linuxProcReader({ procRoot: join(root, 'nope') }).snapshot().byPid.size).toBe(0);
  });
});

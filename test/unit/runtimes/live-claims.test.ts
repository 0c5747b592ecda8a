import { describe, expect, it } from 'vitest';
import { claudeCode, codex, type LiveEvidenceInput } from '../../../src/main/engine/runtimes';
import { errno, memoryIO } from './helpers';

const A = 'dd0b1b38-acef-44ea-9af2-05ee8272437c';
const B = '0e0e0e0e-1111-4222-8333-444455556666';
const T = '01a2261d-651b-79c3-93d1-b8ba59512eb0';
const T2 = '01a2261d-651b-79c3-93d1-b8ba59512eb1';
const T3 = '01a2261d-651b-79c3-93d1-b8ba59512eb2';

/** The process table as build.ts consults it: a pid is the same process only with the same start time. */
function aliveFrom(table: Record<number, string>): LiveEvidenceInput['alive'] {
  return (pid, start) => table[pid] !== undefined && (start === undefined || start === table[pid]);
}

const liveState = (o: Record<string, unknown>) =>
  JSON.stringify({
    cwd: '/w',
    startedAt: 1795935532970,
    version: '2.1.197',
    kind: 'interactive',
    entrypoint: 'cli',
    status: 'idle',
    ...o,
  });

describe('claude live-state files (sessions/<pid>.json) as conversation claims', () => {
  const home = '/h/claude';
  const dir = `${home}/sessions`;

  it('an alive pid with a matching procStart claims its sessionId, with its status', () => {
    const io = memoryIO({
      dirs: { [dir]: ['10341.json'] },
      files: { [`${dir}/10341.json`]: liveState({ pid: 10341, sessionId: A, procStart: '30509', status: 'busy' }) },
    });
    const claims = claudeCode.liveClaims!({ home, io, alive: aliveFrom({ 10341: '30509' }), locks: [] });
    expect(claims).toEqual([
      { runtime: 'claude-code', conversationId: A, pid: 10341, source: 'live_state', home, detail: 'busy' },
    ]);
  });

  it('a stale file of a dead pid does not claim', () => {
    const io = memoryIO({
      dirs: { [dir]: ['200.json'] },
      files: { [`${dir}/200.json`]: liveState({ pid: 200, sessionId: A, procStart: '111' }) },
    });
    expect(claudeCode.liveClaims!({ home, io, alive: aliveFrom({}), locks: [] })).toEqual([]);
  });

  it('a stale file whose pid was reused (procStart differs) does not claim', () => {
    const io = memoryIO({
      dirs: { [dir]: ['300.json'] },
      files: { [`${dir}/300.json`]: liveState({ pid: 300, sessionId: A, procStart: '30509' }) },
    });
    expect(claudeCode.liveClaims!({ home, io, alive: aliveFrom({ 300: '99999' }), locks: [] })).toEqual([]);
  });

  it('a half-written file does not claim and does not throw', () => {
    const io = memoryIO({
      dirs: { [dir]: ['400.json', '401.json'] },
      files: { [`${dir}/400.json`]: '{"pid":400,"sessionId":"dd0b1b38-ac', [`${dir}/401.json`]: '' },
    });
    expect(claudeCode.liveClaims!({ home, io, alive: aliveFrom({ 400: '1', 401: '1' }), locks: [] })).toEqual([]);
  });

  it('a file that vanishes between listing and reading (ENOENT) does not claim and does not throw', () => {
    const io = memoryIO({
      dirs: { [dir]: ['500.json'] },
      files: { [`${dir}/500.json`]: errno('ENOENT', `${dir}/500.json`) },
    });
    expect(claudeCode.liveClaims!({ home, io, alive: aliveFrom({ 500: '1' }), locks: [] })).toEqual([]);
  });

  it('an unreadable file (EACCES) throws, so custody fails closed', () => {
    const io = memoryIO({
      dirs: { [dir]: ['600.json'] },
      files: { [`${dir}/600.json`]: errno('EACCES', `${dir}/600.json`) },
    });
    expect(() => claudeCode.liveClaims!({ home, io, alive: aliveFrom({ 600: '1' }), locks: [] })).toThrow(/EACCES/);
  });

  it('an unreadable sessions folder throws', () => {
    const io = memoryIO({ dirs: { [dir]: errno('EACCES', dir) } });
    expect(() => claudeCode.liveClaims!({ home, io, alive: aliveFrom({}), locks: [] })).toThrow(/EACCES/);
  });

  it('no sessions folder is no claims', () => {
    expect(claudeCode.liveClaims!({ home, io: memoryIO({}), alive: aliveFrom({}), locks: [] })).toEqual([]);
  });

  it('files that are not <pid>.json (temp files, notes) are not read', () => {
    const io = memoryIO({ dirs: { [dir]: ['700.json.tmp', 'notes.txt', 'abc.json', '.700.json'] } });
    expect(claudeCode.liveClaims!({ home, io, alive: aliveFrom({ 700: '1' }), locks: [] })).toEqual([]);
    expect(io.reads).toEqual([]);
  });

  it('a file without sessionId does not claim', () => {
    const io = memoryIO({
      dirs: { [dir]: ['800.json'] },
      files: { [`${dir}/800.json`]: liveState({ pid: 800, procStart: '1' }) },
    });
    expect(claudeCode.liveClaims!({ home, io, alive: aliveFrom({ 800: '1' }), locks: [] })).toEqual([]);
  });

  it('the file, not argv, names the conversation after /clear; two live processes on one session both claim it', () => {
    const io = memoryIO({
      dirs: { [dir]: ['10.json', '20.json', '30.json'] },
      files: {
        [`${dir}/10.json`]: liveState({ pid: 10, sessionId: A, procStart: '5' }),
        [`${dir}/20.json`]: liveState({
          pid: 20,
          sessionId: A,
          procStart: '6',
          status: 'waiting',
          waitingFor: 'permission prompt',
        }),
        [`${dir}/30.json`]: liveState({ pid: 30, sessionId: B, procStart: '7' }),
      },
    });
    const claims = claudeCode.liveClaims!({ home, io, alive: aliveFrom({ 10: '5', 20: '6', 30: '7' }), locks: [] });
    expect(claims.map((c) => [c.pid, c.conversationId, c.detail])).toEqual([
      [10, A, 'idle'],
      [20, A, 'waiting'],
      [30, B, 'idle'],
    ]);
  });

  it('the pid comes from the file name when the file omits it', () => {
    const io = memoryIO({
      dirs: { [dir]: ['900.json'] },
      files: { [`${dir}/900.json`]: JSON.stringify({ sessionId: A, status: 'idle' }) },
    });
    expect(claudeCode.liveClaims!({ home, io, alive: aliveFrom({ 900: '1' }), locks: [] }).map((c) => c.pid)).toEqual([
      900,
    ]);
  });
});

describe('codex thread writer locks as conversation claims', () => {
  const home = '/h/codex';
  const dir = `${home}/thread-writer-locks`;
  const io = memoryIO({
    dirs: { [dir]: [`${T}.lock`, '.coordination.lock', `${T2}.lock`, `${T3}.lock`, 'README'] },
    ids: {
      [`${dir}/${T}.lock`]: { devMajor: 8, devMinor: 1, inode: 1001 },
      [`${dir}/.coordination.lock`]: { devMajor: 8, devMinor: 1, inode: 1000 },
      [`${dir}/${T2}.lock`]: { devMajor: 8, devMinor: 1, inode: 1002 },
      // T3's lock file vanished between listing and stat: fileId is undefined.
    },
  });

  it('a WRITE flock on the same device and inode claims the thread for the holder (the daemon pid)', () => {
    const claims = codex.liveClaims!({
      home,
      io,
      alive: () => true,
      locks: [{ pid: 16140, devMajor: 8, devMinor: 1, inode: 1001, mode: 'WRITE' }],
    });
    expect(claims).toEqual([{ runtime: 'codex', conversationId: T, pid: 16140, source: 'writer_lock', home }]);
  });

  it('a READ lock, a lock on another device with the same inode, and .coordination.lock do not claim', () => {
    const claims = codex.liveClaims!({
      home,
      io,
      alive: () => true,
      locks: [
        { pid: 7, devMajor: 8, devMinor: 1, inode: 1002, mode: 'READ' },
        { pid: 8, devMajor: 8, devMinor: 2, inode: 1001, mode: 'WRITE' },
        { pid: 9, devMajor: 9, devMinor: 1, inode: 1002, mode: 'WRITE' },
        { pid: 5, devMajor: 8, devMinor: 1, inode: 1000, mode: 'WRITE' },
      ],
    });
    expect(claims).toEqual([]);
  });

  it('a lock file nobody holds is not a claim (a lock file alone proves nothing)', () => {
    expect(codex.liveClaims!({ home, io, alive: () => true, locks: [] })).toEqual([]);
  });

  it('an unreadable lock folder throws, so custody fails closed', () => {
    const bad = memoryIO({ dirs: { [dir]: errno('EACCES', dir) } });
    expect(() => codex.liveClaims!({ home, io: bad, alive: () => true, locks: [] })).toThrow(/EACCES/);
  });
});

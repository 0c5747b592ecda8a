import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { liveEvidenceIO } from '../../../src/main/engine/evidence-io';

// Tests run as root here, so a real EACCES cannot be produced with chmod; a path containing
// this marker (DENIED; spelled out inside the hoisted mock) makes statSync fail the way it does for a folder without search permission.
const DENIED = '__denied__';
const denied = vi.hoisted(() => ({ count: 0 }));
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const statSync = ((p: Parameters<typeof real.statSync>[0], o?: Parameters<typeof real.statSync>[1]) => {
    if (String(p).includes('__denied__')) {
      denied.count++;
      throw Object.assign(new Error(`EACCES: permission denied, stat '${String(p)}'`), { code: 'EACCES' });
    }
    return real.statSync(p, o as never);
  }) as typeof real.statSync;
  return { ...real, default: { ...real, statSync }, statSync };
});

const root = mkdtempSync(join(tmpdir(), 'rigdesk-unit-evio-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('live evidence reads: absent is empty, unreadable throws', () => {
  it('a missing folder lists as empty, and so does a path that is a file', () => {
    writeFileSync(join(root, 'f'), 'x');
    expect(liveEvidenceIO.listDir(join(root, 'nope'))).toEqual([]);
    expect(liveEvidenceIO.listDir(join(root, 'f'))).toEqual([]);
  });

  it('fileId gives the device and inode that /proc/locks would show', () => {
    const p = join(root, 'a.lock');
    writeFileSync(p, '');
    const id = liveEvidenceIO.fileId(p)!;
    const st = statSync(p, { bigint: true });
    expect(id.inode).toBe(Number(st.ino));
    expect(typeof id.devMajor).toBe('number');
    expect(typeof id.devMinor).toBe('number');
  });

  it('fileId of a vanished file is undefined', () => {
    expect(liveEvidenceIO.fileId(join(root, 'gone.lock'))).toBeUndefined();
  });

  it('(harness) the simulated EACCES reaches the reader: an existing lock file under the marker is not stat-able', () => {
    const d = join(root, DENIED);
    mkdirSync(d);
    writeFileSync(join(d, 'x.lock'), '');
    expect(readdirSync(d)).toEqual(['x.lock']);
    expect(() => statSync(join(d, 'x.lock'))).toThrow(/EACCES/);
    const before = denied.count;
    try {
      liveEvidenceIO.fileId(join(d, 'x.lock'));
    } catch {
      // throwing is the fixed behaviour; either way the stat went through the simulation
    }
    expect(denied.count).toBe(before + 1);
  });

  // Was a bug, now fixed (src/main/engine/evidence-io.ts:18-25): fileId catches every error, so a lock file that
  // cannot be stat'ed (EACCES, EIO, ELOOP) reads as "vanished", and codex.liveClaims drops the
  // writer-lock claim silently instead of throwing: custody fails OPEN, against design.md
  // invariant 2 and this module's own rule ("absent is empty, unreadable throws").
  it('fileId of a lock file that cannot be stat-ed (EACCES) throws instead of reading as absent', () => {
    expect(() => liveEvidenceIO.fileId(join(root, DENIED, 'x.lock'))).toThrow(/EACCES/);
  });
});

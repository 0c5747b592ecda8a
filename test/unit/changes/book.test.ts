import { describe, expect, it } from 'vitest';
import { BACKGROUND_READS, ChangesBook } from '../../../src/main/engine/changes/book';
import type { WatchPort } from '../../../src/main/engine/changes/watch';
import type { ExecResult } from '../../../src/main/engine/deps';
import type { GitPort } from '../../../src/main/engine/git';
import type { SeatRow } from '../../../src/main/engine/store';
import { fakeClock } from '../../support/fake-clock';

/**
 * The book's costs with a stand-in git (it answers rev-parse, symbolic-ref and an empty diff, and
 * counts every run): a seat in no repository costs no git run, background reads go a few at a
 * time, and a watched tree is read again only after a write.
 */

const ok = (stdout: string): ExecResult => ({ code: 0, signal: null, stdout, stderr: '', timedOut: false });

function fakeGit(): GitPort & { runs: string[][]; live: number; peak: number; release: () => void; hold: () => void } {
  let gate: Promise<void> = Promise.resolve();
  const g = {
    runs: [] as string[][],
    live: 0,
    peak: 0,
    release: () => undefined as void,
    hold() {
      gate = new Promise((r) => {
        g.release = () => r();
      });
    },
    git: async (args: readonly string[]) => {
      g.runs.push([...args]);
      g.live += 1;
      g.peak = Math.max(g.peak, g.live);
      await gate;
      g.live -= 1;
      const dir = args[1]!;
      if (args[2] === 'rev-parse') return ok(`${dir}\n${dir}/.git\n${dir}/.git\n\n`);
      if (args[2] === 'symbolic-ref') return ok('refs/heads/main\n');
      return ok('');
    },
    scratchCopy: async () => undefined,
  };
  return g as typeof g;
}

const seat = (i: number, cwd: string): SeatRow => ({
  seat: `s${i}@r`,
  rig: 'r',
  pod: 'p',
  member: `s${i}`,
  runtime: 'shell',
  cwd,
  command: 'bash',
  args: [],
  env: {},
  restorePolicy: 'resume_if_possible',
  conversationId: null,
  stoppedOnPurpose: false,
  host: 'local',
});

const flush = () => new Promise((r) => setTimeout(r, 0));

describe('the changes book', () => {
  it('knows a seat in no repository without running git', async () => {
    const git = fakeGit();
    const book = new ChangesBook({ gitOn: () => git, clock: fakeClock(), exists: () => false });
    const look = await book.look(seat(1, '/tmp/plain'));
    expect(look).toMatchObject({ problem: { code: 'NOT_A_REPO' } });
    expect(git.runs).toEqual([]);
  });

  it(`reads unknown seats in the background at most ${BACKGROUND_READS} at a time`, async () => {
    const git = fakeGit();
    git.hold();
    const book = new ChangesBook({ gitOn: () => git, clock: fakeClock(), exists: () => true });
    const seats = Array.from({ length: 12 }, (_, i) => seat(i, `/repos/r${i}`));
    for (const s of seats) expect(book.kept(s)).toBeUndefined();
    for (const s of seats) book.kept(s); // asked again while in flight: not read twice
    await flush();
    expect(git.live).toBe(BACKGROUND_READS);
    for (let i = 0; i < 40 && git.runs.length < 12 * 3; i++) {
      git.release();
      git.hold();
      await flush();
    }
    git.release();
    await new Promise((r) => setTimeout(r, 10));
    expect(git.peak).toBe(BACKGROUND_READS);
    // Each seat once: rev-parse, symbolic-ref, diff.
    expect(git.runs.filter((r) => r[2] === 'rev-parse')).toHaveLength(12);
    expect(book.kept(seats[0]!)).toMatchObject({ tree: { top: '/repos/r0' }, figures: { files: [] } });
  });

  it('a watched tree is read again only after a write settles there', async () => {
    const git = fakeGit();
    const clock = fakeClock();
    let fire: ((err: Error | null, paths: string[]) => void) | undefined;
    const port: WatchPort = {
      subscribe: async (dir, on) => {
        if (!dir.endsWith('.git')) fire = on;
        return { unsubscribe: async () => undefined };
      },
    };
    const book = new ChangesBook({ gitOn: () => git, clock, exists: () => true });
    book.startWatching(port);
    const s = seat(1, '/repos/a');
    await book.look(s);
    const after = git.runs.length;
    await book.look(s);
    await book.look(s);
    expect(git.runs.length).toBe(after);
    let told = 0;
    book.onChange(() => told++);
    fire?.(null, ['/repos/a/x.txt']);
    await clock.advance(1000);
    await flush();
    expect(git.runs.length).toBeGreaterThan(after);
    expect(told).toBe(0); // the figures did not change: nobody is told
  });
});

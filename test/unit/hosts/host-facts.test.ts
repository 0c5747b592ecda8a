/**
 * What a launch on another host learns in its one round trip before anything is made there (the
 * answer as the host's shell prints it), and the env a seat's pane there sees.
 */
import { describe, expect, it } from 'vitest';
import { parseHostFacts } from '../../../src/main/engine/seats/launch-remote';
import { hostSeatEnv } from '../../../src/main/engine/seats/prepare-remote';

const ANSWER = [
  'cwd /srv/real/work',
  'home /home/u',
  'tmpdir /var/tmp/u',
  'need omo\t/opt/pkgs/node_modules/oh-my-opencode/bin/oh-my-opencode.js',
  'need other\t',
  'real /home/u\t/home/u',
  'real /var/tmp/u\t/var/tmp/u',
  'real /home/u/seat-home\t/data/seat-home',
  'real /nowhere\t',
  '/opt/bin/opencode',
  '',
].join('\n');

describe("a launch's facts from its host", () => {
  it('reads the real folder, the login HOME and TMPDIR, the needed programs and the real paths the host gave', () => {
    const f = parseHostFacts(ANSWER, '/srv/work');
    expect(f).toMatchObject({
      binary: '/opt/bin/opencode',
      realCwd: '/srv/real/work',
      home: '/home/u',
      tmpdir: '/var/tmp/u',
    });
    if (typeof f === 'string') return;
    expect(f.needs).toEqual({ omo: '/opt/pkgs/node_modules/oh-my-opencode/bin/oh-my-opencode.js' });
    // The seat's folder as given maps to the host's real one; a folder the host does not have maps to nothing.
    expect(Object.fromEntries(f.real)).toEqual({
      '/home/u': '/home/u',
      '/var/tmp/u': '/var/tmp/u',
      '/home/u/seat-home': '/data/seat-home',
      '/srv/work': '/srv/real/work',
    });
  });

  it('a missing folder, a missing program and an answer cut short are each what they are, never facts', () => {
    expect(parseHostFacts('nocwd\n', '/srv/work')).toBe('nocwd');
    expect(parseHostFacts('cwd /srv/work\nhome /home/u\ntmpdir \nnoprog\n', '/srv/work')).toBe('noprog');
    expect(parseHostFacts('cwd /srv/work\nhome /home/u\ntmpdir \nreal /home/u\t/home/u\n', '/srv/work')).toBe('noprog');
    expect(parseHostFacts('', '/srv/work')).toBe('noprog');
    const noTmp = parseHostFacts('cwd /w\nhome /home/u\ntmpdir \n/usr/bin/omp\n', '/w');
    expect(typeof noTmp !== 'string' && noTmp.tmpdir).toBeUndefined();
  });

  it("the pane's env: the host login's HOME and TMPDIR, the seat's own env over them", () => {
    expect(hostSeatEnv({ env: { A: '1' } }, { home: '/home/u', tmpdir: '/var/tmp/u' })).toEqual({
      HOME: '/home/u',
      TMPDIR: '/var/tmp/u',
      A: '1',
    });
    expect(hostSeatEnv({ env: { HOME: '/seat', TMPDIR: '/seat/tmp' } }, { home: '/home/u', tmpdir: '/t' })).toEqual({
      HOME: '/seat',
      TMPDIR: '/seat/tmp',
    });
    expect(hostSeatEnv({ env: {} }, { home: '/home/u' })).toEqual({ HOME: '/home/u' });
  });
});

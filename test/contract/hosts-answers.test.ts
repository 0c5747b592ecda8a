import { beforeEach, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { dispatch } from '../../src/main/engine/api';
import type { Engine } from '../../src/main/engine/engine';
import { RUNTIME_IDS } from '../../src/main/engine/runtimes';
import { loadRigSpec } from '../../src/main/engine/spec';
import type { ResultOf } from '../../src/shared/contract';
import type { HOSTS_REQUESTS } from '../../src/shared/contract/hosts';
import type { RigWorld } from '../support/rig';
import { HOST_CLIS, REMOTE_USER, sshdMissing, sshWorldPerTest, type TestSshd } from '../support/sshd';
import { expectAnswer, expectFailure } from './support';

type Method = keyof typeof HOSTS_REQUESTS;
type Params<M extends Method> = z.input<(typeof HOSTS_REQUESTS)[M]>;

/**
 * Every HOSTS method's answer, and its variants, against its declared schema: a real engine over a
 * real store, a host reached over a private sshd on 127.0.0.1, called through `dispatch`.
 */
describe.skipIf(!!sshdMissing())('hosts answers parse against the contract (real sshd on 127.0.0.1)', () => {
  let w: RigWorld;
  let sshd: TestSshd;
  let e: Engine;
  // The host has every agent CLI of the project on its PATH but Claude Code's.
  const world = sshWorldPerTest(
    'box',
    HOST_CLIS.filter((c) => c !== 'claude'),
  );
  beforeEach(() => {
    ({ w, sshd } = world);
    e = w.engine();
  });

  async function answer<M extends Method>(method: M, params: Params<M>) {
    const r: ResultOf<M> = await dispatch(e, method, params);
    expectAnswer(method, r);
    if (!r.ok) throw new Error(`${method} failed: ${r.code} ${r.message}`);
    return r;
  }
  async function refusal<M extends Method>(method: M, params: Params<M>, code: string): Promise<void> {
    expectFailure(method, await dispatch(e, method, params), code);
  }
  const addBox = () => answer('hosts.add', sshd.hostsAddRequest('box'));
  /** A rig whose Claude Code seat runs on box: recorded, not launched (the host has no `claude`). */
  const recordSeatOnBox = () => {
    const spec = w.spec(
      'rig.yaml',
      `${[
        'name: mix',
        'pods:',
        '  - id: team',
        '    members:',
        `      - { id: c, runtime: claude-code, cwd: ${sshd.remoteDir}, host: box }`,
      ].join('\n')}\n`,
    );
    const loaded = loadRigSpec(spec, { knownRuntimes: RUNTIME_IDS, knownHosts: ['box'] });
    if (!loaded.ok) throw new Error(loaded.message);
    e.store.rigs.upsert(loaded.spec);
  };

  const SCENARIOS: Record<Method, { what: string; run: () => Promise<void> }> = {
    'hosts.add': {
      what: 'records a host with every ssh option; a bad name is refused by the contract',
      run: async () => {
        const r = await addBox();
        expect(r.host).toEqual({
          name: 'box',
          ssh: {
            host: '127.0.0.1',
            user: REMOTE_USER,
            port: sshd.port,
            identityFile: sshd.userKey,
            knownHostsFile: sshd.knownHosts,
            strictHostKeyChecking: 'yes',
            configFile: '/dev/null',
          },
          tmuxSocket: sshd.tmuxSocket,
        });
        // The fewest options: a host name alone.
        expect((await answer('hosts.add', { name: 'bare', host: 'bare.invalid' })).host).toEqual({
          name: 'bare',
          ssh: { host: 'bare.invalid' },
        });
        await refusal('hosts.add', { name: 'local', host: '127.0.0.1' }, 'BAD_USAGE');
        await refusal('hosts.add', { name: 'box', host: '127.0.0.1', port: 0 }, 'BAD_USAGE');
      },
    },
    'hosts.list': {
      what: 'none, then a host unchecked, reachable with its seats, and unreachable with its back-off',
      run: async () => {
        expect((await answer('hosts.list', {})).hosts).toEqual([]);
        await addBox();
        recordSeatOnBox();
        const unchecked = (await answer('hosts.list', {})).hosts;
        expect(unchecked).toEqual([expect.objectContaining({ name: 'box', source: 'cli', seats: ['c@mix'] })]);
        expect(unchecked[0]?.health).toBeUndefined();
        await answer('hosts.check', { name: 'box' });
        const up = (await answer('hosts.list', {})).hosts[0]?.health;
        expect(up).toMatchObject({ host: 'box', state: 'reachable', rttMs: expect.any(Number) });
        await sshd.kill();
        await refusal('hosts.check', { name: 'box' }, 'HOST_UNREACHABLE');
        const down = (await answer('hosts.list', {})).hosts[0]?.health;
        expect(down).toMatchObject({ host: 'box', state: 'unreachable', failures: 1, retryAt: expect.any(Number) });
      },
    },
    'hosts.check': {
      what: 'a host with everything, one lacking a CLI its seat needs, one that does not answer, and none',
      run: async () => {
        await addBox();
        const all = await answer('hosts.check', { name: 'box' });
        expect(all.check).toMatchObject({ host: 'box', ssh: { ok: true }, tmux: { ok: true }, missing: [] });
        expect(all.check.runtimes.map((r) => r.runtime)).toContain('claude-code');
        recordSeatOnBox();
        const lacks = await answer('hosts.check', { name: 'box' });
        expect(lacks.check.missing).toEqual([expect.stringMatching(/^claude \(runtime claude-code/)]);
        await sshd.kill();
        await refusal('hosts.check', { name: 'box' }, 'HOST_UNREACHABLE');
        await refusal('hosts.check', { name: 'nowhere' }, 'HOST_NOT_FOUND');
        await refusal('hosts.check', { name: 'local' }, 'BAD_USAGE');
      },
    },
  };

  for (const [method, s] of Object.entries(SCENARIOS)) it(`${method}: ${s.what}`, s.run, 120_000);
});

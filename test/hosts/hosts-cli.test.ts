import { beforeEach, describe, expect, it } from 'vitest';
import { parseDestination } from '../../src/cli/commands/hosts';
import type { RigWorld } from '../support/rig';
import { HOST_CLIS, sshdMissing, REMOTE_USER, sshWorldPerTest, type TestSshd } from '../support/sshd';

/** `rigdesk hosts add box …` for the test's sshd, with its key, known hosts and tmux socket. */
function addBox(w: RigWorld, sshd: TestSshd) {
  return w.cli([
    'hosts',
    'add',
    'box',
    `${REMOTE_USER}@127.0.0.1:${sshd.port}`,
    `--identity=${sshd.userKey}`,
    `--known-hosts=${sshd.knownHosts}`,
    '--ssh-config=/dev/null',
    `--tmux-socket=${sshd.tmuxSocket}`,
    '--json',
  ]);
}

/** Records a rig spec as `up` would, without launching its seats (their CLIs may be missing). */
async function recordSpec(w: RigWorld, spec: string): Promise<void> {
  const e = w.engine();
  const { loadRigSpec } = await import('../../src/main/engine/spec');
  const { RUNTIME_IDS } = await import('../../src/main/engine/runtimes');
  const loaded = loadRigSpec(spec, { knownRuntimes: RUNTIME_IDS });
  expect(loaded.ok, loaded.ok ? '' : loaded.message).toBe(true);
  if (loaded.ok) e.store.rigs.upsert(loaded.spec);
  e.store.close();
}

describe.skipIf(!!sshdMissing())('rigdesk hosts add|list|check (real sshd on 127.0.0.1)', () => {
  let w: RigWorld;
  let sshd: TestSshd;
  // The host has every agent CLI of the project on its PATH but Claude Code's, which check must name.
  const world = sshWorldPerTest(
    'box',
    HOST_CLIS.filter((c) => c !== 'claude'),
  );
  beforeEach(() => ({ w, sshd } = world));

  it('adds a host, lists it, and check says what the host lacks for the seats that name it', async () => {
    const add = await addBox(w, sshd);
    expect(add.code, add.stdout + add.stderr).toBe(0);
    const list = await w.cli(['hosts', 'list', '--json']);
    expect(list.json.hosts).toEqual([
      expect.objectContaining({
        name: 'box',
        source: 'cli',
        ssh: expect.objectContaining({ host: '127.0.0.1', user: REMOTE_USER, port: sshd.port }),
      }),
    ]);

    const ok = await w.cli(['hosts', 'check', 'box', '--json']);
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(ok.json.check.ssh.ok).toBe(true);
    expect(ok.json.check.tmux).toMatchObject({ ok: true, detail: expect.stringMatching(/^tmux 3\./) });
    expect(ok.json.check.missing).toEqual([]);

    // A spec may name a host added here without declaring it; one nobody knows is refused with the way out.
    const byName = w.spec(
      'byname.yaml',
      `${[
        'name: byname',
        'pods:',
        '  - id: team',
        '    members:',
        `      - { id: sh, runtime: shell, cwd: ${sshd.remoteDir}, host: box, command: sleep, args: ['600'] }`,
      ].join('\n')}\n`,
    );
    const up = await w.cli(['up', byName, '--json']);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    expect(
      (await w.cli(['ps', '--json'])).json.seats.find((s: { seat: string }) => s.seat === 'sh@byname'),
    ).toMatchObject({ host: 'box', state: 'running' });
    expect((await w.cli(['stop', 'sh@byname', '--json'])).code).toBe(0);
    const nowhere = w.spec(
      'nowhere.yaml',
      `${[
        'name: nowhere',
        'pods:',
        '  - id: team',
        '    members:',
        `      - { id: sh, runtime: shell, cwd: /tmp, host: elsewhere }`,
      ].join('\n')}\n`,
    );
    const refused = await w.cli(['up', nowhere, '--json']);
    expect(refused.json).toMatchObject({
      ok: false,
      code: 'SPEC_INVALID',
      message: expect.stringMatching(
        /unknown host "elsewhere" \(hosts: local, box\); declare it under hosts: or add it with rigdesk hosts add/,
      ),
    });

    // A seat on box that runs Claude Code: the host has no `claude`, and check says so.
    const spec = w.spec(
      'rig.yaml',
      sshd.rigYaml('mix', [`{ id: c, runtime: claude-code, cwd: ${sshd.remoteDir}, host: box }`]),
    );
    await recordSpec(w, spec);
    const lacks = await w.cli(['hosts', 'check', 'box', '--json']);
    expect(lacks.json.check.missing).toEqual([expect.stringMatching(/^claude \(runtime claude-code/)]);
    expect((await w.cli(['hosts', 'check', 'box'])).stdout).toMatch(/missing: claude/);
    // doctor checks every known host the same way, beside this machine's own checks.
    const checksOf = (r: { json: { checks?: unknown[]; evidence?: { checks: unknown[] } } }) =>
      (r.json.checks ?? r.json.evidence?.checks) as { check: string; ok: boolean; detail: string }[];
    const doc = await w.cli(['doctor', '--json']);
    expect(
      checksOf(doc).find((c) => c.check === 'host box'),
      doc.stdout,
    ).toMatchObject({ ok: false, detail: expect.stringMatching(/^ssh \d+ ms, tmux 3\..*missing: claude/) });

    await sshd.kill();
    const down = await w.cli(['hosts', 'check', 'box', '--json']);
    expect(down.code).toBe(1);
    expect(down.json.code).toBe('HOST_UNREACHABLE');
    const docDown = await w.cli(['doctor', '--json']);
    expect(docDown.code).not.toBe(0);
    expect(checksOf(docDown).find((c) => c.check === 'host box')).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/does not answer/),
    });
    const unknown = await w.cli(['hosts', 'check', 'nowhere', '--json']);
    expect(unknown.code).toBe(2);
    expect(unknown.json.code).toBe('HOST_NOT_FOUND');
  });

  it('reads ssh destinations the way people write them', () => {
    expect(parseDestination('dev@10.0.0.5:2222')).toEqual({ user: 'dev', host: '10.0.0.5', port: 2222 });
    expect(parseDestination('box.example')).toEqual({ host: 'box.example' });
    expect(parseDestination('a b')).toBeUndefined();
  });
});

describe.skipIf(!!sshdMissing())(
  'rigdesk hosts check: what a runtime needs beside its CLI (real sshd on 127.0.0.1)',
  () => {
    let w: RigWorld;
    let sshd: TestSshd;
    // omp's CLI without bun (which runs it) and OpenCode without omo's own CLI (which holds its plugin).
    const world = sshWorldPerTest(
      'box',
      HOST_CLIS.filter((c) => c !== 'bun' && c !== 'omo'),
    );
    beforeEach(() => ({ w, sshd } = world));

    it('names bun for an omp seat and omo for an omo seat, each as a row of its own', async () => {
      const add = await addBox(w, sshd);
      expect(add.code, add.stdout + add.stderr).toBe(0);
      // Nothing on box uses them yet: found or not, nothing is missing.
      const before = await w.cli(['hosts', 'check', 'box', '--json']);
      expect(before.json.check.missing).toEqual([]);
      expect(before.json.check.runtimes).toEqual(
        expect.arrayContaining([
          { runtime: 'omp', binary: 'omp', found: expect.stringMatching(/\/omp$/) },
          { runtime: 'omp', binary: 'bun' },
          { runtime: 'omo', binary: 'opencode', found: expect.stringMatching(/\/opencode$/) },
          { runtime: 'omo', binary: 'omo' },
        ]),
      );

      const spec = w.spec(
        'rig.yaml',
        sshd.rigYaml('pair', [
          `{ id: p, runtime: omp, cwd: ${sshd.remoteDir}, host: box }`,
          `{ id: o, runtime: omo, cwd: ${sshd.remoteDir}, host: box }`,
        ]),
      );
      await recordSpec(w, spec);
      const lacks = await w.cli(['hosts', 'check', 'box', '--json']);
      expect(lacks.json.check.missing).toEqual([
        expect.stringMatching(/^bun \(runtime omp, used by a seat on box\)$/),
        expect.stringMatching(/^omo \(runtime omo, used by a seat on box\)$/),
      ]);
      const text = (await w.cli(['hosts', 'check', 'box'])).stdout;
      expect(text).toMatch(/^ {2}omp +bun +-$/m);
      expect(text).toMatch(/missing: bun \(runtime omp.*; omo \(runtime omo/);
    });
  },
);

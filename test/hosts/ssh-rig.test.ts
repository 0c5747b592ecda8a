import { execFileSync } from 'node:child_process';
import { beforeEach, describe, expect, it } from 'vitest';
import type { RigWorld } from '../support/rig';
import { REMOTE_USER, sshdMissing, sshWorldPerTest, type TestSshd } from '../support/sshd';
import { waitFor } from '../support/tmux';

/**
 * A rig with one seat here and two on a "remote" host: a dedicated local user reached through this
 * test's own sshd on 127.0.0.1, with its own tmux socket. Real ssh, real tmux on both sides.
 */
function mixedRig(sshd: TestSshd): string {
  const shell = (id: string, host?: string) =>
    `      - { id: ${id}, runtime: shell, cwd: ${host ? sshd.remoteDir : '.'}, command: bash, args: ["--noprofile", "--norc"]${host ? `, host: ${host}` : ''} }`;
  return `${[
    'name: mix',
    'hosts:',
    sshd.hostYaml('box'),
    'pods:',
    '  - id: team',
    '    members:',
    shell('here'),
    shell('r1', 'box'),
    shell('r2', 'box'),
  ].join('\n')}\n`;
}

describe.skipIf(!!sshdMissing())('seats on another host over ssh (real sshd on 127.0.0.1, real tmux there)', () => {
  let w: RigWorld;
  let sshd: TestSshd;
  const world = sshWorldPerTest();
  beforeEach(() => ({ w, sshd } = world));

  it("up starts the remote seats in the host's own tmux server and ps names each seat's host", async () => {
    const spec = w.spec('rig.yaml', mixedRig(sshd));
    const up = await w.cli(['up', spec, '--json']);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    expect(sshd.remoteSessions().sort()).toEqual(['r1@mix', 'r2@mix']);
    expect(w.sessions().map((s) => s.name)).toEqual(['here@mix']);

    const ps = await w.cli(['ps', '--json']);
    expect(ps.code, ps.stdout).toBe(0);
    const by = Object.fromEntries(ps.json.seats.map((r: { seat: string }) => [r.seat, r]));
    expect(by['here@mix']).toMatchObject({ host: 'local', state: 'running' });
    for (const s of ['r1@mix', 'r2@mix']) {
      expect(by[s]).toMatchObject({ host: 'box', state: 'running', server: `H:box|L:${sshd.tmuxSocket}` });
      expect(by[s].attach[0]).toBe('ssh');
      expect(by[s].attach).toContain(`${REMOTE_USER}@127.0.0.1`);
    }
    const text = await w.cli(['ps']);
    expect(text.stdout).toMatch(/SEAT\s+HOST/);
    expect(text.stdout).toMatch(/r1@mix\s+box\s+shell\s+running/);
  });

  it('send, capture, attach, stop and launch work on a remote seat', async () => {
    const spec = w.spec('rig.yaml', mixedRig(sshd));
    expect((await w.cli(['up', spec])).code).toBe(0);
    await waitFor(async () => /[$#] *$/m.test((await w.cli(['capture', 'r1@mix'])).stdout), {
      what: 'remote shell prompt',
    });
    const sent = await w.cli(['send', 'r1@mix', 'echo', '$((6*7))-$(id -un)', '--json']);
    expect(sent.code, sent.stdout + sent.stderr).toBe(0);
    await waitFor(
      async () => new RegExp(`^42-${REMOTE_USER}$`, 'm').test((await w.cli(['capture', 'r1@mix'])).stdout),
      {
        what: '42 from the remote user on screen',
      },
    );

    const attach = await w.cli(['attach', 'r1@mix', '--json']);
    expect(attach.code).toBe(0);
    expect(attach.json.argv.slice(0, 2)).toEqual(['ssh', '-t']);
    expect(attach.json.argv.join(' ')).toContain(`tmux -L ${sshd.tmuxSocket} attach-session -t`);
    // The printed line works when pasted into a shell (probed with has-session: no terminal here).
    const line = (await w.cli(['attach', 'r1@mix', '--print'])).stdout.trim();
    expect(() =>
      execFileSync('sh', ['-c', `${line.replace('attach-session', 'has-session')} </dev/null`], {
        stdio: 'pipe',
        timeout: 15_000,
      }),
    ).not.toThrow();
    expect(() =>
      execFileSync(
        'sh',
        [
          '-c',
          `${line.replace('attach-session', 'has-session').replace(sshd.tmuxSocket, 'rdr-no-such-server')} </dev/null`,
        ],
        { stdio: 'pipe', timeout: 15_000 },
      ),
    ).toThrow();

    const stop = await w.cli(['stop', 'r1@mix', '--json']);
    expect(stop.json.stopped.outcome, stop.stdout).toBe('removed');
    expect(sshd.remoteSessions()).toEqual(['r2@mix']);
    const relaunch = await w.cli(['launch', 'r1@mix', '--json']);
    expect(relaunch.code, relaunch.stdout).toBe(0);
    expect(relaunch.json.launched.server).toBe(`H:box|L:${sshd.tmuxSocket}`);
    expect(sshd.remoteSessions().sort()).toEqual(['r1@mix', 'r2@mix']);

    // A shell seat keeps no conversation: fork refuses it on a host as here, and creates nothing
    // (fork of a remote Claude seat: test/hosts/fork-remote.test.ts).
    const fork = await w.cli(['fork', 'r1@mix', '--as', 'r3', '--json']);
    expect(fork.json?.code, fork.stdout).toBe('BAD_USAGE');
    expect(sshd.remoteSessions().sort()).toEqual(['r1@mix', 'r2@mix']);
  });

  it("a Gemini CLI or Qwen Code seat whose settings on the host are unsafe is refused with the host's reason, and nothing is created or written there", async () => {
    // Gemini: the workspace settings on the host keep session cleanup on (stronger than the seat's
    // own). Qwen: proxy variables and NO_PROXY with no proxy setting Qwen would honour.
    sshd.writeHost(
      `${sshd.remoteDir}/.gemini/settings.json`,
      JSON.stringify({ general: { sessionRetention: { enabled: true } } }),
    );
    const gemHome = `${sshd.remoteDir}/gem-home`;
    const qwenHome = `${sshd.remoteDir}/qwen-home`;
    const spec = w.spec(
      'rig.yaml',
      sshd.rigYaml('far', [
        `{ id: g, runtime: gemini, cwd: ${sshd.remoteDir}, host: box, env: { GEMINI_CLI_HOME: ${gemHome} } }`,
        `{ id: q, runtime: qwen, cwd: ${sshd.remoteDir}, host: box, env: { QWEN_HOME: ${qwenHome}, HTTPS_PROXY: "http://127.0.0.1:9", NO_PROXY: "127.0.0.1" } }`,
      ]),
    );
    const up = await w.cli(['up', spec, '--json']);
    expect(up.code, up.stdout + up.stderr).not.toBe(0);
    const by = Object.fromEntries(up.json.evidence.seats.map((x: { seat: string; code: string }) => [x.seat, x.code]));
    expect(by).toEqual({ 'g@far': 'RUNTIME_CONFIG_UNSAFE', 'q@far': 'RUNTIME_CONFIG_UNSAFE' });
    const launch = await w.cli(['launch', 'g@far', '--json']);
    expect(launch.json.message).toContain(`${sshd.remoteDir}/.gemini/settings.json`);
    expect(sshd.remoteSessions()).toEqual([]);
    // A refused step writes nothing on the host (the seat's own settings were not made).
    expect(sshd.existsHost(`${gemHome}/.gemini/settings.json`)).toBe(false);
    expect(sshd.existsHost(`${qwenHome}/settings.json`)).toBe(false);
  });
});

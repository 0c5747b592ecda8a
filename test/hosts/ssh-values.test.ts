import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dispatch } from '../../src/main/engine/api';
import { sshBaseArgs } from '../../src/main/engine/hosts/ssh';
import { personArgs } from '../../src/main/engine/hosts/transport';
import { sshNameProblem } from '../../src/shared/contract';
import { RigWorld, shellRigYaml } from '../support/rig';

/**
 * An ssh host or user that starts with `-` (`-oProxyCommand=…` runs a command with an ssh that
 * takes it as an option), or holds whitespace or a control character, is refused where it is
 * given, with its field named: the spec, the contract, the CLI. And `--` comes before the
 * destination in every ssh command line, so none could be an option anyway. No ssh is run here.
 */

const PROXY = '-oProxyCommand=touch /tmp/rd-proxy-ran';
const BAD: [string, string][] = [
  ['an option', PROXY],
  ['an option without spaces', '-oProxyCommand=/tmp/x'],
  ['whitespace', 'box lan'],
  ['a control character', 'box\u001b[31m'],
  ['a newline', 'box\nHost *'],
];

describe('ssh host and user values from outside', () => {
  let w: RigWorld;
  beforeEach(() => {
    w = new RigWorld();
  });
  afterEach(() => w.cleanup());

  const hostsYaml = (ssh: Record<string, string>) =>
    shellRigYaml('far', ['lead'], ['hosts:', '  box:', `    ssh: ${JSON.stringify(ssh)}`].join('\n'));

  for (const field of ['host', 'user'] as const) {
    it(`a spec whose ssh ${field} is -oProxyCommand=… (or holds whitespace or a control character) is refused, naming hosts.box.ssh.${field}`, async () => {
      for (const [what, value] of BAD) {
        const ssh: Record<string, string> = field === 'host' ? { host: value } : { host: '127.0.0.1', user: value };
        const r = await w.cli(['up', w.spec('rig.yaml', hostsYaml(ssh)), '--json']);
        expect(r.code, `${what}: ${r.stdout}${r.stderr}`).toBe(2);
        expect(r.json).toMatchObject({ ok: false, code: 'SPEC_INVALID' });
        expect(JSON.stringify(r.json.evidence.problems), what).toContain(`hosts.box.ssh.${field}`);
      }
      expect(w.sessions()).toEqual([]);
      expect((await w.cli(['ps', '--json'])).json.seats).toEqual([]);
    });

    it(`the contract refuses hosts.add with such a ${field}, naming the field, and records nothing`, async () => {
      const e = w.engine();
      for (const [what, value] of BAD) {
        const params =
          field === 'host' ? { name: 'box', host: value } : { name: 'box', host: '127.0.0.1', user: value };
        const r = await dispatch(e, 'hosts.add', params);
        expect(r, what).toMatchObject({ ok: false, code: 'BAD_USAGE' });
        if (!r.ok) expect(r.message, what).toMatch(new RegExp(`: ${field}: `));
      }
      expect(e.store.hosts.all()).toEqual([]);
    });
  }

  it('rigdesk hosts add refuses -oProxyCommand=… as the host or as the user, naming which', async () => {
    for (const [dest, field] of [
      ['-oProxyCommand=/tmp/x', 'host'],
      ['-oProxyCommand=/tmp/x@127.0.0.1', 'user'],
      ['-oProxyCommand=/tmp/x@127.0.0.1:22', 'user'],
    ] as const) {
      const r = await w.cli(['hosts', 'add', 'box', dest, '--json']);
      expect(r.code, dest).toBe(2);
      expect(r.json, dest).toMatchObject({ ok: false, code: 'BAD_USAGE', evidence: { field } });
      expect(r.json.message, dest).toMatch(new RegExp(`ssh ${field} .*starts with "-"`));
    }
    expect((await w.cli(['hosts', 'list', '--json'])).json.hosts).toEqual([]);
  });

  it('the rule itself: a leading -, whitespace and control characters are named; ordinary names pass', () => {
    expect(sshNameProblem(PROXY)).toMatch(/starts with "-"/);
    expect(sshNameProblem('a b')).toMatch(/whitespace/);
    expect(sshNameProblem('a\tb')).toMatch(/whitespace/);
    expect(sshNameProblem('a\u0007')).toMatch(/control character/);
    expect(sshNameProblem('a\u0085b')).toBeDefined();
    expect(sshNameProblem('')).toMatch(/empty/);
    for (const ok of ['devbox.lan', '10.0.0.5', 'fe80::1', 'me', 'first.last', 'a-b_c'])
      expect(sshNameProblem(ok)).toBe(undefined);
  });

  it('every ssh command line has -- before the destination, so nothing after it is an option', () => {
    const t = { host: '-oProxyCommand=/tmp/x', user: '-oLocalCommand=/tmp/y' };
    const engine = sshBaseArgs(t, { controlPath: '/tmp/rdcm-test' });
    expect(engine.slice(-2)).toEqual(['--', '-oLocalCommand=/tmp/y@-oProxyCommand=/tmp/x']);
    expect(personArgs(t).slice(-2)).toEqual(['--', '-oLocalCommand=/tmp/y@-oProxyCommand=/tmp/x']);
    expect(personArgs({ host: 'box' })).toEqual(['--', 'box']);
  });
});

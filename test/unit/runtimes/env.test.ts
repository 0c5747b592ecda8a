import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isIdentityVar, PANE_WRAPPER, scrubIdentity, wrapForPane } from '../../../src/main/engine/runtimes/env';

/** An absolute `env`, for the agent of a wrapper run with no PATH. */
const ENV_BIN = ['/usr/bin/env', '/bin/env'].find((p) => existsSync(p)) ?? '/usr/bin/env';

const MARKERS = [
  'CLAUDECODE',
  'CLAUDE_CODE_ENTRYPOINT',
  'CLAUDE_CODE_SSE_PORT',
  'CLAUDE_CODE_SESSION_ID',
  'CLAUDE_CODE_AGENT_ID',
  'CODEX_THREAD_ID',
  'CODEX_SANDBOX',
  'CODEX_SANDBOX_NETWORK_DISABLED',
  'CODEX_MANAGED_BY_NPM',
  'CODEX_INTERNAL_ORIGINATOR_OVERRIDE',
  'RIGDESK_TOKEN',
  'TMUX',
  'TMUX_PANE',
];
const CONFIG = [
  'CLAUDE_CONFIG_DIR',
  'CODEX_HOME',
  'PI_CODING_AGENT_DIR',
  'PATH',
  'HOME',
  'CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_BASE_URL',
  'TMUX_TMPDIR',
  'RIGDESK_SEAT',
  'XCLAUDECODE',
  'CLAUDECODE_X',
  'MY_TMUX',
  'CODEX_HOMEDIR',
  'PI_OFFLINE',
];

describe('identity markers never leak into a seat; config variables do', () => {
  for (const name of MARKERS) it(`${name} is an identity marker`, () => expect(isIdentityVar(name)).toBe(true));
  for (const name of CONFIG)
    it(`${name} is not a marker and passes through`, () => expect(isIdentityVar(name)).toBe(false));

  it('scrubIdentity drops markers, keeps the rest with their exact values, and leaves its input alone', () => {
    const env: NodeJS.ProcessEnv = {};
    for (const k of MARKERS) env[k] = `m-${k}`;
    for (const k of CONFIG) env[k] = `v-${k} with spaces\nand a newline`;
    const before = { ...env };
    const out = scrubIdentity(env);
    expect(Object.keys(out).sort()).toEqual([...CONFIG].sort());
    for (const k of CONFIG) expect(out[k]).toBe(env[k]);
    expect(env).toEqual(before);
    expect(out).not.toBe(env);
  });
});

/** Runs the pane wrapper as a real /bin/sh child with `env -0` as the agent. */
function runWrapped(
  agent: string[],
  env: Record<string, string>,
): { vars: Map<string, string>; tail: string; status: number | null } {
  const argv = wrapForPane(agent);
  const r = spawnSync(argv[0]!, argv.slice(1), { env, encoding: 'utf8', timeout: 10_000 });
  const parts = r.stdout.split('\0');
  const tail = parts.pop()!;
  const vars = new Map<string, string>();
  for (const p of parts) {
    const i = p.indexOf('=');
    vars.set(p.slice(0, i), p.slice(i + 1));
  }
  return { vars, tail, status: r.status };
}

describe('PANE_WRAPPER, run by a real /bin/sh', () => {
  const base: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: '/home/u',
    SHELL: '/bin/true', // the final exec ends at once
    CLAUDE_CONFIG_DIR: '/h/claude',
    CODEX_HOME: '/h/codex',
    PI_CODING_AGENT_DIR: '/h/pi',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    RIGDESK_SEAT: 'lead@demo',
    TMUX: '/tmp/tmux-0/rigdesk,123,0',
    TMUX_PANE: '%3',
    MULTI: 'a b\nCLAUDECODE=not-a-real-line',
  };
  const markers: Record<string, string> = {
    CLAUDECODE: '1',
    CLAUDE_CODE_ENTRYPOINT: 'cli',
    CLAUDE_CODE_SSE_PORT: '41234',
    CLAUDE_CODE_SESSION_ID: 'x',
    CODEX_THREAD_ID: '01a2261d-651b-79c3-93d1-b8ba59512eb0',
    CODEX_SANDBOX: 'seatbelt',
    CODEX_MANAGED_BY_NPM: '1',
    RIGDESK_TOKEN: 'secret',
  };

  it("drops the launching agent's markers before the agent starts and keeps every config variable", () => {
    const { vars } = runWrapped(['env', '-0'], { ...base, ...markers });
    for (const k of Object.keys(markers)) expect(vars.has(k), k).toBe(false);
    for (const [k, v] of Object.entries(base)) expect(vars.get(k), k).toBe(v);
  });

  it("keeps TMUX and TMUX_PANE: inside a pane they are the pane's own, not an inherited identity", () => {
    const { vars } = runWrapped(['env', '-0'], { ...base, ...markers });
    expect(vars.get('TMUX')).toBe(base.TMUX);
    expect(vars.get('TMUX_PANE')).toBe('%3');
  });

  it('unsets exactly the identity markers (the sh pattern and isIdentityVar agree, TMUX aside)', () => {
    const names = [...MARKERS, ...CONFIG].filter((k) => k !== 'PATH' && k !== 'SHELL');
    const env: Record<string, string> = { PATH: base.PATH!, SHELL: '/bin/true' };
    for (const k of names) env[k] = 'v';
    const { vars } = runWrapped(['env', '-0'], env);
    for (const k of names) expect(vars.has(k), k).toBe(!isIdentityVar(k) || k === 'TMUX' || k === 'TMUX_PANE');
  });

  it('finds the markers with shell builtins alone: no program on the PATH, yet every marker is gone', () => {
    // A pipeline (env | sed | grep) cost three program starts per launch, ~40 ms of CPU each on 2
    // cores, and held tmux's server off the CPU through a 200-seat bring-up.
    const { vars } = runWrapped([ENV_BIN, '-0'], { ...base, ...markers, PATH: '/nonexistent' });
    for (const k of Object.keys(markers)) expect(vars.has(k), k).toBe(false);
    expect(vars.get('MULTI')).toBe(base.MULTI);
    expect(vars.get('CLAUDE_CONFIG_DIR')).toBe('/h/claude');
  });

  it('a value whose lines look like other variables or like export lines changes nothing but markers', () => {
    const env = {
      PATH: base.PATH!,
      SHELL: '/bin/true',
      A: "x\nexport B='1'\ndeclare -x C=2\nnot a name=3\n9X=4\nCODEX_THREADx=5",
      B: 'kept',
      C: 'kept',
      CODEX_THREADx: 'kept: lowercase after the prefix is no marker',
      CI_job: 'dropped',
    };
    const { vars, status } = runWrapped(['env', '-0'], env);
    expect(status).toBe(0);
    for (const k of ['A', 'B', 'C', 'CODEX_THREADx']) expect(vars.get(k), k).toBe(env[k as keyof typeof env]);
    expect(vars.has('CI_job')).toBe(false);
  });

  it('reports how the agent ended: "[rigdesk] env exited with status 0"', () => {
    const { tail, status } = runWrapped(['env', '-0'], { ...base, ...markers });
    expect(tail).toBe('\n[rigdesk] env exited with status 0\n');
    expect(status).toBe(0);
  });

  it("reports a failing agent's status and names it by its basename", () => {
    const argv = wrapForPane(['/bin/sh', '-c', 'exit 3']);
    const out = execFileSync(argv[0]!, argv.slice(1), { env: base, encoding: 'utf8' });
    expect(out).toBe('\n[rigdesk] sh exited with status 3\n');
  });

  it('passes the agent argv through verbatim, never re-read by a shell', () => {
    const tricky = ['a b', '$HOME', '`id`', "it's", '"q"', '*', '; rm -rf /', '', '\\n'];
    const argv = wrapForPane(['printf', '<%s>', ...tricky]);
    const out = execFileSync(argv[0]!, argv.slice(1), { env: base, encoding: 'utf8' });
    expect(out).toBe(`${tricky.map((t) => `<${t}>`).join('')}\n[rigdesk] printf exited with status 0\n`);
  });

  it('wrapForPane is /bin/sh -c PANE_WRAPPER with $0 = rigdesk-seat and the agent argv after it', () => {
    expect(wrapForPane(['claude', '--resume', 'x'])).toEqual([
      '/bin/sh',
      '-c',
      PANE_WRAPPER,
      'rigdesk-seat',
      'claude',
      '--resume',
      'x',
    ]);
  });
});

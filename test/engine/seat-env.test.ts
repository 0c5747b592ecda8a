import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RigWorld } from '../support/rig';
import { cleanTmuxEnv, waitFor } from '../support/tmux';

const MARKERS = {
  CLAUDECODE: '1',
  CLAUDE_CODE_ENTRYPOINT: 'cli',
  CLAUDE_CODE_SSE_PORT: '4242',
  CODEX_THREAD_ID: 'abc',
  CODEX_SANDBOX: 'seatbelt',
  TMUX: '/tmp/tmux-0/launcher,1,0',
  TMUX_PANE: '%99',
  CI: 'true',
  CONTINUOUS_INTEGRATION: '1',
  CI_JOB_ID: '7',
};

function environOf(pid: number): Record<string, string> {
  return Object.fromEntries(
    readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
}

describe("seats never inherit the launching agent's identity, nor a CI run's markers (a seat is a terminal)", () => {
  let w: RigWorld;
  beforeEach(() => {
    w = new RigWorld(MARKERS);
  });
  afterEach(() => w.cleanup());

  async function seatEnv() {
    const spec = w.spec(
      'rig.yaml',
      'name: demo\npods:\n  - id: p\n    members:\n      - { id: lead, runtime: shell, cwd: ., command: bash, args: ["--noprofile", "--norc"], env: { CLAUDE_CONFIG_DIR: /tmp/cfg-lead, MY_VAR: kept } }\n',
    );
    const up = await w.cli(['up', spec, '--json']);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    const row = await waitFor(async () => (await w.cli(['ps', '--json'])).json.seats[0], { what: 'ps' });
    return { env: environOf(row.pid), row };
  }

  function expectClean(env: Record<string, string>, paneId: string) {
    for (const k of [
      'CLAUDECODE',
      'CLAUDE_CODE_ENTRYPOINT',
      'CLAUDE_CODE_SSE_PORT',
      'CODEX_THREAD_ID',
      'CODEX_SANDBOX',
      'CI',
      'CONTINUOUS_INTEGRATION',
      'CI_JOB_ID',
    ])
      expect(env[k], k).toBeUndefined();
    // TMUX and TMUX_PANE are the seat's own (Rigdesk's server, its pane), never the launcher's.
    expect(env.TMUX).toContain(`/${w.tmux.socketName},`);
    expect(env.TMUX_PANE).toBe(paneId);
    expect(env.CLAUDE_CONFIG_DIR).toBe('/tmp/cfg-lead');
    expect(env.MY_VAR).toBe('kept');
    expect(env.RIGDESK_SEAT).toBe('lead@demo');
  }

  it('when Rigdesk starts its tmux server from inside an agent', async () => {
    const { env, row } = await seatEnv();
    expectClean(env, row.paneId);
  });

  it("when Rigdesk's tmux server was already started with those markers in its global environment", async () => {
    // The server's global environment comes from whoever started it: here, a polluted launcher.
    w.tmux.run(['new-session', '-d', '-s', 'polluted', 'sleep', '300'], {
      env: { ...cleanTmuxEnv(), ...MARKERS, TMUX: '' },
    });
    expect(w.tmux.run(['show-environment', '-g', 'CLAUDECODE']).trim()).toBe('CLAUDECODE=1');
    const { env, row } = await seatEnv();
    expectClean(env, row.paneId);
  });
});

import * as pty from 'node-pty';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RIGDESK_BIN, RigWorld, shellRigYaml } from '../support/rig';
import { waitFor } from '../support/tmux';

describe('attach and doctor', () => {
  let w: RigWorld;
  beforeEach(() => {
    w = new RigWorld();
  });
  afterEach(() => w.cleanup());

  it("attach hands a real terminal to the seat's tmux session on Rigdesk's server", async () => {
    expect((await w.cli(['up', w.spec('rig.yaml', shellRigYaml('demo', ['lead']))])).code).toBe(0);
    await w.cli(['send', 'lead@demo', 'echo attach-marker-$((40+2))']);
    const term = pty.spawn(process.execPath, [RIGDESK_BIN, 'attach', 'lead@demo'], {
      name: 'xterm-256color',
      cols: 120,
      rows: 30,
      env: w.env as Record<string, string>,
    });
    let screen = '';
    term.onData((d) => (screen += d));
    const exited = new Promise<number>((r) => term.onExit((e) => r(e.exitCode)));
    await waitFor(() => screen.includes('attach-marker-42'), { what: 'the pane drawn in the attached terminal' });
    expect(Number(w.tmux.run(['display-message', '-p', '-t', 'lead@demo', '#{session_attached}']).trim())).toBe(1);
    term.write('\x02d'); // C-b d detaches
    expect(await exited).toBe(0);
    expect(w.sessions().map((s) => s.seat)).toEqual(['lead@demo']);
  });

  it('doctor checks tmux, the agent CLIs, the home and the database, and says how to fix what is missing', async () => {
    const r = await w.cli(['doctor', '--json'], { PATH: `/usr/bin:/bin` });
    expect(r.code, r.stdout).toBe(0);
    const checks = Object.fromEntries(
      r.json.checks.map((c: { check: string; ok: boolean; hint?: string }) => [c.check, c]),
    );
    expect(checks.tmux.ok).toBe(true);
    expect(checks.database.ok).toBe(true);
    expect(checks.home.ok).toBe(true);
    expect(checks['claude-code CLI']).toMatchObject({
      ok: false,
      hint: expect.stringContaining('@anthropic-ai/claude-code'),
    });
    const withClaude = await w.cli(['doctor', '--json'], {
      PATH: `${require('node:path').join(__dirname, '..', '..', 'node_modules', '.bin')}:/usr/bin:/bin`,
    });
    expect(withClaude.json.checks.find((c: { check: string }) => c.check === 'claude-code CLI').ok).toBe(true);
  });

  it('doctor reports each Codex seat home whose background daemon is on, and says what to set instead', async () => {
    const fs = require('node:fs') as typeof import('node:fs');
    const { join } = require('node:path') as typeof import('node:path');
    const on = join(w.root, 'cx-on');
    const off = join(w.root, 'cx-off');
    fs.mkdirSync(on, { recursive: true });
    fs.mkdirSync(off, { recursive: true });
    fs.writeFileSync(join(on, 'config.toml'), 'model = "fake-model"\n[features]\nsome_flag = true\n');
    fs.writeFileSync(
      join(off, 'config.toml'),
      'model = "fake-model"\n\n[features]\ndaemon_auto_start = false # seats own their threads\n',
    );
    const spec = w.spec(
      'cx.yaml',
      `name: cx\npods:\n  - id: p\n    members:\n      - { id: a, runtime: codex, cwd: ., env: { CODEX_HOME: ${JSON.stringify(on)} } }\n      - { id: b, runtime: codex, cwd: ., env: { CODEX_HOME: ${JSON.stringify(off)} } }\n`,
    );
    await w.cli(['up', spec], { PATH: '/usr/bin:/bin' }); // no codex on this PATH: the seats are recorded, not launched
    const r = await w.cli(['doctor', '--json'], { PATH: '/usr/bin:/bin' });
    expect(r.code, r.stdout).toBe(0);
    const checks = Object.fromEntries(r.json.checks.map((c: { check: string }) => [c.check, c]));
    expect(checks['codex daemon (a@cx)']).toMatchObject({
      ok: true,
      detail: expect.stringContaining(`on in ${on}`),
      hint: expect.stringContaining(`daemon_auto_start = false under [features] in ${join(on, 'config.toml')}`),
    });
    expect(checks['codex daemon (b@cx)']).toMatchObject({
      ok: true,
      detail: `off in ${off} (daemon_auto_start = false)`,
    });
    expect(checks['codex daemon (b@cx)'].hint).toBeUndefined();
  });

  it('doctor fails (exit 1) when tmux is missing and says how to install it', async () => {
    const r = await w.cli(['doctor', '--json'], { PATH: '/nonexistent' });
    expect(r.code).toBe(1);
    expect(r.json.evidence.checks[0]).toMatchObject({
      check: 'tmux',
      ok: false,
      hint: expect.stringContaining('tmux'),
    });
  });
});

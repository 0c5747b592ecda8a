import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RigWorld, shellRigYaml } from '../support/rig';
import { cleanTmuxEnv, waitFor } from '../support/tmux';

/**
 * A CLI command with no engine running (real CLI process, real tmux) runs an engine in its own
 * process for that command alone; it sends tmux one-shot commands and never attaches a control
 * client. On tmux 3.3a a control client that attaches while a session is made or closed can
 * crash the server with every seat on it, so a `rigdesk ps` in a loop beside a `rigdesk up` must
 * not attach one each time. The server's client-attached hook counts attaches here.
 */
describe('the CLI’s own engine and tmux (real tmux, real CLI process)', () => {
  let w: RigWorld;
  beforeEach(() => {
    w = new RigWorld();
  });
  afterEach(() => w.cleanup());

  it('up, ps, stop and down attach no client to the server', async () => {
    const spec = w.spec('rig.yaml', shellRigYaml('demo', ['lead', 'worker']));
    const up = await w.cli(['up', spec]);
    expect(up.code, up.stderr).toBe(0);
    // A session of the test's own keeps the server (and its hook) up after `down`.
    w.tmux.newSession('probe', ['sleep', '60']);
    const log = join(w.root, 'attached.log');
    // The hook's command is this test's own; every client that attaches from here on appends a line.
    w.tmux.run(['set-hook', '-g', 'client-attached', `run-shell -b "echo 'attached #{hook_client}' >> ${log}"`]);

    const ps = await w.cli(['ps', '--json']);
    expect(ps.code, ps.stderr).toBe(0);
    expect(await w.cli(['up', spec])).toMatchObject({ code: 0 });
    expect(await w.cli(['stop', 'worker@demo'])).toMatchObject({ code: 0 });
    expect(await w.cli(['down', 'demo'])).toMatchObject({ code: 0 });

    // A control client attached by hand shows the hook fires (the count above is not blind).
    // Held open until its line is seen: one that read EOF at once could leave before it attached.
    const probe = spawn('tmux', ['-L', w.tmux.socketName, '-f', '/dev/null', '-C', 'attach-session', '-t', 'probe'], {
      env: cleanTmuxEnv(),
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    // The hook's shell runs in the background: its line is awaited, then any late one.
    const read = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean) : []);
    await waitFor(() => read().length > 0, { what: "the hand-made client's line", timeoutMs: 15_000 });
    probe.stdin!.end();
    await new Promise((r) => setTimeout(r, 500));
    const lines = read();
    expect(lines, 'only the hand-made control client attached').toHaveLength(1);
    expect(lines[0]).toMatch(/^attached client-\d+$/);
  });
});

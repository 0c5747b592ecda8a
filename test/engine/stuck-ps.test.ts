import { afterEach, describe, expect, it } from 'vitest';
import { cmdlinesHolding } from '../support/hostile';
import { RigWorld } from '../support/rig';

/**
 * Issue 32: `ps` on a socket whose tmux server accepts and never answers (its pid SIGSTOPped) used
 * to wait out every tmux command's time limit, then call the seat `gone` with a bare "timed out".
 * Now it names the stuck server, its socket and its pid, with the next step, within 5 s.
 */
describe('ps and a stuck tmux server', () => {
  let w: RigWorld | undefined;
  let pid = 0;
  afterEach(() => {
    if (pid)
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    w?.cleanup();
  });

  it('reports TMUX_SERVER_STUCK with the socket and the server pid within 5 s, and the seat as unknown, not gone', async () => {
    w = new RigWorld();
    const spec = w.spec(
      'rig.yaml',
      'name: d\npods:\n  - id: p\n    members:\n      - { id: a, runtime: shell, cwd: ., command: bash }\n',
    );
    expect((await w.cli(['up', spec])).code).toBe(0);
    pid = Number(w.tmux.run(['display-message', '-p', '-t', 'a@d', '#{pid}']).trim());
    const before = await w.cli(['ps', '--json']);
    expect(before.json.stuck).toBeUndefined();
    process.kill(pid, 'SIGSTOP');
    const t0 = Date.now();
    const r = await w.cli(['ps', '--json']);
    const took = Date.now() - t0;
    console.info(`[stuck ps] answered in ${took} ms`);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json.stuck).toMatchObject({ code: 'TMUX_SERVER_STUCK', pids: [pid] });
    expect(r.json.stuck.socket).toContain(w.tmux.socketName);
    expect(r.json.stuck.hint).toContain('rigdesk doctor --fix');
    expect(r.json.seats[0].state).toBe('unknown');
    expect(r.json.problems.join('\n')).toContain(
      `TMUX_SERVER_STUCK: the server on ${r.json.stuck.socket} (pid ${pid})`,
    );
    expect(took).toBeLessThan(5000);
    // The command's own tmux client is ended with it, by signal (a stuck server never lets it
    // detach): only the stopped server still names the socket.
    expect(cmdlinesHolding(w.tmux.socketName).map((p) => p.pid)).toEqual([pid]);
    const text = await w.cli(['ps']);
    expect(text.stdout + text.stderr).toMatch(new RegExp(`warning: .*TMUX_SERVER_STUCK.*pid ${pid}.*doctor --fix`));
  });
});

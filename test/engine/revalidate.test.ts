import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { liveProcReader } from '../../src/main/engine/proc';
import type { ProcReader } from '../../src/main/engine/proc/types';
import { sendToSeat } from '../../src/main/engine/delivery/send';
import { RigWorld, shellRigYaml } from '../support/rig';
import { waitFor } from '../support/tmux';

/** Design.md invariant 5: the target is re-read just before the keystrokes. */
describe('revalidation between the custody check and the write', () => {
  let w: RigWorld;
  beforeEach(async () => {
    w = new RigWorld();
    expect((await w.cli(['up', w.spec('rig.yaml', shellRigYaml('demo', ['lead']))])).code).toBe(0);
    await waitFor(() => /[$#]\s*$/m.test(w.tmux.capture('lead@demo')), { what: 'prompt' });
  });
  afterEach(() => w.cleanup());

  const screenHas = (s: string) => w.tmux.capture('lead@demo').includes(s);

  it('delivers when nothing moved (control: the hook itself changes nothing)', async () => {
    const engine = w.engine({ faults: { 'send.before_revalidate': () => undefined } });
    const r = await sendToSeat(engine.ports, 'lead@demo', 'echo control-ok');
    expect(r.ok).toBe(true);
    await waitFor(() => screenHas('control-ok'), { what: 'text on screen' });
  });

  it('refuses when the pane was respawned with a new process (fault: hook respawns the pane)', async () => {
    const engine = w.engine({
      faults: {
        'send.before_revalidate': () =>
          void w.tmux.run(['respawn-pane', '-k', '-t', 'lead@demo', 'bash', '--noprofile', '--norc']),
      },
    });
    const r = await sendToSeat(engine.ports, 'lead@demo', 'echo should-not-arrive');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.code).toBe('TARGET_CHANGED');
    await new Promise((res) => setTimeout(res, 300));
    expect(screenHas('should-not-arrive')).toBe(false);
    expect(engine.store.events.list({ seat: 'lead@demo', kind: 'seat.send_refused' })).toHaveLength(1);
  });

  it("refuses when the seat's program was restarted in the same pane (fault: hook kills it)", async () => {
    const engine = w.engine({
      faults: {
        'send.before_revalidate': async () => {
          const panePid = Number(w.tmux.run(['display-message', '-p', '-t', 'lead@demo', '#{pane_pid}']).trim());
          const child = Number(
            execFileSync('pgrep', ['-P', String(panePid)], { encoding: 'utf8' })
              .trim()
              .split('\n')[0],
          );
          process.kill(child, 'SIGKILL');
          await waitFor(() => screenHas('[rigdesk] bash exited'), { what: 'wrapper noticed' });
        },
      },
    });
    const r = await sendToSeat(engine.ports, 'lead@demo', 'echo should-not-arrive');
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.code).toBe('TARGET_CHANGED');
      expect(r.message).toMatch(/exited|reused/);
    }
  });

  it('refuses when a pid was reused by another process between check and write (fault: injected process table)', async () => {
    const live = liveProcReader();
    let reused = false;
    const proc: ProcReader = {
      ...live,
      snapshot: () => live.snapshot(),
      read: (pid) => {
        const p = live.read(pid);
        // After the hook, the seat's program pid reads with another start time: a reused pid.
        return p && reused && p.comm === 'bash' ? { ...p, startTime: String(Number(p.startTime) + 1) } : p;
      },
    };
    const engine = w.engine({ proc, faults: { 'send.before_revalidate': () => void (reused = true) } });
    const r = await sendToSeat(engine.ports, 'lead@demo', 'echo should-not-arrive');
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.code).toBe('TARGET_CHANGED');
      expect(r.message).toMatch(/now belongs to another process/);
    }
    expect(screenHas('should-not-arrive')).toBe(false);
  });
});

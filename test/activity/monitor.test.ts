import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ActivityMonitor, type ActivityChange } from '../../src/main/engine/activity/monitor';
import type { EnginePorts } from '../../src/main/engine/engine';
import { RigWorld, rosterSwitch, shellRigYaml } from '../support/rig';
import { waitFor } from '../support/tmux';

/** The long-lived engine hears of activity from events (pane output, live-state files), not polling. */
describe('the activity monitor', () => {
  let w: RigWorld;
  let m: ActivityMonitor | undefined;
  beforeEach(async () => {
    w = new RigWorld();
    expect((await w.cli(['up', w.spec('rig.yaml', shellRigYaml('demo', ['a', 'b']))])).code).toBe(0);
  });
  afterEach(() => {
    m?.stop();
    w.cleanup();
  });

  /** A monitor whose fallback pass is a minute away, so only events can explain a timely report; started once both seats read idle. */
  async function idleMonitor(ports: EnginePorts): Promise<ActivityChange[]> {
    m = new ActivityMonitor(ports, { fallbackMs: 60_000 });
    const changes: ActivityChange[] = [];
    m.onChange((c) => changes.push(c));
    await m.start();
    await waitFor(() => changes.filter((c) => c.label === 'idle').length >= 2, { what: 'both idle at start' });
    return changes;
  }

  /** Types a command into seat a and waits for the report that it is working. */
  async function typeUntilWorking(
    changes: ActivityChange[],
    cmd: string,
  ): Promise<{ t0: number; working: ActivityChange }> {
    const t0 = Date.now();
    w.tmux.run(['send-keys', '-t', 'a@demo', cmd, 'Enter']);
    const working = await waitFor(
      () => changes.find((c) => c.seat === 'a@demo' && c.label === 'working' && c.at >= t0),
      { timeoutMs: 8000, intervalMs: 10, what: 'working' },
    );
    return { t0, working };
  }

  it('reports working and idle from pane output, long before its 60 s fallback pass could', async () => {
    const e = w.engine();
    const changes = await idleMonitor(e.ports);
    const { t0, working } = await typeUntilWorking(changes, 'sleep 3');
    // Only pane output can explain a report within seconds (latency itself is bench/activity's to measure).
    expect(working.at - t0).toBeLessThan(5000);
    const idle = await waitFor(
      () => changes.find((c) => c.seat === 'a@demo' && c.label === 'idle' && c.at > working.at),
      { timeoutMs: 10000, intervalMs: 10, what: 'idle again' },
    );
    expect(idle.at - t0).toBeLessThan(3000 + 5000);
    // The other seat printed nothing: once both were idle it never changed. (Its first look may
    // come before the pane's wrapper has exec'd the shell under load, so count from t0.)
    const b = changes.filter((c) => c.seat === 'b@demo');
    expect(
      b.filter((c) => c.at >= t0),
      JSON.stringify(b),
    ).toEqual([]);
    expect(b.at(-1)?.label).toBe('idle');
    // Every change is an event row first.
    const rows = e.store.events.list({ kind: 'seat.activity', seat: 'a@demo' });
    expect(rows.map((r) => r.data.label)).toEqual(changes.filter((c) => c.seat === 'a@demo').map((c) => c.label));
  });

  it('output printed while a look is under way still wakes the monitor (fault: the roster that sees `sleep` is held until the prompt is back)', async () => {
    const { ports, real, set } = rosterSwitch(w.engine());
    // The fault is gated on what the look saw, not on time, so a loaded machine cannot miss it: the
    // look that read `sleep` in front keeps its roster until the shell has printed its prompt again.
    let held = false;
    let lastLook = 0;
    const foreground = () => w.tmux.run(['display-message', '-p', '-t', 'a@demo', '#{pane_current_command}']).trim();
    set(async () => {
      lastLook = Date.now();
      const r = await real();
      if (!held && r.panes.some((p) => p.seatTag === 'a@demo' && p.foreground?.comm === 'sleep')) {
        held = true;
        await waitFor(() => foreground() !== 'sleep', {
          timeoutMs: 10_000,
          intervalMs: 20,
          what: 'the prompt back while the look holds its roster',
        });
        await new Promise((res) => setTimeout(res, 200));
      }
      return r;
    });
    const changes = await idleMonitor(ports);
    // Typed only once the looks that follow the start (the pipes being set) are over: the roster is
    // every pane's, so one taken by a look at seat b alone would see `sleep` and be held, and no
    // look at seat a would ever see it running (1 run in 4 under load failed that way).
    await waitFor(() => Date.now() - lastLook > 500, {
      timeoutMs: 10_000,
      intervalMs: 50,
      what: 'no look for 500 ms after the start',
    });
    w.tmux.run(['send-keys', '-t', 'a@demo', 'sleep 1.5', 'Enter']);
    await waitFor(() => held, { timeoutMs: 8000, intervalMs: 10, what: 'a look that saw sleep' });
    const working = await waitFor(() => changes.find((c) => c.seat === 'a@demo' && c.label === 'working'), {
      timeoutMs: 8000,
      intervalMs: 10,
      what: 'working',
    });
    // The prompt was printed while that look held its roster: only that output can bring the next look.
    await waitFor(() => changes.find((c) => c.seat === 'a@demo' && c.label === 'idle' && c.at > working.at), {
      timeoutMs: 8000,
      intervalMs: 10,
      what: 'idle again',
    });
  });

  it('a seat flooding output is looked at when its output pauses (at least once a cap), not at a fixed pace, and its end is still seen', async () => {
    const { ports, real, set } = rosterSwitch(w.engine());
    const looks: number[] = [];
    set(async () => (looks.push(Date.now()), real()));
    const changes = await idleMonitor(ports);
    const { t0, working } = await typeUntilWorking(changes, 'timeout 4 yes');
    const idle = await waitFor(
      () => changes.find((c) => c.seat === 'a@demo' && c.label === 'idle' && c.at > working.at),
      { timeoutMs: 15_000, intervalMs: 10, what: 'idle after the flood' },
    );
    const during = looks.filter((t) => t > working.at && t < idle.at).length;
    const ms = idle.at - working.at;
    // Held to a pause (never comes mid-flood) or to 800 ms after the last look: about ms/800 looks,
    // plus a few where a busy event loop read the pipe late. Paced at 240 ms it was about ms/240.
    expect(during).toBeLessThanOrEqual(Math.ceil(ms / 800) + 3);
    expect(idle.at - t0).toBeLessThan(4000 + 5000);
  });

  it("what a window's ps sees change is a seat.activity row at that look, before ps answers", async () => {
    const e = w.engine();
    // The monitor's own looks are a minute away, after output as after nothing: only another's look
    // can report the change in time.
    const front = (seat: string) => w.tmux.run(['display-message', '-p', '-t', seat, '#{pane_current_command}']).trim();
    await waitFor(() => front('a@demo') === 'bash' && front('b@demo') === 'bash', { what: 'both shells up' });
    m = new ActivityMonitor(e.ports, { fallbackMs: 60_000, debounceMs: 60_000 });
    const changes: ActivityChange[] = [];
    m.onChange((c) => changes.push(c));
    await m.start();
    expect(changes.map((c) => c.label)).toEqual(['idle', 'idle']);
    w.tmux.run(['send-keys', '-t', 'a@demo', 'sleep 30', 'Enter']);
    await waitFor(() => front('a@demo') === 'sleep', { what: 'sleep in front' });
    expect(changes).toHaveLength(2);
    const { ps } = await import('../../src/main/engine/services/ps');
    const seen = await ps(e);
    expect(seen.ok && seen.seats.find((s) => s.seat === 'a@demo')?.activity).toBe('working');
    // Recorded during that look: the row first, then the news, before ps answered.
    expect(changes.slice(2).map((c) => [c.seat, c.label])).toEqual([['a@demo', 'working']]);
    expect(e.store.events.list({ kind: 'seat.activity', seat: 'a@demo' }).at(-1)?.data.label).toBe('working');
  });

  it("a window's ps looking at every seat stands for the monitor's fallback pass: no roster of its own meanwhile", async () => {
    const e = w.engine();
    const { ports, real, set } = rosterSwitch(e);
    m = new ActivityMonitor(ports, { fallbackMs: 3000 });
    const changes: ActivityChange[] = [];
    m.onChange((c) => changes.push(c));
    await m.start();
    await waitFor(() => changes.filter((c) => c.label === 'idle').length >= 2, { what: 'both idle at start' });
    // The monitor's own rosters: every one taken outside a ps (a window's ps takes its own through
    // the engine's ports).
    let inPs = false;
    let own = 0;
    set(() => {
      if (!inPs) own++;
      return real();
    });
    const { ps } = await import('../../src/main/engine/services/ps');
    const windowPoll = async (times: number) => {
      for (let i = 0; i < times; i++) {
        inPs = true;
        try {
          expect((await ps(e)).ok).toBe(true);
        } finally {
          inPs = false;
        }
        await new Promise((r) => setTimeout(r, 1000));
      }
    };
    await windowPoll(2); // the monitor's passes for its watches' first bytes are over by then
    const settled = own;
    // A window polling at 1 s for 6 s: the monitor takes no roster of its own (every 3 s it would).
    await windowPoll(6);
    expect(own).toBe(settled);
    // With no window the fallback pass comes back on its own (the window's quiet looks have stretched
    // its wait to the rest cap, 3 x 3 s, and a look by others puts it off a quarter more).
    await waitFor(() => own > settled, { timeoutMs: 15_000, what: 'a fallback pass' });
  });

  it('on a rig where nothing happens the fallback passes thin out to the rest cap, and pane output brings back the base pace', async () => {
    const { ports, real, set } = rosterSwitch(w.engine());
    m = new ActivityMonitor(ports, { fallbackMs: 250, restMaxMs: 3000 });
    const changes: ActivityChange[] = [];
    m.onChange((c) => changes.push(c));
    await m.start();
    await waitFor(() => changes.filter((c) => c.label === 'idle').length >= 2, { what: 'both idle at start' });
    const at: number[] = [];
    set(() => (at.push(Date.now()), real()));
    await new Promise((r) => setTimeout(r, 2000)); // 250, 500, 1000, 2000: at the cap soon
    const t0 = Date.now();
    await new Promise((r) => setTimeout(r, 6000));
    const quiet = at.filter((t) => t >= t0);
    // At the base pace 24 passes in 6 s; at the cap 2. The cap still looks (a silent exit is seen).
    expect(quiet.length, `passes at ${quiet.map((t) => t - t0).join(', ')} ms`).toBeGreaterThanOrEqual(1);
    expect(quiet.length).toBeLessThanOrEqual(4);
    // Output on b just after a fallback pass, so left at the cap the next one is 3 s away: b is
    // looked at once, and the fallback comes back at 250 ms, then 500 (passes near 250 and 750 ms).
    const n = at.length;
    await waitFor(() => at.length > n, { timeoutMs: 5000, intervalMs: 5, what: 'a fallback pass at the cap' });
    const t1 = Date.now();
    w.tmux.run(['send-keys', '-t', 'b@demo', 'echo hi', 'Enter']);
    await new Promise((r) => setTimeout(r, 1600));
    const after = at.filter((t) => t >= t1);
    expect(
      after.filter((t) => t - t1 >= 150 && t - t1 <= 1500).length,
      `looks at ${after.map((t) => t - t1).join(', ')} ms`,
    ).toBeGreaterThanOrEqual(2);
  });

  it('a seat whose program exits reads exited, through the pane output it leaves', async () => {
    const e = w.engine();
    m = new ActivityMonitor(e.ports, { fallbackMs: 60_000 });
    const changes: ActivityChange[] = [];
    m.onChange((c) => changes.push(c));
    await m.start();
    await waitFor(() => changes.some((c) => c.seat === 'a@demo'), { what: 'start' });
    w.tmux.run(['send-keys', '-t', 'a@demo', 'exit', 'Enter']);
    await waitFor(() => changes.find((c) => c.seat === 'a@demo' && c.label === 'exited'), {
      timeoutMs: 5000,
      what: 'exited',
    });
  });

  /**
   * A local seat's output reaches the monitor through `tmux pipe-pane` into a fifo, not through a
   * control-mode client: tmux does not escape a flood for it, and no control client can be behind
   * on a pane when the pane is respawned (which crashes tmux 3.3a's server, every seat with it).
   */
  describe('its watch pipes pane output', () => {
    const pipeOf = (seat: string) =>
      w.tmux.run(['display-message', '-p', '-t', seat, '#{pane_pipe} #{@rigdesk_watch}']).trim();
    const serverPid = () => Number(w.tmux.run(['display-message', '-p', '#{pid}']).trim());
    const start = async () => {
      m = new ActivityMonitor(w.engine().ports, { fallbackMs: 60_000 });
      const changes: ActivityChange[] = [];
      m.onChange((c) => changes.push(c));
      await m.start();
      await waitFor(() => changes.filter((c) => c.label === 'idle').length >= 2, { what: 'both seats idle at start' });
      return changes;
    };

    it('each seat pane is piped into its own fifo, marked as ours, with no control client attached', async () => {
      const changes = await start();
      const fifos = m!.watchFifos();
      expect(fifos).toHaveLength(2);
      for (const seat of ['a@demo', 'b@demo']) {
        const [piped, marker] = pipeOf(seat).split(' ');
        expect(piped).toBe('1');
        expect(fifos).toContain(marker);
        expect(marker!.startsWith(join(w.home, 'watch'))).toBe(true);
      }
      expect(m!.watcherPids()).toEqual([]);
      // The only control client is the engine's held tmux client, which gets no pane output at all.
      const clients = w.tmux.tryRun(['list-clients', '-F', '#{client_control_mode} #{client_flags}']).out.trim();
      for (const c of clients.split('\n').filter(Boolean)) expect(c).toMatch(/^1 .*no-output/);
      // And output through the pipe is what wakes it.
      const t0 = Date.now();
      w.tmux.run(['send-keys', '-t', 'a@demo', 'sleep 4', 'Enter']);
      await waitFor(() => changes.find((c) => c.seat === 'a@demo' && c.label === 'working' && c.at >= t0), {
        timeoutMs: 5000,
        intervalMs: 10,
        what: 'working',
      });
    });

    it('a pipe that fails to start (forced fault: mkfifo fails) gets no control client: the seat is left to the looks and its pipe is tried again', async () => {
      let failing = true;
      let tries = 0;
      const e = w.engine();
      const exec: typeof e.ports.exec = (file, args, opts) => {
        if (file !== 'mkfifo') return e.ports.exec(file, args, opts);
        tries++;
        return failing
          ? Promise.resolve({ code: 1, signal: null, stdout: '', stderr: 'forced: mkfifo failed', timedOut: false })
          : e.ports.exec(file, args, opts);
      };
      m = new ActivityMonitor({ ...e.ports, exec }, { fallbackMs: 300 });
      const changes: ActivityChange[] = [];
      m.onChange((c) => changes.push(c));
      await m.start();
      await waitFor(() => changes.filter((c) => c.label === 'idle').length >= 2, { what: 'both seats idle at start' });
      await waitFor(() => tries >= 4, { what: 'the pipes tried again' });
      expect(m.watcherPids(), 'no control client watches a pane').toEqual([]);
      const clients = w.tmux.tryRun(['list-clients', '-F', '#{client_control_mode} #{client_flags}']).out.trim();
      for (const c of clients.split('\n').filter(Boolean)) expect(c).toMatch(/^1 .*no-output/);
      failing = false;
      await waitFor(() => pipeOf('a@demo').startsWith('1') && pipeOf('b@demo').startsWith('1'), {
        what: 'both pipes set once mkfifo works',
      });
      expect(m.watchKind('a@demo')).toBe('pipe');
    });

    it("a person's own pipe on a seat is never replaced; that seat is still watched", async () => {
      const theirs = join(w.root, 'their-log.txt');
      w.tmux.run(['pipe-pane', '-t', 'b@demo', `cat >> ${theirs}`]);
      const changes = await start();
      expect(pipeOf('b@demo')).toBe('1');
      const t0 = Date.now();
      w.tmux.run(['send-keys', '-t', 'b@demo', 'sleep 3; echo their-line', 'Enter']);
      await waitFor(() => changes.find((c) => c.seat === 'b@demo' && c.label === 'working' && c.at >= t0), {
        timeoutMs: 5000,
        intervalMs: 10,
        what: 'b working',
      });
      await waitFor(() => existsSync(theirs) && readFileSync(theirs, 'utf8').includes('their-line'), {
        what: 'their pipe still receives the output',
      });
      expect(pipeOf('b@demo')).toBe('1');
    });

    it('what a pane prints between the first look and its watch starting is still seen (fault: that look is held until both commands are over)', async () => {
      // b has a person's pipe, so it gets a control client; a gets our pipe.
      w.tmux.run(['pipe-pane', '-t', 'b@demo', `cat >> ${join(w.root, 'their-log.txt')}`]);
      // Past the shells' start time (5 s): inside it a new engine reads a command in front of a
      // shell as its start-up, `starting` (activity/decide.ts).
      await new Promise((r) => setTimeout(r, 5000));
      for (const seat of ['a@demo', 'b@demo']) w.tmux.run(['send-keys', '-t', seat, 'sleep 1', 'Enter']);
      await new Promise((r) => setTimeout(r, 300));
      const { ports, real, set } = rosterSwitch(w.engine());
      let first = true;
      set(async () => {
        const r = await real();
        // The first look sees both sleeping; the prompts come back before any watch exists.
        if (first) await new Promise((res) => setTimeout(res, 1500));
        first = false;
        return r;
      });
      m = new ActivityMonitor(ports, { fallbackMs: 60_000 });
      const changes: ActivityChange[] = [];
      m.onChange((c) => changes.push(c));
      await m.start();
      expect(changes.map((c) => c.label)).toEqual(['working', 'working']);
      // Only a look after each watch started can see them idle (the fallback is a minute away).
      await waitFor(() => changes.filter((c) => c.label === 'idle').length === 2, {
        timeoutMs: 5000,
        what: `both idle (${JSON.stringify(changes.map((c) => [c.seat, c.label]))})`,
      });
    });

    it('respawning seats while they flood leaves the tmux server and every seat up', async () => {
      await start();
      const pid = serverPid();
      for (let i = 0; i < 6; i++) {
        w.tmux.run(['send-keys', '-t', 'a@demo', 'yes rigdesk-flood-line-of-some-length', 'Enter']);
        await new Promise((r) => setTimeout(r, 150 + 40 * i));
        w.tmux.run(['respawn-pane', '-k', '-t', 'a@demo', 'bash --noprofile --norc']);
        await new Promise((r) => setTimeout(r, 200));
        expect(w.tmux.tryRun(['display-message', '-p', '#{pid}']).out.trim()).toBe(String(pid));
      }
      // The pipe outlives a respawn: still ours.
      expect(pipeOf('a@demo').split(' ')[0]).toBe('1');
      expect(w.tmux.run(['display-message', '-p', '-t', 'b@demo', '#{pane_dead}']).trim()).toBe('0');
    });

    it('a pipe that is closed is set again when its writer ends, with no fallback pass', async () => {
      const changes = await start();
      w.tmux.run(['pipe-pane', '-t', 'a@demo']);
      expect(pipeOf('a@demo').split(' ')[0]).toBe('0');
      await waitFor(() => pipeOf('a@demo').split(' ')[0] === '1', { timeoutMs: 5000, what: 'piped again' });
      const t0 = Date.now();
      w.tmux.run(['send-keys', '-t', 'a@demo', 'sleep 4', 'Enter']);
      await waitFor(() => changes.find((c) => c.seat === 'a@demo' && c.label === 'working' && c.at >= t0), {
        timeoutMs: 5000,
        intervalMs: 10,
        what: 'working',
      });
    });

    it("when the engine stops its fifos go, and tmux drops each pipe at that pane's next output", async () => {
      await start();
      const fifos = m!.watchFifos();
      m!.stop();
      m = undefined;
      for (const f of fifos) expect(existsSync(f)).toBe(false);
      // `cat` ends at the first write with no reader; tmux notices at its next write to the pipe.
      await waitFor(
        () => {
          w.tmux.run(['send-keys', '-t', 'a@demo', 'echo bye', 'Enter']);
          return pipeOf('a@demo').split(' ')[0] === '0';
        },
        { timeoutMs: 5000, intervalMs: 200, what: 'the pipe ended with its reader' },
      );
      // Nothing grew in its place: a missing fifo never becomes a regular file.
      for (const f of fifos) expect(existsSync(f)).toBe(false);
    });

    it('a person who replaces our pipe keeps theirs: the watch ends with our writer and a control client takes over', async () => {
      const changes = await start();
      expect(m!.watchKind('a@demo')).toBe('pipe');
      const theirs = join(w.root, 'their-log.txt');
      w.tmux.run(['pipe-pane', '-t', 'a@demo', `cat >> ${theirs}`]);
      await waitFor(() => m!.watchKind('a@demo') === 'control', { timeoutMs: 5000, what: 'a control client instead' });
      const t0 = Date.now();
      w.tmux.run(['send-keys', '-t', 'a@demo', 'sleep 3; echo their-line', 'Enter']);
      await waitFor(() => changes.find((c) => c.seat === 'a@demo' && c.label === 'working' && c.at >= t0), {
        timeoutMs: 5000,
        intervalMs: 10,
        what: 'working',
      });
      await waitFor(() => existsSync(theirs) && readFileSync(theirs, 'utf8').includes('their-line'), {
        what: 'their pipe still receives the output',
      });
      expect(m!.watchKind('a@demo')).toBe('control');
    });

    it('after an engine restart the pipe left behind is not replaced: a control client watches until it ends, then the pane is piped again', async () => {
      await start();
      m!.stop();
      // The old `cat` is still there until the pane next prints.
      expect(pipeOf('a@demo').split(' ')[0]).toBe('1');
      await start();
      expect(m!.watchKind('a@demo')).toBe('control');
      // Its `cat` dies at the first write (no reader), tmux drops the pipe at its next one, and the
      // look after that pipes the pane again; meanwhile the control client heard every line.
      await waitFor(
        () => {
          w.tmux.run(['send-keys', '-t', 'a@demo', 'echo wake', 'Enter']);
          return m!.watchKind('a@demo') === 'pipe';
        },
        { timeoutMs: 8000, intervalMs: 300, what: 'piped again once the old pipe ended' },
      );
      // b has not printed since: its old pipe, and so its control client, are still there.
      expect(m!.watchKind('b@demo')).toBe('control');
      expect(m!.watcherPids()).toHaveLength(1);
    });
  });
});

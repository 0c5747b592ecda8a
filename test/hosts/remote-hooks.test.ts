/**
 * Activity hooks of seats on another host (test-host.ts), with the real Claude Code and Codex there
 * against the fake model server here. Rigdesk installs Claude's hooks and Codex's notify into each
 * seat's own config home on the host; each event is written to a file in that home and its seat's
 * name into a fifo there, which the engine's one stream per host reads: the monitor looks at the
 * seat at once and the host's evidence round reads the event back. A seat that isolates no config
 * gets no hooks, and a file in Rigdesk's own hooks folder here says nothing about a remote seat.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActivityMonitor, type ActivityChange } from '../../src/main/engine/activity/monitor';
import type { Engine } from '../../src/main/engine/engine';
import { observeSeats } from '../../src/main/engine/activity/observe';
import { RemoteHookWatches, remoteHookOf } from '../../src/main/engine/hosts/hook-watch';
import { controlPathFor } from '../../src/main/engine/hosts/ssh';
import { requireCli } from '../journeys/support';
import { HostAgents } from '../support/remote-agents';
import { RigWorld } from '../support/rig';
import { closeMaster, sshdMissing, TestSshd } from '../support/sshd';
import { waitFor } from '../support/tmux';

describe.skipIf(!!sshdMissing())('activity hooks of seats on another host (real Claude Code and Codex there)', () => {
  requireCli('claude-code', 'codex');
  let sshd: TestSshd;
  let agents: HostAgents;
  let w: RigWorld;
  let e: Engine;
  let m: ActivityMonitor;
  const changes: ActivityChange[] = [];

  beforeAll(async () => {
    sshd = await new TestSshd().start();
    agents = await HostAgents.start(sshd, ['claude-code', 'codex']);
    w = new RigWorld();
    const spec = agents.spec(w, 'hk', [
      agents.member('lead', 'claude-code'),
      agents.member('plain', 'claude-code', 'box', agents.claudeWithoutConfigDir('plain-claude')),
      agents.member('coder', 'codex'),
    ]);
    const up = await w.cli(['up', spec, '--json']);
    if (up.code !== 0) throw new Error(up.stdout + up.stderr);
    e = w.engine();
    // Only events can explain a report within seconds: the full pass is a minute away.
    m = new ActivityMonitor(e.ports, { fallbackMs: 60_000 });
    m.onChange((c) => changes.push(c));
    await m.start();
  }, 120_000);
  afterAll(async () => {
    m?.stop();
    await m?.settled();
    if (w) closeMaster(controlPathFor(w.home, 'box'));
    await w?.shutdown();
    await agents?.close();
    await sshd?.cleanup();
  }, 120_000);

  const hookOf = (seat: string) => remoteHookOf(e.store.rigs.seat(seat)!)!;

  it("installs the hooks into each isolating seat's own home on the host, and none for a seat that isolates none", () => {
    const settings = JSON.parse(sshd.readHost(`${agents.homeOf('claude-code')}/settings.json`));
    const command: string = settings.hooks.Notification[0].hooks[0].command;
    expect(command).toContain(hookOf('lead@hk').file);
    expect(command).toContain(hookOf('lead@hk').fifo);
    expect(sshd.readHost(`${agents.homeOf('codex')}/config.toml`)).toContain(hookOf('coder@hk').fifo);
    expect(e.store.rigs.seat('plain@hk')!.env.CLAUDE_CONFIG_DIR).toBeUndefined();
    expect(
      JSON.stringify(JSON.parse(sshd.readHost(`${sshd.remoteDir}/plain-claude/home/.claude/settings.json`))),
    ).not.toContain('rigdesk-activity-hook');
  });

  it("a remote Claude seat's permission prompt: the engine reads its hook back from the host, and the window hears it", async () => {
    await waitFor(() => sshd.existsHost(hookOf('lead@hk').file), {
      timeoutMs: 60_000,
      what: 'the SessionStart hook on the host',
    });
    // Rigdesk's own hooks folder here says nothing about a remote seat.
    mkdirSync(e.deps.layout.hooksDir, { recursive: true });
    writeFileSync(
      join(e.deps.layout.hooksDir, 'lead@hk.json'),
      JSON.stringify({ hook_event_name: 'Notification', message: 'Claude needs your permission to use Bash' }),
    );
    const lead = e.store.rigs.seat('lead@hk')!;
    const observed = async () => (await observeSeats(e.ports, await e.roster(), [lead])).get('lead@hk')!.activity;
    expect(await observed()).toMatchObject({ activity: 'idle', needsInput: 'none' });
    const since = Date.now();
    expect((await w.cli(['send', 'lead@hk', 'RUN: echo hooked > from-hook.txt', '--json'])).json.ok).toBe(true);
    // The window's reading: whichever evidence got there first (the hook, or the screen the
    // pane's output made the monitor look at).
    const seen = await waitFor(
      () => changes.find((c) => c.seat === 'lead@hk' && c.at >= since && c.label === 'needs_input'),
      { timeoutMs: 60_000, intervalMs: 20, what: 'needs_input on the remote Claude seat' },
    );
    expect(seen.activity.needsInput).toBe('permission');
    // The hook's event, in the seat's home on the host, is what the engine's reading rests on.
    const raw = await waitFor(
      () => {
        const r = JSON.parse(sshd.readHost(hookOf('lead@hk').file));
        return r.hook_event_name === 'PermissionRequest' ? r : undefined;
      },
      { timeoutMs: 10_000, what: 'the PermissionRequest hook on the host' },
    );
    expect(raw.session_id).toBe(lead.conversationId);
    const byHook = await observed();
    expect(byHook.needsInput).toBe('permission');
    expect(byHook.basis[0]).toMatchObject({ source: 'hook', detail: 'hook PermissionRequest' });
    // Denied, no hook follows: the idle screen overrules the hook's wait, and the seat reads idle.
    const answered = await w.cli(['answer', 'lead@hk', 'deny', '--reason', 'test: deny', '--json']);
    expect(answered.json, answered.stdout).toMatchObject({ ok: true });
    await waitFor(() => changes.some((c) => c.seat === 'lead@hk' && c.at > seen.at && c.label === 'idle'), {
      timeoutMs: 60_000,
      what: 'idle again',
    });
    expect(sshd.existsHost(`${agents.work}/from-hook.txt`)).toBe(false);
  });

  it('the seat without hooks gets the same prompt from its screen only', async () => {
    const since = Date.now();
    expect((await w.cli(['send', 'plain@hk', 'RUN: echo plain > from-plain.txt', '--json'])).json.ok).toBe(true);
    const seen = await waitFor(
      () => changes.find((c) => c.seat === 'plain@hk' && c.at >= since && c.label === 'needs_input'),
      { timeoutMs: 60_000, intervalMs: 20, what: 'needs_input on the screen-only Claude seat' },
    );
    expect(seen.activity.basis[0]).toMatchObject({ source: 'screen' });
    expect((await w.cli(['answer', 'plain@hk', 'deny', '--reason', 'test: deny', '--json'])).json.ok).toBe(true);
  });

  it("the host's hook stream names each seat whose hook or notify just wrote there (Claude's and Codex's)", async () => {
    // The monitor's own stream is replaced by the test's, which reports every seat it hears of.
    m.stop();
    await m.settled();
    const heard: string[] = [];
    const watches = new RemoteHookWatches(
      (name, file, args) => e.hosts.get(name)!.streamArgv(file, args),
      (seat) => heard.push(seat),
      e.deps.env,
    );
    try {
      watches.sync(e.store.rigs.seats());
      await waitFor(() => watches.watching('box'), { what: "the host's hook stream watching" });
      expect((await w.cli(['send', 'lead@hk', 'hello lead', '--json'])).json.ok).toBe(true);
      expect((await w.cli(['send', 'coder@hk', 'hello codex', '--json'])).json.ok).toBe(true);
      await waitFor(() => heard.includes('lead@hk') && heard.includes('coder@hk'), {
        timeoutMs: 60_000,
        what: 'both seats named by their hooks',
      });
      expect(heard).not.toContain('plain@hk');
      expect(JSON.parse(sshd.readHost(hookOf('coder@hk').file))).toMatchObject({ type: 'agent-turn-complete' });
    } finally {
      watches.stop();
    }
  });
});

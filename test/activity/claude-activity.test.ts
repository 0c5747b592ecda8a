/**
 * Issue 4 acceptance with the real Claude Code CLI: the engine reports working during a slow
 * reply, idle after it, needs_input: permission at the permission prompt, needs_input:
 * usage_limit on a 429, and exited when the CLI quits to its shell; each within 2 s.
 */
import { existsSync, mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { observeSeats } from '../../src/main/engine/activity/observe';
import { CLAUDE_SCREEN, readClaudeScreen } from '../../src/main/engine/runtimes/screens/claude';
import { stripSgr } from '../../src/main/engine/runtimes/types';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeClaudeFixture, type ClaudeFixture } from '../agents/claude-fixture';
import { closedPort, startFakeModelServer, type FakeModelServer } from '../agents/fake-model-server';
import { RigWorld } from '../support/rig';
import { waitFor } from '../support/tmux';
import { claudeRigYaml } from '../support/claude-rig';

describe('activity of a real Claude Code seat', () => {
  let server: FakeModelServer;
  let closed: number;
  let w: RigWorld;
  let fx: ClaudeFixture;
  beforeAll(async () => {
    server = await startFakeModelServer({ slowChunks: 6, slowMs: 1000 });
    closed = await closedPort();
  });
  afterAll(async () => {
    await server.close();
    expect(server.requests.every((r) => ['127.0.0.1', '::ffff:127.0.0.1'].includes(r.remoteAddress))).toBe(true);
  });
  beforeEach(async () => {
    w = new RigWorld();
    mkdirSync(join(w.root, 'work'), { recursive: true });
    fx = makeClaudeFixture({
      serverUrl: server.url,
      closedPort: closed,
      trustedCwds: [realpathSync(join(w.root, 'work'))],
      root: join(w.root, 'claude'),
    });
    const up = await w.cli(['up', w.spec('rig.yaml', claudeRigYaml(fx)), '--json']);
    expect(up.code, up.stdout + up.stderr).toBe(0);
  });
  afterEach(async () => {
    await w.shutdown();
  });

  const row = async () => (await w.cli(['ps', '--json'])).json.seats[0];
  /**
   * Waits for a state and returns how long after `since` the engine reported it. One `rigdesk ps`
   * is a whole process (1-3 s on a loaded two-core machine) and the engine's reading is taken
   * somewhere inside it, so the reporting call's midpoint is charged, as the journeys do.
   */
  async function seen(pred: (r: any) => boolean, since: number, what: string): Promise<number> {
    // eslint-disable-line @typescript-eslint/no-explicit-any
    let started = 0;
    await waitFor(
      async () => {
        started = Date.now();
        return pred(await row());
      },
      { timeoutMs: 30_000, intervalMs: 50, what },
    );
    const ended = Date.now();
    const ms = Math.max(0, Math.round((started + ended) / 2) - since);
    console.info(`[claude activity] ${what}: reported ${ms} ms after the change (ps call ${ended - started} ms)`);
    return ms;
  }
  const type = (text: string) => {
    w.tmux.run(['send-keys', '-t', 'lead@act', '-l', text]);
    w.tmux.run(['send-keys', '-t', 'lead@act', 'Enter']);
  };

  it('working during a slow reply, idle after it, each within 2 s', async () => {
    await seen((r) => r.activity === 'idle', Date.now(), 'idle at start');
    // The reply is held open until the screen below has been read: the reading is of a reply in flight.
    server.hold();
    const t0 = Date.now();
    type('tell me HOLD');
    expect(await seen((r) => r.activity === 'working', t0, 'working')).toBeLessThan(2000 + 1000);
    // The same real screen, read with the adapter's signatures, and with them altered: a Claude
    // release that changed its footer or spinner would make this named test fail.
    // ps may say working from Claude's prompt hook before its spinner is drawn (under a busy core,
    // seen once): the reply is held open, so the screen is read once it shows the turn.
    const capture = () => {
      const styled = w.tmux.run(['capture-pane', '-p', '-e', '-t', 'lead@act']).split('\n');
      return { styled, plain: styled.map(stripSgr) };
    };
    const screen = await waitFor(
      () => {
        const s = capture();
        return readClaudeScreen(s).activity === 'working' ? s : undefined;
      },
      { what: "the turn on Claude's screen while its reply is held", timeoutMs: 10_000 },
    ).catch((e: Error) => {
      throw new Error(`${e.message}\n${capture().plain.join('\n')}`);
    });
    const saved = { working: CLAUDE_SCREEN.working, spinner: CLAUDE_SCREEN.spinner };
    const table = CLAUDE_SCREEN as unknown as Record<string, RegExp>;
    try {
      table.working = /esc to stop the turn/;
      table.spinner = /^never$/;
      expect(readClaudeScreen(screen).activity).not.toBe('working');
    } finally {
      table.working = saved.working;
      table.spinner = saved.spinner;
    }
    server.release();
    await waitFor(() => w.tmux.capture('lead@act').includes('tick6'), {
      timeoutMs: 30_000,
      what: 'reply finished on screen',
    });
    const t1 = Date.now();
    expect(await seen((r) => r.activity === 'idle', t1, 'idle after')).toBeLessThan(2000);
  });

  it('needs_input: permission at the permission prompt, within 2 s of the prompt', async () => {
    await seen((r) => r.activity === 'idle', Date.now(), 'idle at start');
    type('RUN: touch perm-test.txt');
    await waitFor(() => w.tmux.capture('lead@act').includes('Do you want to proceed?'), {
      timeoutMs: 30_000,
      what: 'permission prompt on screen',
    });
    const t = Date.now();
    expect(
      await seen((r) => r.activity === 'needs_input' && r.needsInput === 'permission', t, 'needs_input permission'),
    ).toBeLessThan(2000);
  });

  it('a prompt cancelled with Escape reads idle again (the stale busy live state does not win over the idle footer)', async () => {
    await seen((r) => r.activity === 'idle', Date.now(), 'idle at start');
    type('RUN: touch cancelled.txt');
    await seen((r) => r.needsInput === 'permission', Date.now(), 'at the prompt');
    w.tmux.run(['send-keys', '-t', 'lead@act', 'Escape']);
    await waitFor(() => w.tmux.capture('lead@act').includes('? for shortcuts'), {
      timeoutMs: 15_000,
      what: 'idle footer',
    });
    const t = Date.now();
    expect(await seen((r) => r.activity === 'idle' && !r.needsInput, t, 'idle after Escape')).toBeLessThan(2000);
  });

  it('needs_input: usage_limit on a 429, within 2 s of the error', async () => {
    await seen((r) => r.activity === 'idle', Date.now(), 'idle at start');
    type('LIMIT please');
    await waitFor(() => w.tmux.capture('lead@act').includes('Request rejected (429)'), {
      timeoutMs: 30_000,
      what: '429 on screen',
    });
    const t = Date.now();
    expect(await seen((r) => r.needsInput === 'usage_limit', t, 'needs_input usage_limit')).toBeLessThan(2000);
  });

  it('a draft typed by a person shows, and exited when the CLI quits to its shell', async () => {
    await seen((r) => r.activity === 'idle', Date.now(), 'idle at start');
    w.tmux.run(['send-keys', '-t', 'lead@act', '-l', 'half a thought']);
    await seen((r) => r.draft === true, Date.now(), 'draft seen');
    w.tmux.run(['send-keys', '-t', 'lead@act', 'C-u']);
    await seen((r) => !r.draft, Date.now(), 'draft cleared');
    type('/exit');
    await waitFor(() => w.tmux.capture('lead@act').includes('[rigdesk] claude exited'), {
      timeoutMs: 30_000,
      what: 'wrapper reports the exit',
    });
    const t = Date.now();
    expect(await seen((r) => r.activity === 'exited' && r.session === 'exited', t, 'exited')).toBeLessThan(2000);
  });
});

describe("Claude hooks installed into the seat's own isolated config", () => {
  let server: FakeModelServer;
  let w: RigWorld;
  let fx: ClaudeFixture;
  beforeAll(async () => {
    server = await startFakeModelServer();
  });
  afterAll(async () => {
    await server.close();
  });
  afterEach(async () => {
    await w.shutdown();
  });

  it('are merged into its settings (keeping what was there) and report the turn as the strongest evidence', async () => {
    w = new RigWorld();
    mkdirSync(join(w.root, 'work'), { recursive: true });
    fx = makeClaudeFixture({
      serverUrl: server.url,
      closedPort: await closedPort(),
      trustedCwds: [realpathSync(join(w.root, 'work'))],
      root: join(w.root, 'claude'),
    });
    const up = await w.cli(['up', w.spec('rig.yaml', claudeRigYaml(fx)), '--json']);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    const settings = JSON.parse(readFileSync(join(fx.configDir, 'settings.json'), 'utf8'));
    expect(settings.skipDangerousModePermissionPrompt).toBe(true);
    expect(Object.keys(settings.hooks).sort()).toEqual([
      'Notification',
      'PermissionRequest',
      'PostToolUse',
      'PreToolUse',
      'SessionStart',
      'Stop',
      'UserPromptSubmit',
    ]);
    const hookFile = join(w.home, 'hooks', 'lead@act.json');
    await waitFor(() => existsSync(hookFile), { timeoutMs: 30_000, what: 'SessionStart hook' });
    w.tmux.run(['send-keys', '-t', 'lead@act', '-l', 'hello hooks']);
    w.tmux.run(['send-keys', '-t', 'lead@act', 'Enter']);
    await waitFor(() => JSON.parse(readFileSync(hookFile, 'utf8')).hook_event_name === 'Stop', {
      timeoutMs: 30_000,
      what: 'Stop hook',
    });
    expect(JSON.parse(readFileSync(hookFile, 'utf8')).session_id).toBe(up.json.seats[0].launched.conversationId);
    const e = w.engine();
    const o = (await observeSeats(e.ports, await e.roster(), e.store.rigs.seats())).get('lead@act')!;
    expect(o.activity).toMatchObject({ activity: 'idle', needsInput: 'none' });
    expect(o.activity.basis[0]).toMatchObject({ source: 'hook', detail: 'hook Stop' });
  });
});

import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../src/main/engine/api';
import type { PushName } from '../../src/shared/contract';
import type { APP_REQUESTS, WINDOW_REQUESTS } from '../../src/shared/contract/app';
import type { WORKSPACE_REQUESTS } from '../../src/shared/contract/workspace';
import { type ClaudeAppWorld, claudeAppWorld } from '../app/claude-world';
import { WireClient } from '../app/helpers';
import { waitFor } from '../support/tmux';
import { expectAnswer, expectFailure, expectPush } from './support';

/**
 * Every APP and workspace method, every window request and every push kind, on a real engine
 * through `rigdesk serve`'s WebSocket (real tmux, real SQLite; a real Claude Code seat against the
 * fake model server where the answer needs an agent at a permission prompt), each answer parsed
 * against its declared schema, variants and refusals included.
 */
let w: ClaudeAppWorld;
let c: WireClient;
beforeAll(async () => {
  w = await claudeAppWorld();
  c = await WireClient.open(w.serve);
}, 120_000);
afterAll(async () => {
  c?.close();
  await w?.cleanup();
}, 60_000);

const pane = () => w.engine.store.sessions.live('lead@act')!.paneId;
const screen = () => w.world.tmux.capture(pane());
const rowOf = async (seat: string) => {
  const ps = await dispatch(w.engine, 'ps', {});
  return ps.ok ? ps.seats.find((s: { seat: string }) => s.seat === seat) : undefined;
};

async function claudeAtPrompt(file: string): Promise<void> {
  await waitFor(async () => (await rowOf('lead@act'))?.activity === 'idle', {
    timeoutMs: 60_000,
    what: 'Claude idle',
  });
  w.world.tmux.run(['send-keys', '-t', pane(), '-l', `RUN: touch ${file}`]);
  w.world.tmux.run(['send-keys', '-t', pane(), 'Enter']);
  await waitFor(() => screen().includes('Do you want to proceed?'), { timeoutMs: 30_000, what: 'permission prompt' });
  await waitFor(async () => (await rowOf('lead@act'))?.needsInput === 'permission', { what: 'needs_input' });
}

const APP: Record<keyof typeof APP_REQUESTS, () => Promise<void>> = {
  topology: async () => {
    expectAnswer('topology', await c.call('topology', {}));
    expectAnswer('topology', await c.call('topology', { rig: 'act' }));
    expectFailure('topology', await c.call('topology', { rig: 'nope' }), 'RIG_NOT_FOUND');
  },
  'prompts.list': async () => {
    const none = expectAnswer('prompts.list', await c.call('prompts.list', {}));
    expect(none.prompts).toEqual([]);
    await claudeAtPrompt('contract.txt');
    const some = expectAnswer('prompts.list', await c.call('prompts.list', { rig: 'act' }));
    expect(some.prompts).toMatchObject([
      { seat: 'lead@act', reason: 'permission', choices: ['approve', 'allow_always', 'deny', 'deny_with_message'] },
    ]);
  },
  'prompts.answer': async () => {
    const listed = await c.call('prompts.list', {});
    const fp = listed.prompts[0].fingerprint;
    const r = await c.call('prompts.answer', { seat: 'lead@act', choice: 'approve', fingerprint: fp, by: 'contract' });
    const body = expectAnswer('prompts.answer', r);
    expect(body.answered).toMatchObject({ seat: 'lead@act', choice: 'approve', keys: ['Enter'], fingerprint: fp });
    await waitFor(() => existsSync(join(w.work, 'contract.txt')), { timeoutMs: 15_000, what: 'the approved call ran' });
    expectFailure('prompts.answer', await c.call('prompts.answer', { seat: 'sh@act', choice: 'approve' }));
  },
  'seat.reply': async () => {
    // After the approved call: Claude's reply to the tool's result is its last reply on screen.
    await waitFor(async () => (await rowOf('lead@act'))?.activity === 'idle', {
      timeoutMs: 60_000,
      what: 'Claude idle',
    });
    const r = expectAnswer('seat.reply', await c.call('seat.reply', { seat: 'lead@act' }));
    // The turn from the person's message on: the tool call it made, then its reply to the result.
    const lines = r.lines as string[];
    expect(lines[0]).toMatch(/^● Bash\(touch contract\.txt\)/);
    expect(lines.some((l) => /^● ACK tool result/.test(l))).toBe(true);
    expect(expectAnswer('seat.reply', await c.call('seat.reply', { seat: 'sh@act' })).lines).toEqual([]);
    expectFailure('seat.reply', await c.call('seat.reply', { seat: 'ghost@act' }), 'SEAT_NOT_FOUND');
  },
  open: async () => {
    expectAnswer('open', await c.call('open', { link: 'rigdesk://seat/act/sh' }));
    expectFailure('open', await c.call('open', { link: 'rigdesk://seat/act/ghost' }), 'SEAT_NOT_FOUND');
  },
  'shim.install': async () => {
    // A window may not write onto the person's PATH; the engine's own answer (CLI, menu) is typed.
    expectFailure('shim.install', await c.call('shim.install', { plan: true }), 'BAD_USAGE');
    const dir = join(w.world.root, 'shim-bin');
    const plan = expectAnswer('shim.install', await dispatch(w.engine, 'shim.install', { dir, plan: true }));
    expect(plan.shim).toMatchObject({ action: 'would_install' });
    expectAnswer('shim.install', await dispatch(w.engine, 'shim.install', { dir }));
    expectAnswer('shim.install', await dispatch(w.engine, 'shim.install', { dir, remove: true }));
  },
};

let term = 0;
const WINDOW: Record<keyof typeof WINDOW_REQUESTS, () => Promise<void>> = {
  'terminal.open': async () => {
    const r = expectAnswer('terminal.open', await c.call('terminal.open', { seat: 'sh@act', cols: 80, rows: 24 }));
    term = Number(r.term);
    expectFailure('terminal.open', await c.call('terminal.open', { seat: 'ghost@act', cols: 80, rows: 24 }));
  },
  'terminal.resize': async () => {
    expectAnswer('terminal.resize', await c.call('terminal.resize', { term, cols: 100, rows: 30 }));
    expectFailure('terminal.resize', await c.call('terminal.resize', { term: 999_999, cols: 100, rows: 30 }));
  },
  'terminal.close': async () => {
    expectAnswer('terminal.close', await c.call('terminal.close', { term }));
    expectFailure('terminal.close', await c.call('terminal.close', { term }), 'BAD_USAGE');
  },
  'window.attention': async () => {
    const r = expectAnswer('window.attention', await c.call('window.attention', { seat: 'lead@act', visible: true }));
    expect(r.watched).toBeGreaterThanOrEqual(1);
    expect(w.serve.ctx.pushes.watching.isWatched('lead@act')).toBe(true);
    expectAnswer('window.attention', await c.call('window.attention', { seat: null, visible: false }));
    expect(w.serve.ctx.pushes.watching.isWatched('lead@act')).toBe(false);
    expectFailure('window.attention', await c.call('window.attention', { seat: 7 }), 'BAD_USAGE');
  },
};

const WORKSPACE: Record<keyof typeof WORKSPACE_REQUESTS, () => Promise<void>> = {
  'workspace.runtimes': async () => {
    const r = expectAnswer('workspace.runtimes', await c.call('workspace.runtimes', {}));
    expect(r.runtimes).toEqual(expect.arrayContaining([expect.objectContaining({ runtime: 'shell' })]));
  },
  'workspace.newRig': async () => {
    const folder = join(w.world.root, 'first');
    mkdirSync(folder, { recursive: true });
    const p = { name: 'first', folder, runtime: 'shell', members: 2 };
    const plan = expectAnswer('workspace.newRig', await c.call('workspace.newRig', { ...p, write: false }));
    expect(plan).toMatchObject({ written: false, path: join(folder, 'first.rig.yaml') });
    expect(existsSync(String(plan.path))).toBe(false);
    expectAnswer('workspace.newRig', await c.call('workspace.newRig', { ...p, write: true }));
    expect(existsSync(String(plan.path))).toBe(true);
    expectFailure('workspace.newRig', await c.call('workspace.newRig', { ...p, write: true }), 'BAD_USAGE');
    const bad = { ...p, name: 'second', folder: join(folder, 'missing'), write: false };
    expectFailure('workspace.newRig', await c.call('workspace.newRig', bad), 'CWD_MISSING');
  },
  'workspace.timeline': async () => {
    const r = expectAnswer('workspace.timeline', await c.call('workspace.timeline', { seat: 'lead@act', limit: 5 }));
    expect((r.events as unknown[]).length).toBeGreaterThan(0);
    expectFailure('workspace.timeline', await c.call('workspace.timeline', { seat: 'ghost@act' }), 'SEAT_NOT_FOUND');
  },
  'workspace.history': async () => {
    const r = expectAnswer('workspace.history', await c.call('workspace.history', {}));
    expect(r.items).toEqual(
      expect.arrayContaining([expect.objectContaining({ kind: 'prompt', choice: 'approve', by: 'contract' })]),
    );
    expectAnswer('workspace.history', await c.call('workspace.history', { rig: 'act', limit: 1 }));
  },
  'workspace.files': async () => {
    writeFileSync(join(w.world.root, 'some.yaml'), 'name: x\n');
    const r = expectAnswer('workspace.files', await c.call('workspace.files', { dir: w.world.root }));
    expect(r.entries).toEqual(expect.arrayContaining([{ name: 'some.yaml', kind: 'spec' }]));
    expectFailure('workspace.files', await c.call('workspace.files', { dir: join(w.world.root, 'nope') }));
  },
  'workspace.layout': async () => {
    expectAnswer('workspace.layout', await c.call('workspace.layout', {}));
  },
  'workspace.saveLayout': async () => {
    const layout = {
      grid: '2x2',
      slots: ['lead@act', 'sh@act', null, null],
      pinned: [true, false, false, false],
      focus: 1,
      magnified: false,
      rail: true,
      panel: 'decisions',
    };
    expectAnswer('workspace.saveLayout', await c.call('workspace.saveLayout', { layout }));
    const back = expectAnswer('workspace.layout', await c.call('workspace.layout', {}));
    expect(back.layout).toEqual(layout);
    expectFailure('workspace.saveLayout', await c.call('workspace.saveLayout', { layout: { grid: '4x4' } }));
  },
};

/** Every push kind, as the serve host sends them to this connection. */
const PUSHES: Record<PushName, () => Promise<void>> = {
  seats: async () => {
    const m = await c.next((x) => x.push === 'seats', 15_000);
    expectPush('seats', m.data);
  },
  prompts: async () => {
    await claudeAtPrompt('pushed.txt');
    const m = await c.next((x) => x.push === 'prompts' && x.data.prompts.length > 0, 15_000);
    expectPush('prompts', m.data);
    // Answered, it is pushed again with nothing waiting.
    expectAnswer('prompts.answer', await c.call('prompts.answer', { seat: 'lead@act', choice: 'deny' }));
    const none = await c.next((x) => x.push === 'prompts' && x.data.prompts.length === 0, 15_000);
    expectPush('prompts', none.data);
  },
  event: async () => {
    const m = await c.next((x) => x.push === 'event', 15_000);
    expectPush('event', m.data);
  },
  focus: async () => {
    await c.call('open', { link: 'rigdesk://seat/act/lead' });
    const m = await c.next((x) => x.push === 'focus');
    expectPush('focus', m.data);
  },
  'terminal.exit': async () => {
    const t = (await c.call('terminal.open', { seat: 'sh@act', cols: 80, rows: 24 })).term;
    expect(await dispatch(w.engine, 'stop', { seat: 'sh@act' })).toMatchObject({ ok: true });
    const m = await c.next((x) => x.push === 'terminal.exit' && x.data.term === t, 15_000);
    expectPush('terminal.exit', m.data);
  },
};

describe('APP answers over rigdesk serve', () => {
  for (const [method, run] of Object.entries(APP)) it(method, run, 120_000);
});
describe('window requests over rigdesk serve', () => {
  for (const [method, run] of Object.entries(WINDOW)) it(method, run, 60_000);
});
describe('workspace answers over rigdesk serve', () => {
  for (const [method, run] of Object.entries(WORKSPACE)) it(method, run, 60_000);
});
describe('pushes over rigdesk serve', () => {
  for (const [name, run] of Object.entries(PUSHES)) it(name, run, 60_000);
});

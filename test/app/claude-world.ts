import { existsSync, mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { makeClaudeFixture, type ClaudeFixture } from '../agents/claude-fixture';
import { makeCodexFixture } from '../agents/codex-fixture';
import { waitForExit } from '../agents/claude-run';
import {
  closedPort,
  type FakeModelServer,
  type FakeModelServerOptions,
  startFakeModelServer,
} from '../agents/fake-model-server';
import { dispatch } from '../../src/main/engine/api';
import type { Engine } from '../../src/main/engine/engine';
import { descendants, liveProcReader } from '../../src/main/engine/proc';
import { startServe, type ServeHandle } from '../../src/server/serve';
import { ActivityMonitor } from '../../src/main/engine/activity/monitor';
import { PushHub } from '../../src/main/window-hub/pushes';
import { RigWorld } from '../support/rig';
import { RENDERER_DIR } from './helpers';

export interface ClaudeAppWorld extends AgentAppWorld {
  fx: ClaudeFixture;
}

export interface AgentAppWorld {
  world: RigWorld;
  engine: Engine;
  serve: ServeHandle;
  /** The serve host's pushes (for their poll counts). */
  pushes: PushHub;
  model: FakeModelServer;
  fx: { env: Record<string, string> };
  /** The agent seat's working folder. */
  work: string;
  cleanup(): Promise<void>;
}

/**
 * A real engine and serve host with rig `act`: `lead`, the real Claude Code CLI against the fake
 * model server on 127.0.0.1 (its `RUN: <cmd>` asks for a Bash tool call, so a permission prompt),
 * and `sh`, a plain shell seat.
 */
export async function claudeAppWorld(model: FakeModelServerOptions = {}): Promise<ClaudeAppWorld> {
  return (await agentAppWorld('claude-code', model)) as ClaudeAppWorld;
}

/** The same world with `lead` on another agent CLI (Codex: its TUI, the same fake server). */
export async function agentAppWorld(
  runtime: 'claude-code' | 'codex',
  modelOptions: FakeModelServerOptions = {},
): Promise<AgentAppWorld> {
  if (!existsSync(join(RENDERER_DIR, 'index.html')))
    throw new Error(`no built renderer at ${RENDERER_DIR}: run \`npx electron-vite build\` first`);
  const model = await startFakeModelServer(modelOptions);
  const world = new RigWorld();
  const work = join(world.root, 'work');
  mkdirSync(work, { recursive: true });
  const opts = { serverUrl: model.url, closedPort: await closedPort(), trustedCwds: [realpathSync(work)] };
  const fx =
    runtime === 'codex'
      ? makeCodexFixture({ ...opts, root: join(world.root, 'codex') })
      : makeClaudeFixture({ ...opts, root: join(world.root, 'claude') });
  const env = Object.entries(fx.env)
    .map(([k, v]) => `          ${k}: ${JSON.stringify(v)}`)
    .join('\n');
  const yaml = `name: act\npods:\n  - id: p\n    members:\n      - id: lead\n        runtime: ${runtime}\n        cwd: ./work\n        env:\n${env}\n      - { id: sh, runtime: shell, cwd: ., command: bash, args: ["--noprofile", "--norc"] }\nedges:\n  - { from: lead, to: sh, kind: delegates_to }\n`;
  const engine = world.engine();
  const up = await dispatch(engine, 'up', { spec: world.spec('act.yaml', yaml) });
  if (!up.ok) throw new Error(`up failed: ${JSON.stringify(up)}`);
  // As `rigdesk serve` runs: an activity monitor writes each change as an event row, and the
  // window's seats are polled when events arrive (and at rest every 5 s), not every second.
  const monitor = new ActivityMonitor(engine.ports);
  await monitor.start();
  const pushes = new PushHub(engine, { activityEvents: true });
  const serve = await startServe({ engine, port: 0, staticDir: RENDERER_DIR, pushes });
  return {
    world,
    engine,
    serve,
    pushes,
    model,
    fx,
    work,
    cleanup: async () => {
      monitor.stop();
      await serve.close();
      // Claude's own children outlive a killed server for a moment; wait for them by pid.
      const pids = world.sessions().length
        ? world.tmux.run(['list-panes', '-a', '-F', '#{pane_pid}']).trim().split('\n').map(Number)
        : [];
      const snap = liveProcReader().snapshot();
      const all = pids.flatMap((p) => [p, ...descendants(snap, p).map((d) => d.pid)]);
      world.tmux.kill();
      for (const p of all) await waitForExit(p, 5000);
      world.cleanup();
      await model.close();
    },
  };
}

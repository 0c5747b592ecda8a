import { existsSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { dispatch } from '../../src/main/engine/api';
import { ActivityMonitor } from '../../src/main/engine/activity/monitor';
import type { Engine } from '../../src/main/engine/engine';
import { startServe, type ServeHandle } from '../../src/server/serve';
import { PushHub } from '../../src/main/window-hub/pushes';
import { REPO, RigWorld, shellRigYaml } from '../support/rig';

export const RENDERER_DIR = join(REPO, 'out', 'renderer');

export interface AppWorld {
  world: RigWorld;
  engine: Engine;
  serve: ServeHandle;
  rig: string;
  /** Started only on request: `rigdesk serve` runs one, and benches must pay for it too. */
  monitor?: ActivityMonitor;
  cleanup(): Promise<void>;
}

/** A real engine on a private tmux server with a three-seat shell rig, and the serve host on it. */
export async function appWorld(
  rig = 'trio',
  members = ['lead', 'worker1', 'worker2'],
  opts: { monitor?: boolean; yaml?: string; seed?: (engine: Engine) => void; env?: Record<string, string> } = {},
): Promise<AppWorld> {
  if (!existsSync(join(RENDERER_DIR, 'index.html')))
    throw new Error(`no built renderer at ${RENDERER_DIR}: run \`npx electron-vite build\` first`);
  const world = new RigWorld(opts.env);
  const engine = world.engine();
  const spec = world.spec(`${rig}.yaml`, opts.yaml ?? shellRigYaml(rig, members, edgesYaml(members)));
  const up = await dispatch(engine, 'up', { spec });
  if (!up.ok) throw new Error(`up failed: ${JSON.stringify(up)}`);
  // What the store holds before any window connects (a long event log), so none of it is pushed as news.
  opts.seed?.(engine);
  // With a monitor, as `rigdesk serve` runs: the window's seats are polled when events arrive.
  const serve = await startServe({
    engine,
    port: 0,
    staticDir: RENDERER_DIR,
    ...(opts.monitor ? { pushes: new PushHub(engine, { activityEvents: true }) } : {}),
  });
  const monitor = opts.monitor ? new ActivityMonitor(engine.ports) : undefined;
  await monitor?.start();
  return {
    world,
    engine,
    serve,
    rig,
    monitor,
    cleanup: async () => {
      monitor?.stop();
      await serve.close();
      world.cleanup();
    },
  };
}

/** A minimal WebSocket client of the window contract, as a test sees the wire. */
export class WireClient {
  readonly ws: WebSocket;
  readonly texts: any[] = []; // eslint-disable-line @typescript-eslint/no-explicit-any
  readonly frames: Buffer[] = [];
  private waiters: (() => void)[] = [];
  closed = false;
  constructor(url: string, headers: Record<string, string> = {}) {
    this.ws = new WebSocket(url, { headers });
    this.ws.on('message', (d, bin) => {
      if (bin) this.frames.push(d as Buffer);
      else this.texts.push(JSON.parse(String(d)));
      for (const w of this.waiters.splice(0)) w();
    });
    this.ws.on('close', () => {
      this.closed = true;
      for (const w of this.waiters.splice(0)) w();
    });
    this.ws.on('error', () => undefined);
  }
  static async open(serve: ServeHandle): Promise<WireClient> {
    const c = new WireClient(`ws://127.0.0.1:${serve.port}/ws?token=${serve.token}`, {
      origin: `http://127.0.0.1:${serve.port}`,
    });
    await new Promise<void>((res, rej) => {
      c.ws.once('open', () => res());
      c.ws.once('unexpected-response', (_q, r) => rej(new Error(`refused ${r.statusCode}`)));
      c.ws.once('error', rej);
    });
    return c;
  }
  async next(pred: (m: any) => boolean, timeoutMs = 10_000): Promise<any> {
    // eslint-disable-line @typescript-eslint/no-explicit-any
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = this.texts.findIndex(pred);
      if (i >= 0) return this.texts.splice(i, 1)[0];
      if (this.closed) throw new Error('socket closed');
      if (Date.now() > deadline) throw new Error('timed out waiting for a message');
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 200);
      });
    }
  }
  private nextId = 1;
  async call(method: string, params: unknown, timeoutMs?: number): Promise<any> {
    // eslint-disable-line @typescript-eslint/no-explicit-any
    const id = this.nextId++;
    this.ws.send(JSON.stringify({ id, method, params }));
    return (await this.next((m) => m.id === id, timeoutMs)).result;
  }
  close(): void {
    this.ws.close();
  }
}

/** Edges between consecutive members: the first delegates to the second, the rest collaborate. */
function edgesYaml(m: string[]): string {
  if (m.length < 2) return '';
  return [
    'edges:',
    ...m
      .slice(1)
      .map((to, i) => `  - { from: ${m[i]}, to: ${to}, kind: ${i === 0 ? 'delegates_to' : 'collaborates_with'} }`),
  ].join('\n');
}

/** A shell rig of `n` seats in two pods (`alpha`, `beta`), the lead of each delegating to its pod. */
export function twoPodRigYaml(rig: string, n: number): string {
  const half = Math.ceil(n / 2);
  const member = (id: string) =>
    `      - { id: ${id}, runtime: shell, cwd: ., command: bash, args: ["--noprofile", "--norc"] }`;
  const a = Array.from({ length: half }, (_, i) => `a${i + 1}`);
  const b = Array.from({ length: n - half }, (_, i) => `b${i + 1}`);
  return [
    `name: ${rig}`,
    'pods:',
    '  - id: alpha',
    '    members:',
    ...a.map(member),
    '  - id: beta',
    '    members:',
    ...b.map(member),
    'edges:',
    ...a.slice(1).map((m) => `  - { from: a1, to: ${m}, kind: delegates_to }`),
    ...b.slice(1).map((m) => `  - { from: b1, to: ${m}, kind: delegates_to }`),
    '',
  ].join('\n');
}

/**
 * A rig of `n` shell seats in pods of ten (`pod1`…): each pod's lead delegates to its members, who
 * escalate back or collaborate, and the first lead delegates to every other pod's lead.
 */
export function podRigYaml(rig: string, n: number): string {
  const pods = Math.ceil(n / 10);
  const lines = [`name: ${rig}`, 'pods:'];
  const edges: string[] = [];
  for (let p = 0; p < pods; p++) {
    lines.push(`  - id: pod${p + 1}`, '    members:');
    const members = Array.from({ length: Math.min(10, n - p * 10) }, (_, i) => `p${p + 1}m${i + 1}`);
    for (const m of members)
      lines.push(`      - { id: ${m}, runtime: shell, cwd: ., command: bash, args: ["--noprofile", "--norc"] }`);
    for (const [i, m] of members.slice(1).entries()) {
      edges.push(`  - { from: ${members[0]}, to: ${m}, kind: delegates_to }`);
      if (i % 3 === 0) edges.push(`  - { from: ${m}, to: ${members[0]}, kind: escalates_to }`);
      if (i % 3 === 1 && members[i + 2])
        edges.push(`  - { from: ${m}, to: ${members[i + 2]}, kind: collaborates_with }`);
    }
    if (p > 0) edges.push(`  - { from: p1m1, to: p${p + 1}m1, kind: delegates_to }`);
  }
  return [...lines, 'edges:', ...edges, ''].join('\n');
}

/** The window's URL with the contract checked in the page: every answer and push is parsed. */
export const strictUrl = (serve: ServeHandle, hash = '') => `${serve.url}&strict=1${hash}`;

/** A stopped shell seat's open restore decision (its transcript missing): a seat that needs the person. */
export function openRestoreDecision(engine: Engine, seat: string, rig: string): void {
  engine.store.restore.decisions.open({
    seat,
    rig,
    reason: 'transcript_missing',
    runtime: 'shell',
    conversationId: null,
    snapshotId: null,
    choices: ['fresh', 'leave_stopped'],
    evidence: {},
  });
}

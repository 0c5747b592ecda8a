import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import WebSocket from 'ws';
import { RIGDESK_BIN, RigWorld, shellRigYaml } from '../test/support/rig';
import { waitFor } from '../test/support/tmux';
import { machineFacts } from './machine';

/**
 * Issue 32's load case: 50 CLI clients at once on a serving engine's socket (ps, send, events) and
 * 20 windows at once on its WebSocket. Every one must be answered and none starved (the slowest is
 * printed beside the p95). Real `rigdesk serve`, real tmux on a private socket, real shell seats.
 */
const CLIENTS = Number(process.env.RDBENCH_CLIENTS ?? 50);
const WINDOWS = Number(process.env.RDBENCH_WINDOWS ?? 20);
const SEATS = 10;

let w: RigWorld | undefined;
let serve: ChildProcess | undefined;
afterAll(async () => {
  serve?.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 1000));
  w?.cleanup();
});

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : 0;
};
/** p50, p95 and the slowest of a set of timings, in whole ms. */
const spread = (ms: number[]) => ({
  p50: Math.round(pct(ms, 50)),
  p95: Math.round(pct(ms, 95)),
  max: Math.round(Math.max(...ms)),
});

function cliTimed(args: string[]): Promise<{ ms: number; code: number | null }> {
  const t0 = performance.now();
  return new Promise((res) => {
    const p = spawn(process.execPath, [RIGDESK_BIN, ...args], { env: w!.env, stdio: 'ignore' });
    p.on('exit', (code) => res({ ms: performance.now() - t0, code }));
  });
}

function windowTimed(url: URL): Promise<{ ms: number; ok: boolean }> {
  const t0 = performance.now();
  return new Promise((res) => {
    const ws = new WebSocket(`ws://${url.host}/ws?token=${url.searchParams.get('token')}`, {
      headers: { origin: `http://${url.host}` },
    });
    const done = (ok: boolean) => (ws.close(), res({ ms: performance.now() - t0, ok }));
    const timer = setTimeout(() => done(false), 60_000);
    ws.on('open', () => ws.send(JSON.stringify({ id: 1, method: 'ps', params: {} })));
    ws.on('message', (d, bin) => {
      if (bin) return;
      const m = JSON.parse(String(d));
      if (m.id === 1) clearTimeout(timer), done(Boolean(m.result?.ok ?? m.result));
    });
    ws.on('error', () => (clearTimeout(timer), done(false)));
  });
}

it('50 CLI clients and 20 windows at once on one serving engine: all answered, p95 printed', async () => {
  w = new RigWorld();
  const members = Array.from({ length: SEATS }, (_, i) => `s${i}`);
  expect((await w.cli(['up', w.spec('load.yaml', shellRigYaml('load', members))])).code).toBe(0);
  serve = spawn(process.execPath, [RIGDESK_BIN, 'serve', '--json'], { env: w.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  serve.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const url = await waitFor(
    () => {
      const line = out.split('\n').find((l) => l.includes('"serving"'));
      return line ? new URL(JSON.parse(line).url as string) : undefined;
    },
    { what: 'serve up', timeoutMs: 30_000 },
  );
  const kinds = ['ps', 'send', 'events'] as const;
  const argsOf = (i: number): string[] => {
    const k = kinds[i % 3]!;
    if (k === 'ps') return ['ps', '--json'];
    if (k === 'events') return ['events', '--json'];
    return ['send', `s${i % SEATS}@load`, `echo load-${i}`, '--wait-for-idle', '30', '--json'];
  };
  const t0 = performance.now();
  const cli = await Promise.all(Array.from({ length: CLIENTS }, (_, i) => cliTimed(argsOf(i))));
  const cliWall = performance.now() - t0;
  const t1 = performance.now();
  const win = await Promise.all(Array.from({ length: WINDOWS }, () => windowTimed(url)));
  const winWall = performance.now() - t1;
  const byKind = Object.fromEntries(
    kinds.map((k) => {
      const ms = cli.filter((_, i) => kinds[i % 3] === k).map((r) => r.ms);
      return [k, { n: ms.length, ...spread(ms) }];
    }),
  );
  const result = {
    bench: 'load',
    at: new Date().toISOString(),
    machine: machineFacts(),
    cli: {
      clients: CLIENTS,
      answered: cli.filter((r) => r.code === 0).length,
      codes: cli.map((r) => r.code),
      wallMs: Math.round(cliWall),
      ...spread(cli.map((r) => r.ms)),
      byKind,
    },
    windows: {
      windows: WINDOWS,
      answered: win.filter((r) => r.ok).length,
      wallMs: Math.round(winWall),
      ...spread(win.map((r) => r.ms)),
    },
  };
  console.info(JSON.stringify(result, null, 2));
  const dir = join(__dirname, 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, `load-${result.at.replace(/[:.]/g, '-').replace(/-\d+Z$/, 'Z')}.json`),
    `${JSON.stringify(result, null, 2)}\n`,
  );
  expect(result.cli.answered).toBe(CLIENTS);
  expect(result.windows.answered).toBe(WINDOWS);
}, 600_000);

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { RigWorld } from '../support/rig';
import { waitFor } from '../support/tmux';

/**
 * A world with one `tee -a out.txt` seat (`sink@q`): every line typed into it lands in out.txt, so
 * a test counts notices exactly. `-a` keeps the lines of earlier occupants across a relaunch.
 */
export async function teeWorld(): Promise<RigWorld> {
  const w = new RigWorld();
  const spec = w.spec(
    'rig.yaml',
    'name: q\npods:\n  - id: p\n    members:\n      - { id: sink, runtime: shell, cwd: ., command: tee, args: ["-a", "out.txt"] }\n      - { id: other, runtime: shell, cwd: ., command: tee, args: ["-a", "other.txt"] }\n',
  );
  const up = await w.cli(['up', spec, '--json']);
  expect(up.code, up.stdout + up.stderr).toBe(0);
  await waitForIdle(w, 'sink@q');
  return w;
}

export async function waitForIdle(w: RigWorld, seat: string): Promise<void> {
  await waitFor(
    async () =>
      (await w.cli(['ps', '--json'])).json.seats.find((s: { seat: string }) => s.seat === seat)?.activity === 'idle',
    { what: `${seat} idle`, timeoutMs: 20_000 },
  );
}

/** The notices that reached the seat's program, one per line. */
export function notices(w: RigWorld, file = 'out.txt'): string[] {
  const p = join(w.root, file);
  return existsSync(p)
    ? readFileSync(p, 'utf8')
        .split('\n')
        .filter((l) => l.includes('[rigdesk]'))
    : [];
}

/** Waits until at least n notices arrived, then a little longer so a late duplicate would show. */
export async function settleNotices(w: RigWorld, n: number, file = 'out.txt'): Promise<string[]> {
  if (n > 0) await waitFor(() => notices(w, file).length >= n, { what: `${n} notice(s) in ${file}` });
  await new Promise((r) => setTimeout(r, 400));
  return notices(w, file);
}

export async function add(w: RigWorld, seat: string, text: string, extra: string[] = []): Promise<number> {
  const r = await w.cli(['queue', 'add', seat, text, ...extra, '--json']);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  return r.json.item.id as number;
}

export async function wake(
  w: RigWorld,
  extra: string[] = [],
): Promise<{ seat: string; outcome: string; token?: string; why?: string }[]> {
  const r = await w.cli(['queue', 'wake', ...extra, '--json']);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  return r.json.wakes;
}

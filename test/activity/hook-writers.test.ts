/**
 * The hook programs Rigdesk installs, run by real /bin/sh as Codex and Claude Code run them, many
 * at once on one seat's hook file (Codex notifies for its title side thread and the turn within
 * moments; Claude fires several hooks around one tool call): the file is always one writer's whole
 * event, never one JSON followed by the tail of a longer one.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claudeHookCommand } from '../../src/main/engine/runtimes/hooks/claude';
import { codexNotifyArgv } from '../../src/main/engine/runtimes/hooks/codex';

const ROUNDS = 15;
const WRITERS = 16;
/** Payloads of different lengths: a shorter one written over a longer one shows any overlap. */
const payload = (i: number) => JSON.stringify({ type: 'agent-turn-complete', n: i, pad: 'x'.repeat(40 * (i % 5)) });

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rd-hook-writers-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const run = (argv: string[], stdin?: string) =>
  new Promise<number | null>((res) => {
    const p = spawn(argv[0]!, argv.slice(1), { stdio: [stdin === undefined ? 'ignore' : 'pipe', 'ignore', 'ignore'] });
    if (stdin !== undefined) p.stdin!.end(stdin);
    p.once('exit', (code) => res(code));
  });

async function race(file: string, start: (i: number) => Promise<number | null>): Promise<void> {
  const sent = new Set(Array.from({ length: WRITERS }, (_, i) => payload(i)));
  for (let r = 0; r < ROUNDS; r++) {
    const codes = await Promise.all(Array.from({ length: WRITERS }, (_, i) => start(i)));
    expect(codes.every((c) => c === 0)).toBe(true);
    const text = readFileSync(file, 'utf8');
    expect(sent.has(text), `round ${r}: the hook file is not one writer's event: ${text.slice(0, 400)}`).toBe(true);
  }
  // Every writer moved its own temporary file away.
  expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
}

describe('hook programs writing one seat hook file at once (real /bin/sh)', () => {
  it("Codex's notify program: the payload as its last argument", async () => {
    const file = join(dir, 'coder@r.json');
    const argv = codexNotifyArgv(file, 'coder@r');
    await race(file, (i) => run([...argv, payload(i)]));
  });

  it("Codex's notify program on another host, beside the engine's fifo (here: none, so no write there)", async () => {
    const file = join(dir, 'coder@r.json');
    const argv = codexNotifyArgv(file, 'coder@r', join(dir, 'no-fifo'));
    await race(file, (i) => run([...argv, payload(i)]));
  });

  it("Claude Code's hook command: the event on stdin", async () => {
    const file = join(dir, 'lead@r.json');
    const command = claudeHookCommand(file, 'lead@r');
    await race(file, (i) => run(['/bin/sh', '-c', command], payload(i)));
  });

  it('the hook command is valid shell as Claude runs it (sh -c), and keeps its mark', async () => {
    const command = claudeHookCommand(join(dir, "it's here.json"), 'lead@r');
    expect(command).toMatch(/# rigdesk-activity-hook$/);
    const code = await new Promise<number>((res) =>
      execFile('/bin/sh', ['-n', '-c', command], (err) => res(err ? 1 : 0)),
    );
    expect(code).toBe(0);
  });
});

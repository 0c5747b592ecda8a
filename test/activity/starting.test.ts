/**
 * Issue 32: a seat that is starting is `starting`, not `working`. A send to it says so
 * (SEAT_STARTING with a hint, nothing typed) or, with --wait-for-idle, waits for it to be ready.
 * Real tmux, real bash, the real built CLI.
 */
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  constants,
  mkdirSync,
  openSync,
  writeSync,
  readFileSync,
  realpathSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CLAUDE_BIN, makeClaudeFixture } from '../agents/claude-fixture';
import { closedPort, startFakeModelServer, type FakeModelServer } from '../agents/fake-model-server';
import { claudeRigYaml } from '../support/claude-rig';
import { RigWorld } from '../support/rig';
import { waitFor } from '../support/tmux';

/**
 * A real bash whose start-up file takes 4 s (its `sleep` is in front meanwhile, as a slow rc's
 * children are); with `gate`, it waits instead until something is written to that FIFO (`cat` in front).
 */
function slowBashRig(w: RigWorld, gate?: string): string {
  const wait = gate ? `cat ${JSON.stringify(gate)} >/dev/null` : 'sleep 4';
  w.spec('slow.rc', `${wait}\nPS1="ready$ "\n`);
  return w.spec(
    'rig.yaml',
    `name: st\npods:\n  - id: p\n    members:\n      - { id: sh, runtime: shell, cwd: ., command: bash, args: ["--noprofile", "--rcfile", ${JSON.stringify(join(w.root, 'slow.rc'))}] }\n`,
  );
}

describe('a starting seat (real tmux, real bash)', () => {
  let w: RigWorld;
  beforeEach(() => {
    w = new RigWorld();
  });
  afterEach(() => w.cleanup());

  const row = async () => (await w.cli(['ps', '--json'])).json.seats[0];
  /** Every activity ps reads until the shell is idle. */
  const seenUntilIdle = async () => {
    const seen: string[] = [];
    await waitFor(
      async () => {
        const a = (await row()).activity;
        seen.push(a);
        return a === 'idle';
      },
      { timeoutMs: 20_000, what: 'an idle shell' },
    );
    return seen;
  };

  it('right after up a send answers SEAT_STARTING (not SEND_HELD "in the middle of a turn"), and the seat is idle after', async () => {
    // Through the CLI, as a person runs it. The start-up file waits on a FIFO until the send has
    // answered, so a slow machine cannot let it end first. Open: up, ps and send (a process each)
    // must still fit in the shell's 5 s start time; and for a moment at launch a look can read bash
    // before its start-up file runs (`idle`: its own prompt process in front).
    const gate = join(w.root, 'gate');
    execFileSync('mkfifo', [gate]);
    const up = await w.cli(['up', slowBashRig(w, gate), '--json']);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    const early = await row();
    expect(early.activity).toBe('starting');
    const sent = await w.cli(['send', 'sh@st', 'echo typed-too-early', '--json']);
    expect(sent.code).not.toBe(0);
    expect(sent.json).toMatchObject({ code: 'SEAT_STARTING', evidence: { why: 'starting' } });
    expect(sent.json.hint).toContain('--wait-for-idle');
    expect(sent.json.message).toContain('starting');
    // Non-blocking: with no reader (the rc not waiting) this throws ENXIO rather than hang the run.
    const fd = openSync(gate, constants.O_WRONLY | constants.O_NONBLOCK);
    writeSync(fd, 'go\n');
    closeSync(fd);
    const seen = await seenUntilIdle();
    expect(seen).not.toContain('working');
    expect(w.tmux.run(['capture-pane', '-p', '-t', 'sh@st'])).not.toContain('typed-too-early');
    const ev = await w.cli(['events', '--seat', 'sh@st', '--json']);
    const labels = ev.json.events
      .filter((e: { kind: string }) => e.kind === 'seat.activity')
      .map((e: { data: { label: string } }) => e.data.label);
    expect(labels).not.toContain('working');
    expect(ev.json.events.find((e: { kind: string }) => e.kind === 'seat.send_held').data.code).toBe('SEAT_STARTING');
  });

  it('with --wait-for-idle a send to a starting seat waits for it to be ready, past a shorter wait, and is typed', async () => {
    const up = await w.cli(['up', slowBashRig(w), '--json']);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    expect((await row()).activity).toBe('starting');
    const out = join(w.root, 'out.txt');
    const sent = await w.cli(['send', 'sh@st', `echo waited > ${out}`, '--wait-for-idle', '1', '--json']);
    expect(sent.code, sent.stdout + sent.stderr).toBe(0);
    await waitFor(
      () => {
        try {
          return readFileSync(out, 'utf8').trim() === 'waited';
        } catch {
          return false;
        }
      },
      { what: 'the command ran in the ready shell' },
    );
  });

  it('a plain bash is never `working` while it starts', async () => {
    // Without the machine's rc files: what they start (a version manager's rehash, which waits on a
    // lock a killed shell can leave) is the machine's work, not the start this test is about.
    const spec = w.spec(
      'rig.yaml',
      'name: st\npods:\n  - id: p\n    members:\n      - { id: sh, runtime: shell, cwd: ., command: bash, args: ["--noprofile", "--norc"] }\n',
    );
    expect((await w.cli(['up', spec])).code).toBe(0);
    const seen = await seenUntilIdle();
    expect(seen).not.toContain('working');
  });
});

describe('a starting Claude Code seat (real CLI, fake model server)', () => {
  let server: FakeModelServer;
  let closed: number;
  let w: RigWorld;
  beforeAll(async () => {
    server = await startFakeModelServer();
    closed = await closedPort();
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    w = new RigWorld();
  });
  afterEach(async () => {
    await w.shutdown();
  });

  const claudeFx = () => {
    mkdirSync(join(w.root, 'work'), { recursive: true });
    return makeClaudeFixture({
      serverUrl: server.url,
      closedPort: closed,
      trustedCwds: [realpathSync(join(w.root, 'work'))],
      root: join(w.root, 'claude'),
    });
  };
  /** Each activity ps reads (a change each), until the seat is idle. */
  const labelsUntilIdle = async () => {
    const labels: string[] = [];
    await waitFor(
      async () => {
        const a: string | undefined = (await w.cli(['ps', '--json'])).json?.seats?.[0]?.activity;
        if (a && a !== labels.at(-1)) labels.push(a);
        return a === 'idle';
      },
      { timeoutMs: 40_000, intervalMs: 50, what: 'idle Claude' },
    );
    return labels;
  };

  it('its early screen is `starting`, then `idle`, never `working` or left `starting`', async () => {
    const fx = claudeFx();
    // `ps` is read while `up` starts the seat (a person looking at the window meanwhile).
    const upDone = w.cli(['up', w.spec('rig.yaml', claudeRigYaml(fx)), '--json']);
    const labels = await labelsUntilIdle();
    const up = await upDone;
    expect(up.code, up.stdout + up.stderr).toBe(0);
    console.info(`[starting] Claude's activity by ps: ${labels.join(' → ')}`);
    // Before the wrapper has started Claude (tmux's fork, the wrapper's own children) the launch is
    // `starting` too, never `exited` (its shell is not in front: no agent has run yet).
    expect(labels).not.toContain('exited');
    expect(labels).not.toContain('working');
    // A ps on a loaded machine can take longer than Claude's start (then only idle is seen); the
    // slow launcher below is the case that must see `starting`.
    expect(labels.filter((l) => l !== 'unknown')).toEqual(
      labels.includes('starting') ? ['starting', 'idle'] : ['idle'],
    );
  });

  it('a launcher that takes 6 s before Claude runs is `starting` meanwhile, not `exited`', async () => {
    const fx = claudeFx();
    // As a version manager's shim does: a script that works a while, then becomes the agent.
    const launcher = join(w.root, 'slow-claude');
    writeFileSync(launcher, `#!/bin/sh\nsleep 6\nexec ${JSON.stringify(CLAUDE_BIN)} "$@"\n`, { mode: 0o755 });
    const yaml = claudeRigYaml(fx).replace(
      'runtime: claude-code\n',
      `runtime: claude-code\n        command: ${JSON.stringify(launcher)}\n`,
    );
    const upDone = w.cli(['up', w.spec('rig.yaml', yaml), '--json']);
    const labels = await labelsUntilIdle();
    expect((await upDone).code).toBe(0);
    console.info(`[starting] a slow launcher's activity by ps: ${labels.join(' → ')}`);
    // (`unknown` only before up has made the seat's session.)
    expect(labels.filter((l, i) => !(l === 'unknown' && i === 0))).toEqual(['starting', 'idle']);
  });
});

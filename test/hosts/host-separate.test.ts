import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { locksOnFile } from '../agents/agent-run';
import { processAlive, waitForExit } from '../agents/claude-run';
import type { RigWorld } from '../support/rig';
import { installRemoteClaudeStandIn, rebootRemoteTmux, remoteTranscript } from '../support/remote-claude';
import { installRemoteCodexStandIn } from '../support/remote-codex';
import { hostNamespaceMissing, REMOTE_HOME, sshWorldPerTest, type TestSshd } from '../support/sshd';
import { waitFor } from '../support/tmux';

/**
 * The host is another machine: files planted on THIS machine at a remote seat's paths (a
 * transcript, a live-state file naming another conversation and a permission wait, a writer lock
 * held by a local process, a local process whose argv resumes the seat's conversation) change
 * nothing the engine decides for that seat. Only a host with its own mount and PID namespace can
 * prove it (without one, the seat's path here IS the host's file).
 */
describe.skipIf(!!hostNamespaceMissing())('a file at a remote seat’s path on this machine is not the host’s', () => {
  let w: RigWorld;
  let sshd: TestSshd;
  const world = sshWorldPerTest();
  let madeHome = false;
  const localProcs: number[] = [];
  let scratch: string;
  beforeEach(() => {
    ({ w, sshd } = world);
    // The host's home does not exist on this machine (it is mounted only in the host's namespace).
    madeHome = !existsSync(REMOTE_HOME);
    scratch = mkdtempSync(join(tmpdir(), 'rd-plant-'));
  });
  afterEach(async () => {
    for (const pid of localProcs.splice(0)) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        /* gone */
      }
      await waitForExit(pid, 3000);
    }
    if (madeHome) rmSync(REMOTE_HOME, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  });

  /** Writes a file at a host path, on this machine. */
  const plant = (path: string, text: string) => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  };
  /** A local process, in its own group, ended by the test by that group's pid. */
  const runHere = (argv: string[]) => {
    const c = spawn(argv[0]!, argv.slice(1), { detached: true, stdio: 'ignore' });
    localProcs.push(c.pid!);
    return c.pid!;
  };
  const seatRow = async (seat: string) =>
    (await w.cli(['ps', '--json'])).json.seats.find((s: { seat: string }) => s.seat === seat);

  it('Claude: a planted live-state file, a transcript and a local process resuming X change neither custody, activity nor restore', async () => {
    expect(sshd.isolated).toBe(true);
    const { bin, configDir } = installRemoteClaudeStandIn(sshd);
    const spec = w.spec(
      'rig.yaml',
      sshd.rigYaml('sep', [
        `{ id: c, runtime: claude-code, cwd: ${sshd.remoteDir}, command: ${bin}, host: box, env: { CLAUDE_CONFIG_DIR: ${configDir} } }`,
      ]),
    );
    const up = await w.cli(['up', spec, '--json']);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    const X = up.json.seats[0].launched.conversationId as string;
    const transcript = remoteTranscript(sshd, configDir, X);
    await waitFor(() => sshd.existsHost(transcript), { what: "X's transcript on the host" });
    const before = await seatRow('c@sep');
    expect(before).toMatchObject({ host: 'box', state: 'running', conversationId: X });
    expect(existsSync(transcript), 'the host’s transcript is not on this machine').toBe(false);

    // Here, at the host's paths: Claude's live-state file for the seat's (host) pid naming Y and a
    // permission wait; Y's transcript; and a local `claude --resume X`.
    const Y = '0d3c7a52-9f1e-4b8a-8c3d-2e5f6a7b8c9d';
    plant(
      join(configDir, 'sessions', `${before.pid}.json`),
      JSON.stringify({ pid: before.pid, sessionId: Y, status: 'waiting', waitingFor: 'permission' }),
    );
    plant(remoteTranscript(sshd, configDir, Y), '{"type":"planted"}\n');
    const localClaude = join(scratch, 'claude');
    writeFileSync(localClaude, '#!/bin/sh\nsleep 600 &\nwait\n');
    chmodSync(localClaude, 0o755);
    const here = runHere([localClaude, '--resume', X]);
    await waitFor(
      async () =>
        (await w.cli(['ps', '--all', '--json'])).json.others.some(
          (o: { conversationId?: string; host?: string; pid: number }) =>
            o.conversationId === X && (o.host ?? 'local') === 'local' && o.pid === here,
        ),
      { what: 'the local process resuming X in the local roster' },
    );

    const e = w.engine();
    try {
      const roster = await e.roster();
      const onBox = roster.claims.filter((c) => (c.host ?? 'local') === 'box');
      expect(onBox.map((c) => c.conversationId)).not.toContain(Y);
    } finally {
      e.store.close();
    }
    const after = await seatRow('c@sep');
    expect(after).toMatchObject({ host: 'box', state: 'running', conversationId: X, pid: before.pid });
    expect(after.activity).not.toBe('needs_input');
    // A send to the seat is not refused for the local process on X.
    const sent = await w.cli(['send', 'c@sep', 'hello', '--json']);
    expect(sent.json?.code, sent.stdout + sent.stderr).not.toBe('CONVERSATION_LIVE_ELSEWHERE');

    // The host's transcript goes while its tmux server is down; the planted copy here does not
    // make restore resume X: the host says it is missing.
    rebootRemoteTmux(sshd);
    sshd.asRemote(['rm', transcript]);
    plant(transcript, '{"type":"planted"}\n');
    const plan = await w.cli(['restore', 'sep', '--plan', '--json']);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(plan.json.plan[0], plan.stdout).toMatchObject({ seat: 'c@sep', action: 'awaiting_decision' });
    expect(processAlive(here)).toBe(true);
  });

  it("Codex: a writer lock on X held by a process here changes neither the seat's thread nor its resume", async () => {
    expect(sshd.isolated).toBe(true);
    const { bin, home } = installRemoteCodexStandIn(sshd);
    const spec = w.spec(
      'rig.yaml',
      sshd.rigYaml('sep', [
        `{ id: x, runtime: codex, cwd: ${sshd.remoteDir}, command: ${bin}, host: box, env: { CODEX_HOME: ${home} } }`,
      ]),
    );
    expect((await w.cli(['up', spec, '--json'])).code).toBe(0);
    let row: { conversationId?: string; pid: number; state: string } | undefined;
    await waitFor(
      async () => {
        row = await seatRow('x@sep');
        return row?.state === 'running' && typeof row.conversationId === 'string';
      },
      { what: "the seat's thread named by the host's writer lock" },
    );
    const X = row!.conversationId!;
    // Here: X's lock file at the host's path, held exclusively by a local process.
    const lock = join(home, 'thread-writer-locks', `${X}.lock`);
    plant(lock, '');
    runHere(['flock', '-x', lock, 'sleep', '600']);
    await waitFor(() => locksOnFile(lock).some((l) => l.mode === 'WRITE'), { what: 'the lock taken here' });
    const e = w.engine();
    try {
      const roster = await e.roster();
      const mine = roster.claims.filter((c) => c.conversationId === X);
      expect(mine.map((c) => [c.host ?? 'local', c.source, c.pid])).toEqual([['box', 'writer_lock', mine[0]!.pid]]);
      const heldHere = locksOnFile(lock).map((l) => l.pid);
      expect(heldHere).not.toContain(mine[0]!.pid);
    } finally {
      e.store.close();
    }
    // Stop and launch again: the resume of X on the host is not refused for the lock here.
    expect((await w.cli(['stop', 'x@sep', '--json'])).code).toBe(0);
    const l = await w.cli(['launch', 'x@sep', '--json']);
    expect(l.code, l.stdout + l.stderr).toBe(0);
    expect(l.json.launched).toMatchObject({ mode: 'resume', conversationId: X });
    expect(sshd.remoteSessions()).toEqual(['x@sep']);
  });
});

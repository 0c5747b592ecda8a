/** Running the real Claude Code from tests: headless as a child process, interactive in a TestTmux. */
import { readFileSync, rmSync } from 'node:fs';
import { basename } from 'node:path';
import { newPaneArgv, printedPane, type TestTmux } from '../support/tmux';
import { CLAUDE_BIN, type ClaudeFixture, claudeProcessEnv } from './claude-fixture';

export type { RunResult } from './agent-run';
import { runAgent, type RunResult } from './agent-run';

/** `claude <args>` with the fixture's environment, no stdin, killed (by its own pid) after timeoutMs. */
export function runClaude(fx: ClaudeFixture, cwd: string, args: string[], timeoutMs = 30_000): Promise<RunResult> {
  return runAgent(CLAUDE_BIN, fx.env, cwd, args, timeoutMs);
}

/**
 * Starts `argv` in a new session of the test's private tmux server. The server (and so every pane)
 * gets the runner's environment stripped of agent/proxy variables plus the fixture's env.
 */
export function startInTmux(
  tmux: TestTmux,
  fx: ClaudeFixture,
  name: string,
  cwd: string,
  argv: string[],
): { paneId: string; panePid: number } {
  const env = claudeProcessEnv(fx);
  const out = tmux.run([...newPaneArgv(name, cwd, fx.env), ...argv], { env });
  return printedPane(out);
}

/** True while the pid exists and is not a zombie (PID 1 in a container may not reap orphans). */
export function processAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Waits for a pid we started to go away; SIGKILLs that same pid if it outlives the grace period. */
export async function waitForExit(pid: number, graceMs = 10_000): Promise<'exited' | 'killed'> {
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (!processAlive(pid)) return 'exited';
    await new Promise((r) => setTimeout(r, 100));
  }
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    /* already gone */
  }
  return 'killed';
}

/**
 * Kills the test's own tmux server and removes its socket file, which tmux 3.3a leaves behind
 * after kill-server. Only a socket whose name is this TestTmux's unique name is removed.
 */
export function killTmuxServer(tmux: TestTmux): void {
  const r = tmux.tryRun(['display-message', '-p', '#{socket_path}']);
  tmux.kill();
  const socket = r.ok ? r.out.trim() : '';
  if (socket && basename(socket) === tmux.socketName) rmSync(socket, { force: true });
}

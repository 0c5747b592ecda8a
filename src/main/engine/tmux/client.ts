import type { Exec, ExecResult } from '../deps';
import { fail, type Result } from '../../../shared/errors';
import type { ControlConnection } from './control';
import { failure } from './control-target';
import { carriedControl } from './held';
import { controlLine, formatLiteral, oneShotArgs, SOURCE_STDIN } from './quote';
import { PANE_FORMAT, SEP, parsePaneRows, noSessionLeft, serverAbsent, sessionAbsent, type PaneRow } from './format';
import { serverArgs, serverKey, type SessionIdentity, type TmuxServerRef } from './identity';

const TMUX_TIMEOUT_MS = 5_000;

/** Variables that must not leak from whoever runs Rigdesk into a tmux server it starts. */
export function tmuxEnv(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env = { ...base };
  delete env.TMUX;
  delete env.TMUX_PANE;
  return env;
}

/** Starts the server if none runs, then runs the command list on stdin (the first new-session). */
const START_FROM_STDIN = ['start-server', ';', ...SOURCE_STDIN];

export interface NewSessionInput {
  name: string;
  cwd: string;
  /**
   * Session environment (`-e`), visible to the pane's processes and never in any argv: the line
   * goes over the held client's stdin, or to a one-shot's stdin.
   */
  env: Record<string, string>;
  /** The pane's program as argv; tmux execs it directly, no shell string is built. */
  argv: string[];
  /** Tags set atomically with the creation, in the same tmux command list. */
  seat: string;
  attempt: string;
  width?: number;
  height?: number;
}

export type KillOutcome =
  | { outcome: 'removed' }
  | { outcome: 'already_gone'; why: string }
  | { outcome: 'not_removed'; why: string };

export interface TmuxClientDeps {
  exec: Exec;
  env?: NodeJS.ProcessEnv;
  configFile?: string;
  timeoutMs?: number;
  /**
   * The server's held control-mode client (tmux/control.ts): every command goes through it when
   * set. Unset: one `tmux` process per command (other people's servers, and the one-shot mode).
   */
  control?: ControlConnection;
}

export class TmuxClient {
  readonly key: string;
  private readonly control?: ControlConnection;
  constructor(
    readonly ref: TmuxServerRef,
    private readonly deps: TmuxClientDeps,
  ) {
    this.key = serverKey(ref);
    this.control = deps.control ?? carriedControl(deps.exec, ref);
  }

  /** Whether commands go through a held client rather than one process each. */
  get held(): boolean {
    return this.control !== undefined;
  }

  /**
   * Whether the held client, when one is connected, answers a trivial command within `timeoutMs`
   * (no process started); undefined when none is connected. A miss is no verdict: the caller asks
   * a process of its own (tmux/stuck.ts), the only look that can tell a stuck server.
   */
  async heldAnswers(timeoutMs: number): Promise<boolean | undefined> {
    const control = this.control;
    if (!control?.connected) return undefined;
    // A miss keeps the client: a slow moment is not a stuck server, and a new client is a risk
    // of its own on tmux 3.3a (control.ts, afterIo).
    const r = await control.run(['display-message', '-p', 'ok'], { timeoutMs, keepClient: true });
    return r.code === 0;
  }

  /** Runs `fn` (another control client starting) while the held client, if any, keeps quiet (control.ts). */
  quietWhile<T>(fn: () => Promise<T>): Promise<T> {
    return this.control ? this.control.quietWhile(fn) : fn();
  }

  /**
   * One tmux command list, answered as a one-shot `tmux` would answer it (exit code, stdout,
   * stderr). Only a command that reads stdin (`input`) is a process of its own.
   */
  run(args: string[], opts: { input?: string } = {}): Promise<ExecResult> {
    const control = this.control;
    if (control && opts.input === undefined) return control.run(args, { timeoutMs: this.timeoutMs });
    return this.runOneShot(args, opts);
  }

  /**
   * A command list whose arguments must never be in a process's argv (a seat's env): a line on
   * the held client, else a one-shot `tmux source-file -` that reads it from its stdin.
   */
  runSealed(args: string[]): Promise<ExecResult> {
    const line = controlLine(args);
    if (!line.ok) return Promise.resolve(failure(line.why));
    if (this.control) return this.control.run(args, { timeoutMs: this.timeoutMs, input: line.line });
    return this.runOneShot(SOURCE_STDIN, { input: line.line });
  }

  /** The one-shot path: a `tmux` process for this one command list (this also starts a server). */
  runOneShot(args: readonly string[], opts: { input?: string; timeoutMs?: number } = {}): Promise<ExecResult> {
    const conf = this.deps.configFile ? ['-f', this.deps.configFile] : [];
    return this.deps.exec('tmux', ['-u', ...serverArgs(this.ref), ...conf, ...oneShotArgs(args)], {
      input: opts.input,
      timeoutMs: opts.timeoutMs ?? this.timeoutMs,
      env: tmuxEnv(this.deps.env ?? process.env),
    });
  }

  private get timeoutMs(): number {
    return this.deps.timeoutMs ?? TMUX_TIMEOUT_MS;
  }

  /** One command (no spawn when held): every pane on this server. A server not running is an empty list. */
  async listPanes(): Promise<Result<{ running: boolean; panes: PaneRow[]; malformed: number }>> {
    const r = await this.run(['list-panes', '-a', '-F', PANE_FORMAT]);
    if (r.spawnError)
      return fail('TMUX_UNAVAILABLE', `tmux could not be started (${r.spawnError})`, {
        hint: 'Install tmux 3.2 or newer and make sure it is on PATH.',
      });
    if (r.code === 0) {
      const parsed = parsePaneRows(r.stdout);
      return { ok: true, running: true, panes: parsed.rows, malformed: parsed.malformed };
    }
    if (serverAbsent(r.stderr)) return { ok: true, running: false, panes: [], malformed: 0 };
    return fail('TMUX_FAILED', `tmux list-panes failed on ${this.key}: ${r.timedOut ? 'timed out' : r.stderr.trim()}`, {
      evidence: { server: this.key },
    });
  }

  /**
   * Creates a detached session and tags it with its seat and attempt in the same command list, so
   * no session of ours ever exists untagged. Returns its immutable identity.
   */
  async newSession(input: NewSessionInput): Promise<Result<{ identity: SessionIdentity }>> {
    const envArgs = Object.entries(input.env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    const fmt = ['#{pid}', '#{session_id}', '#{session_created}', '#{pane_id}', '#{pane_pid}'].join(SEP);
    // -s and -c are formats to tmux: written so that they give back the name and folder as they are.
    const tail = [
      '-s',
      formatLiteral(input.name),
      '-x',
      String(input.width ?? 200),
      '-y',
      String(input.height ?? 50),
      '-c',
      formatLiteral(input.cwd),
      ...envArgs,
      '-P',
      '-F',
      fmt,
      '--',
      ...input.argv,
      ';',
      'set-option',
      '@rigdesk_seat',
      input.seat,
      ';',
      'set-option',
      '@rigdesk_attempt',
      input.attempt,
    ];
    // The tags take no target: they land on the current session. A one-shot `tmux` has no client,
    // so that is the newest session, the one just made (-d). A held client's current session is the
    // one it is attached to, so it creates the session without -d and is moved onto it, in the same
    // command list. Where no server runs yet, the one-shot form starts it, reading the list from
    // its stdin: the server keeps the argv of the process that started it for its whole life.
    const oneShot = controlLine(['new-session', '-d', ...tail]);
    if (!oneShot.ok) return fail('TMUX_FAILED', `tmux new-session cannot be written: ${oneShot.why}`);
    const opts = { timeoutMs: this.timeoutMs, input: oneShot.line };
    const r = this.control
      ? await this.control.run(['new-session', ...tail], { ...opts, startServer: START_FROM_STDIN })
      : await this.runOneShot(START_FROM_STDIN, opts);
    if (r.spawnError)
      return fail('TMUX_UNAVAILABLE', `tmux could not be started (${r.spawnError})`, {
        hint: 'Install tmux 3.2 or newer.',
      });
    if (r.code !== 0) {
      if (/duplicate session/.test(r.stderr)) {
        return fail(
          'TMUX_NAME_TAKEN',
          `a tmux session named "${input.name}" already exists on ${this.key} and is not this seat's`,
          {
            hint: `Rename or end that session (tmux ${serverArgs(this.ref).join(' ')} kill-session -t '${input.name}') after checking what runs in it.`,
            evidence: { server: this.key, sessionName: input.name },
          },
        );
      }
      return fail('TMUX_FAILED', `tmux new-session failed: ${r.timedOut ? 'timed out' : r.stderr.trim()}`, {
        evidence: { server: this.key },
      });
    }
    const [pid, sid, created, pane, panePid] = r.stdout.trim().split('\n')[0]!.split(SEP);
    const identity: SessionIdentity = {
      server: this.key,
      serverPid: Number(pid),
      sessionId: sid!,
      sessionCreated: Number(created),
      sessionName: input.name,
      paneId: pane!,
      panePid: Number(panePid),
    };
    if (
      !/^\$\d+$/.test(identity.sessionId) ||
      !/^%\d+$/.test(identity.paneId) ||
      !Number.isFinite(identity.serverPid)
    ) {
      return fail(
        'TMUX_FAILED',
        `tmux new-session printed an identity that does not parse: ${JSON.stringify(r.stdout)}`,
      );
    }
    return { ok: true, identity };
  }

  /** Reads one session's identity fields, or says it is absent; anything else is indeterminate. */
  async probeSession(
    sessionId: string,
  ): Promise<
    | { state: 'present'; serverPid: number; sessionCreated: number }
    | { state: 'absent'; why: string }
    | { state: 'indeterminate'; why: string }
  > {
    const has = await this.run(['has-session', '-t', sessionId]);
    if (has.spawnError) return { state: 'indeterminate', why: `tmux not runnable: ${has.spawnError}` };
    if (has.timedOut) return { state: 'indeterminate', why: 'has-session timed out' };
    if (has.code !== 0) {
      if (serverAbsent(has.stderr)) return { state: 'absent', why: 'server not running' };
      if (sessionAbsent(has.stderr)) return { state: 'absent', why: 'no such session' };
      if (noSessionLeft(has.stderr)) return { state: 'absent', why: 'the server has no session left' };
      return { state: 'indeterminate', why: has.stderr.trim() || `has-session exited ${has.code}` };
    }
    const d = await this.run(['display-message', '-p', '-t', sessionId, `#{pid}${SEP}#{session_created}`]);
    if (d.code !== 0 || d.timedOut) {
      if (!d.timedOut && sessionAbsent(d.stderr)) return { state: 'absent', why: 'no such session' };
      return { state: 'indeterminate', why: d.timedOut ? 'display-message timed out' : d.stderr.trim() };
    }
    const [p, c] = d.stdout.trim().split(SEP);
    return { state: 'present', serverPid: Number(p), sessionCreated: Number(c) };
  }

  /**
   * Exact cleanup (docs/architecture.md invariant 4): one tmux command kills the session only if server pid,
   * session id and creation time all match, then absence is proven. A name is never used.
   */
  async killByIdentity(id: SessionIdentity): Promise<KillOutcome> {
    // The id goes into if-shell's command string, which tmux parses: only an id tmux gave is put there.
    if (!/^\$\d+$/.test(id.sessionId)) return { outcome: 'not_removed', why: `not a tmux session id: ${id.sessionId}` };
    const pred = `#{&&:#{==:#{pid},${id.serverPid}},#{&&:#{==:#{session_id},${id.sessionId}},#{==:#{session_created},${id.sessionCreated}}}}`;
    await this.stepOff(id.sessionId);
    const r = await this.run([
      'if-shell',
      '-F',
      '-t',
      id.sessionId,
      pred,
      `kill-session -t ${id.sessionId}`,
      'display-message -p rigdesk:not-ours',
    ]);
    if (r.spawnError) return { outcome: 'not_removed', why: `tmux not runnable: ${r.spawnError}` };
    if (r.timedOut) return { outcome: 'not_removed', why: 'tmux timed out; the session may still exist' };
    // Any other error leaves open whether the kill ran (a CI run's `down` got "no current target"
    // for a seat's kill): the proof below decides, and what it cannot prove stays not removed.
    const unclear = r.code !== 0 ? r.stderr.trim() || `tmux exited ${r.code}` : undefined;
    if (unclear !== undefined) {
      if (serverAbsent(r.stderr)) return { outcome: 'already_gone', why: 'its tmux server is not running' };
      if (sessionAbsent(r.stderr)) return { outcome: 'already_gone', why: 'no session with its id' };
    } else if (r.stdout.includes('rigdesk:not-ours'))
      return {
        outcome: 'already_gone',
        why: `${id.sessionId} now belongs to another session (server restarted or id reused)`,
      };
    // Killing a server's last session makes the server exit; a probe that lands while it shuts
    // down can read "lost server". Ask again briefly before calling it indeterminate.
    let after = await this.probeSession(id.sessionId);
    for (let i = 0; i < 3 && after.state === 'indeterminate' && !/timed out/.test(after.why); i++) {
      await new Promise((r) => setTimeout(r, 100));
      after = await this.probeSession(id.sessionId);
    }
    if (after.state === 'absent') return { outcome: 'removed' };
    if (after.state === 'present' && (after.serverPid !== id.serverPid || after.sessionCreated !== id.sessionCreated))
      return unclear === undefined
        ? { outcome: 'removed' }
        : {
            outcome: 'already_gone',
            why: `${id.sessionId} now belongs to another session (the kill answered: ${unclear})`,
          };
    const still = unclear === undefined ? 'the session is still there after kill-session' : unclear;
    return { outcome: 'not_removed', why: after.state === 'indeterminate' ? after.why : still };
  }

  /**
   * Moves the held client off a session about to be killed, onto another of the server's: a
   * client whose session goes is detached, and the client made to replace it identifies itself
   * while that session's notices are still being sent, which tmux 3.3a does not survive (a
   * segfault, every seat on the server gone; control.ts, afterIo). The last session needs no
   * move: the server ends with it.
   */
  private async stepOff(sessionId: string): Promise<void> {
    if (!this.control?.connected) return;
    const opts = { timeoutMs: this.timeoutMs };
    // One line: the client's session first, then every session of the server.
    const r = await this.control.run(
      ['display-message', '-p', '#{session_id}', ';', 'list-sessions', '-F', '#{session_id}'],
      opts,
    );
    const [on, ...all] = r.stdout.split('\n');
    if (r.code !== 0 || on !== sessionId) return;
    const other = all.find((s) => /^\$\d+$/.test(s) && s !== sessionId);
    if (other) await this.control.run(['switch-client', '-t', other], opts);
  }

  async capture(paneId: string, lines: number): Promise<Result<{ text: string }>> {
    const r = await this.run(['capture-pane', '-p', '-J', '-t', paneId, '-S', String(-Math.max(0, lines))]);
    if (r.code !== 0)
      return fail('TMUX_FAILED', `capture-pane failed: ${r.timedOut ? 'timed out' : r.stderr.trim()}`, {
        evidence: { pane: paneId },
      });
    return { ok: true, text: r.stdout };
  }

  /**
   * Delivers text as a bracketed paste of a literal buffer (never as keys), then deletes the
   * buffer. The buffer name is unique per call so two deliveries never share one.
   */
  async paste(paneId: string, text: string, bufferName: string): Promise<Result> {
    // Through a held client the text is the quoted argument of set-buffer (tmux/quote.ts keeps it
    // byte for byte); a NUL byte cannot be an argument, so such text goes in as stdin, one-shot.
    const load =
      this.control && !text.includes('\0')
        ? await this.run(['set-buffer', '-b', bufferName, '--', text])
        : await this.runOneShot(['load-buffer', '-b', bufferName, '-'], { input: text });
    if (load.code !== 0)
      return fail('TMUX_FAILED', `load-buffer failed: ${load.timedOut ? 'timed out' : load.stderr.trim()}`);
    const paste = await this.run(['paste-buffer', '-p', '-d', '-r', '-b', bufferName, '-t', paneId]);
    if (paste.code !== 0) {
      await this.run(['delete-buffer', '-b', bufferName]);
      return fail('TMUX_FAILED', `paste-buffer failed: ${paste.timedOut ? 'timed out' : paste.stderr.trim()}`, {
        evidence: { pane: paneId },
      });
    }
    return { ok: true };
  }

  async sendKeys(paneId: string, keys: string[]): Promise<Result> {
    const r = await this.run(['send-keys', '-t', paneId, ...keys]);
    if (r.code !== 0)
      return fail('TMUX_FAILED', `send-keys failed: ${r.timedOut ? 'timed out' : r.stderr.trim()}`, {
        evidence: { pane: paneId },
      });
    return { ok: true };
  }

  /** One pane's pid and owning session, read fresh for revalidation before a write. */
  async paneNow(
    paneId: string,
  ): Promise<
    | { state: 'present'; panePid: number; sessionId: string; serverPid: number; dead: boolean }
    | { state: 'absent' }
    | { state: 'indeterminate'; why: string }
  > {
    const r = await this.run([
      'display-message',
      '-p',
      '-t',
      paneId,
      ['#{pane_id}', '#{pane_pid}', '#{session_id}', '#{pid}', '#{pane_dead}'].join(SEP),
    ]);
    if (r.code !== 0 || r.timedOut) {
      if (!r.timedOut && (serverAbsent(r.stderr) || sessionAbsent(r.stderr))) return { state: 'absent' };
      return { state: 'indeterminate', why: r.timedOut ? 'timed out' : r.stderr.trim() };
    }
    const [pane, pid, sid, spid, dead] = r.stdout.trim().split(SEP);
    if (pane !== paneId) return { state: 'absent' };
    return { state: 'present', panePid: Number(pid), sessionId: sid!, serverPid: Number(spid), dead: dead === '1' };
  }
}

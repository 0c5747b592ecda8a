/**
 * What the real-CLI journeys share: the check that a CLI is installed (a journey for a missing CLI
 * fails with how to install it, never skips), one Rigdesk world per test with isolated homes for
 * Claude Code, Codex and Pi against one fake model server, reading `rigdesk ps --json`, the
 * activity expectations the journeys assert, and cleanup by pid and by own tmux socket.
 *
 * Paths, signatures and argv come from the runtime adapters (src/main/engine/runtimes), never from
 * copies here, so a change in a CLI's layout or screen fails these tests.
 */
import { execFileSync } from 'node:child_process';
import { accessSync, constants, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, beforeEach, expect } from 'vitest';
import { CLAUDE_BIN, CLAUDE_VERSION, makeClaudeFixture, type ClaudeFixture } from '../agents/claude-fixture';
import { CODEX_BIN, CODEX_VERSION, makeCodexFixture, type CodexFixture } from '../agents/codex-fixture';
import { makePiFixture, PI_BIN, PI_VERSION, type PiFixture } from '../agents/pi-fixture';
import { makeOpencodeFixture, OPENCODE_BIN, OPENCODE_VERSION, type OpencodeFixture } from '../agents/opencode-fixture';
import { GEMINI_BIN, GEMINI_VERSION, makeGeminiFixture, type GeminiFixture } from '../agents/gemini-fixture';
import { makeQwenFixture, QWEN_BIN, QWEN_VERSION, type QwenFixture } from '../agents/qwen-fixture';
import { makeOmpFixture, OMP_BIN, OMP_VERSION, type OmpFixture } from '../agents/omp-fixture';
import { makeOmoFixture, OMO_BIN, OMO_VERSION, type OmoFixture } from '../agents/omo-fixture';
import { agentProcessEnv, endTmuxAgents, killPids, pidsWithEnv, processAlive, waitForExit } from '../agents/agent-run';
import {
  closedPort,
  startFakeModelServer,
  type FakeModelServer,
  type FakeModelServerOptions,
} from '../agents/fake-model-server';
import { RigWorld, REPO, type CliResult } from '../support/rig';
import { TestTmux, waitFor } from '../support/tmux';
import { liveEvidenceIO } from '../../src/main/engine/evidence-io';
import { runtimeById, type RuntimeAdapter } from '../../src/main/engine/runtimes';
import { stripSgr } from '../../src/main/engine/runtimes/types';
import { type PsRow, psAnswer } from '../../src/shared/contract';

export type AgentRuntime = 'claude-code' | 'codex' | 'pi' | 'opencode' | 'gemini' | 'qwen' | 'omp' | 'omo';

export const LOCAL_ADDRESSES = ['127.0.0.1', '::ffff:127.0.0.1'];

/** The pinned CLIs: where the tests find them and how a person installs them. */
export const CLIS: Record<AgentRuntime, { name: string; bin: string; pkg: string; version: string }> = {
  'claude-code': { name: 'Claude Code', bin: CLAUDE_BIN, pkg: '@anthropic-ai/claude-code', version: CLAUDE_VERSION },
  codex: { name: 'Codex', bin: CODEX_BIN, pkg: '@openai/codex', version: CODEX_VERSION },
  pi: { name: 'Pi', bin: PI_BIN, pkg: '@mariozechner/pi-coding-agent', version: PI_VERSION },
  opencode: { name: 'OpenCode', bin: OPENCODE_BIN, pkg: 'opencode-ai', version: OPENCODE_VERSION },
  gemini: { name: 'Gemini CLI', bin: GEMINI_BIN, pkg: '@google/gemini-cli', version: GEMINI_VERSION },
  qwen: { name: 'Qwen Code', bin: QWEN_BIN, pkg: '@qwen-code/qwen-code', version: QWEN_VERSION },
  omp: { name: 'omp', bin: OMP_BIN, pkg: '@oh-my-pi/pi-coding-agent', version: OMP_VERSION },
  omo: { name: 'omo', bin: OMO_BIN, pkg: 'oh-my-opencode', version: OMO_VERSION },
};

export function installHint(runtime: AgentRuntime): string {
  const c = CLIS[runtime];
  return `install it with \`npm install\` in ${REPO} (it is a pinned devDependency), or \`npm install --save-dev ${c.pkg}@${c.version}\``;
}

/**
 * Why a CLI cannot run these journeys, or undefined when it can: the program must exist, be
 * executable and be the pinned version, and Claude's and Codex's must answer `--version` (their
 * native platform packages). `bin` and `pkgDir` are injectable to test the message itself.
 */
export function cliProblem(runtime: AgentRuntime, where: { bin?: string; pkgDir?: string } = {}): string | undefined {
  const c = CLIS[runtime];
  const bin = where.bin ?? c.bin;
  const head = `The ${c.name} CLI (${c.pkg}) is not installed: `;
  try {
    accessSync(bin, constants.X_OK);
  } catch {
    return `${head}${bin} is missing or not executable; ${installHint(runtime)}.`;
  }
  let version: string | undefined;
  try {
    version = (
      JSON.parse(readFileSync(join(where.pkgDir ?? join(REPO, 'node_modules', c.pkg), 'package.json'), 'utf8')) as {
        version?: string;
      }
    ).version;
  } catch {
    return `${head}its package.json is unreadable; ${installHint(runtime)}.`;
  }
  if (version !== c.version)
    return `${head}found version ${version}, but these tests pin ${c.version}; ${installHint(runtime)}.`;
  // Claude's, Codex's and OpenCode's npm packages hand over to a native binary from a platform
  // package that npm may have left out (OpenCode's postinstall links it); Pi, Gemini CLI and Qwen
  // Code are node scripts (and take seconds just to load), so they are not run.
  if (runtime === 'pi' || runtime === 'gemini' || runtime === 'qwen') return undefined;
  try {
    // Its own throwaway home: a CLI may create config and cache folders even to print its version
    // (OpenCode does, under HOME, XDG_* and TMPDIR).
    const home = mkdtempSync(join(tmpdir(), 'rd-cli-version-'));
    const isolated = {
      HOME: home,
      TMPDIR: home,
      XDG_CONFIG_HOME: join(home, 'c'),
      XDG_DATA_HOME: join(home, 'd'),
      XDG_CACHE_HOME: join(home, 'k'),
      XDG_STATE_HOME: join(home, 's'),
    };
    try {
      execFileSync(bin, ['--version'], {
        env: agentProcessEnv({ ...isolated, HTTPS_PROXY: 'http://127.0.0.1:9', HTTP_PROXY: 'http://127.0.0.1:9' }),
        cwd: home,
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 20_000,
      });
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  } catch (e) {
    return `${head}\`${bin} --version\` failed (${
      String((e as { stderr?: unknown }).stderr ?? e)
        .trim()
        .split('\n')[0]
    }); ${installHint(runtime)}.`;
  }
  return undefined;
}

/**
 * Call at the top of a describe: every test in it then FAILS (not skips) with how to install a
 * missing CLI. (A throwing beforeAll would only mark the tests skipped.) Returns whether the CLIs
 * are there, for after-hooks that should not pile further failures on top.
 */
export function requireCli(...runtimes: AgentRuntime[]): () => boolean {
  return failEachTestIf(() => runtimes.map((r) => cliProblem(r)).find((p) => p !== undefined));
}

/** Registers hooks that fail every test of the enclosing describe with `problem()`, if it says one. */
export function failEachTestIf(problem: () => string | undefined): () => boolean {
  let found: string | undefined;
  beforeAll(() => {
    found = problem();
  });
  beforeEach(() => {
    if (found) throw new Error(found);
  });
  return () => found === undefined;
}

export interface Fixtures {
  'claude-code'?: ClaudeFixture;
  codex?: CodexFixture;
  pi?: PiFixture;
  opencode?: OpencodeFixture;
  gemini?: GeminiFixture;
  qwen?: QwenFixture;
  omp?: OmpFixture;
  omo?: OmoFixture;
}

export interface Member {
  id: string;
  runtime: AgentRuntime;
  /** Relative to the spec file; default ./work */
  cwd?: string;
}

/** A shared fake model server for a test file; its log is checked to hold only 127.0.0.1. */
export async function startServer(
  opts: FakeModelServerOptions = {},
): Promise<{ server: FakeModelServer; closed: number }> {
  return { server: await startFakeModelServer(opts), closed: await closedPort() };
}

export function expectOnlyLoopback(server: FakeModelServer): void {
  expect(server.requests.length).toBeGreaterThan(0);
  const stray = server.requests.filter((r) => !LOCAL_ADDRESSES.includes(r.remoteAddress));
  expect(stray, 'requests from an address other than 127.0.0.1').toEqual([]);
}

/**
 * One Rigdesk world (own RIGDESK_HOME and tmux server) with isolated homes for the runtimes it
 * uses, all trusting the world's folders.
 */
export class JourneyWorld {
  readonly w: RigWorld;
  readonly fx: Fixtures = {};
  readonly dirs = new Map<string, string>();
  private readonly others: TestTmux[] = [];
  private readonly pids: number[] = [];

  constructor(server: FakeModelServer, closed: number, runtimes: AgentRuntime[], folders: string[] = ['work']) {
    this.w = new RigWorld();
    for (const f of folders) {
      mkdirSync(join(this.w.root, f), { recursive: true });
      this.dirs.set(f, realpathSync(join(this.w.root, f)));
    }
    const trusted = [...this.dirs.values()];
    const base = { serverUrl: server.url, closedPort: closed };
    if (runtimes.includes('claude-code'))
      this.fx['claude-code'] = makeClaudeFixture({ ...base, trustedCwds: trusted, root: join(this.w.root, 'claude') });
    if (runtimes.includes('codex'))
      this.fx.codex = makeCodexFixture({ ...base, trustedCwds: trusted, root: join(this.w.root, 'codex') });
    if (runtimes.includes('pi')) this.fx.pi = makePiFixture({ ...base, root: join(this.w.root, 'pi') });
    if (runtimes.includes('opencode'))
      this.fx.opencode = makeOpencodeFixture({ ...base, trustedCwds: trusted, root: join(this.w.root, 'opencode') });
    if (runtimes.includes('gemini'))
      this.fx.gemini = makeGeminiFixture({ ...base, trustedCwds: trusted, root: join(this.w.root, 'gemini') });
    if (runtimes.includes('qwen'))
      this.fx.qwen = makeQwenFixture({ ...base, trustedCwds: trusted, root: join(this.w.root, 'qwen') });
    if (runtimes.includes('omp')) this.fx.omp = makeOmpFixture({ ...base, root: join(this.w.root, 'omp') });
    if (runtimes.includes('omo')) this.fx.omo = makeOmoFixture({ ...base, root: join(this.w.root, 'omo') });
  }

  /** The real path of a world folder (as the CLIs see their cwd). */
  dir(name = 'work'): string {
    return this.dirs.get(name)!;
  }

  envOf(runtime: AgentRuntime): Record<string, string> {
    const f = this.fx[runtime];
    if (!f) throw new Error(`this world has no ${runtime} fixture`);
    return f.env;
  }

  /** The runtime's config home in this world (CLAUDE_CONFIG_DIR, CODEX_HOME, PI_CODING_AGENT_DIR). */
  homeOf(runtime: AgentRuntime): string {
    return this.envOf(runtime)[runtimeById(runtime)!.homeEnvVar!]!;
  }

  spec(rig: string, members: Member[]): string {
    const lines = [`name: ${rig}`, 'pods:', '  - id: team', '    members:'];
    for (const m of members) {
      lines.push(
        `      - id: ${m.id}`,
        `        runtime: ${m.runtime}`,
        `        cwd: ${JSON.stringify(m.cwd ?? './work')}`,
        '        env:',
      );
      for (const [k, v] of Object.entries(this.envOf(m.runtime))) lines.push(`          ${k}: ${JSON.stringify(v)}`);
    }
    return this.w.spec(`${rig}.yaml`, `${lines.join('\n')}\n`);
  }

  async up(rig: string, members: Member[]): Promise<CliResult> {
    const up = await this.w.cli(['up', this.spec(rig, members), '--json']);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    return up;
  }

  cli(args: string[]): Promise<CliResult> {
    return this.w.cli(args);
  }

  /** Every seat's row from one `rigdesk ps --json`, read through the contract's own schema. */
  async rows(): Promise<PsRow[]> {
    const ps = await this.w.cli(['ps', '--json']);
    if (ps.json?.ok !== true) throw new Error(`rigdesk ps failed: ${ps.stdout}${ps.stderr}`);
    const { ok: _ok, ...answer } = ps.json;
    const parsed = psAnswer.safeParse(answer);
    if (!parsed.success) throw new Error(`rigdesk ps answered off its contract: ${parsed.error.message}\n${ps.stdout}`);
    return parsed.data.seats;
  }

  /**
   * Polls `rigdesk ps --json` (one call per round for all seats) until every seat has shown each
   * wanted state in order; returns what each seat went through.
   */
  async sequences(seats: string[], wants: Want[], timeoutMs = 45_000): Promise<Record<string, string[]>> {
    const next = new Map(seats.map((s) => [s, 0]));
    const seen: Record<string, string[]> = Object.fromEntries(seats.map((s) => [s, []]));
    try {
      await waitFor(
        async () => {
          for (const r of await this.rows()) {
            if (!next.has(r.seat)) continue;
            const label = describeWant({
              activity: r.activity as Want['activity'],
              needsInput: r.needsInput as Want['needsInput'],
            });
            if (seen[r.seat]!.at(-1) !== label) seen[r.seat]!.push(label);
            const i = next.get(r.seat)!;
            if (i < wants.length && matchesWant(r, wants[i]!)) next.set(r.seat, i + 1);
          }
          return [...next.values()].every((i) => i === wants.length);
        },
        { timeoutMs, intervalMs: 50, what: `${seats.join(', ')} to go ${wants.map(describeWant).join(' → ')}` },
      );
    } catch (e) {
      const late = seats.filter((s) => next.get(s)! < wants.length);
      throw new Error(
        `${(e as Error).message}; seen: ${JSON.stringify(seen)}${late.map((s) => `\n--- ${s}'s screen:\n${this.screen(s)}`).join('')}`,
      );
    }
    return seen;
  }

  async row(seat: string): Promise<PsRow> {
    const rows = await this.rows();
    const r = rows.find((s) => s.seat === seat);
    if (!r) throw new Error(`no row for ${seat} in rigdesk ps: ${JSON.stringify(rows)}`);
    return r;
  }

  /**
   * Waits until `rigdesk ps --json` shows the seat as wanted; returns the row and `ms`: how long
   * after `since` the engine reported it. One `rigdesk ps` is a whole process (start node, read
   * the roster and the screens, print), which on a loaded two-core machine takes up to a second;
   * the engine's reading is taken somewhere inside that call, so the call's midpoint is charged
   * (`callMs` says how long the reporting call took).
   */
  async seen(
    seat: string,
    want: Want,
    since = Date.now(),
    timeoutMs = 45_000,
  ): Promise<{ ms: number; callMs: number; row: PsRow }> {
    let last: PsRow | undefined;
    let started = 0;
    try {
      const row = await waitFor(
        async () => {
          started = Date.now();
          last = await this.row(seat);
          return matchesWant(last, want) ? last : undefined;
        },
        { timeoutMs, intervalMs: 50, what: `${seat} ${describeWant(want)}` },
      );
      const ended = Date.now();
      return { ms: Math.max(0, Math.round((started + ended) / 2) - since), callMs: ended - started, row };
    } catch (e) {
      throw new Error(
        `${(e as Error).message}; last row: ${JSON.stringify(last)}\nscreen and history:\n${this.history(seat)}`,
      );
    }
  }

  /** The seat's visible screen (tmux capture of Rigdesk's own server). */
  screen(seat: string): string {
    return this.w.tmux.tryRun(['capture-pane', '-p', '-t', seat]).out;
  }

  /** The seat's screen with its scrollback and tmux's own word on the pane, for a failure's message. */
  history(seat: string): string {
    const r = this.w.tmux.tryRun(['capture-pane', '-p', '-J', '-S', '-200', '-t', seat]);
    const pane = this.w.tmux.tryRun([
      'display-message',
      '-p',
      '-t',
      seat,
      'dead=#{pane_dead} status=#{pane_dead_status} cmd=#{pane_current_command} pid=#{pane_pid}',
    ]);
    return `${r.ok ? r.out : `(capture failed: ${r.out})`}\n[pane: ${pane.ok ? pane.out.trim() : pane.out}]`;
  }

  /** Waits for the seat's screen to match, and returns the moment it was seen. */
  async screenShows(seat: string, re: RegExp, what: string, timeoutMs = 45_000): Promise<number> {
    await waitFor(() => re.test(this.screen(seat)), {
      timeoutMs,
      intervalMs: 50,
      what: `${what} on ${seat}'s screen`,
    }).catch((e: Error) => {
      throw new Error(`${e.message}\nscreen:\n${this.screen(seat)}`);
    });
    return Date.now();
  }

  /** A person typing into the seat's pane (see `typeInto`). */
  async type(seat: string, text: string, enterDelayMs = 0): Promise<void> {
    await typeInto(this.w.tmux, seat, text, runtimeById((await this.row(seat)).runtime), enterDelayMs);
  }

  /** Another tmux server, as a person's own; killed in cleanup. */
  otherTmux(prefix = 'rdj-hand'): TestTmux {
    const t = new TestTmux(prefix);
    this.others.push(t);
    return t;
  }

  /** A pid this test started outside tmux; killed (by that pid) in cleanup. */
  own(pid: number): void {
    this.pids.push(pid);
  }

  /** The seat's row once ps reads it as `unknown` (a spinner hiding a silent 429), within a minute. */
  async unknownBehindSpinner(seat: string): Promise<PsRow> {
    return waitFor(
      async () => {
        const r = await this.row(seat);
        return r.activity === 'unknown' ? r : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500, what: `${seat} unknown behind a silent spinner` },
    ).catch((e: Error) => {
      throw new Error(`${e.message}\n${this.screen(seat)}`);
    });
  }

  /**
   * The permission prompt `seat` shows, answered from Rigdesk: a plain send is held, `rigdesk
   * prompts` lists it showing `asks`, `rigdesk answer approve` (with its fingerprint) approves it,
   * `ran()` turns true only after that, the seat is idle again, and both steps are in its events.
   */
  async approveFromRigdesk(seat: string, asks: string, ran: () => boolean): Promise<{ keys?: string[] }> {
    const held = await this.cli(['send', seat, 'y', '--json']);
    expect(held.json).toMatchObject({ ok: false, code: 'SEND_HELD', evidence: { why: 'needs_input:permission' } });
    const listed = await this.cli(['prompts', '--json']);
    const item = listed.json.prompts.find((p: { seat: string }) => p.seat === seat);
    expect(item, listed.stdout).toMatchObject({
      reason: 'permission',
      choices: expect.arrayContaining(['approve', 'deny', 'deny_with_message']),
    });
    expect(item.screen.join('\n')).toContain(asks);
    expect(ran(), 'nothing ran before the answer').toBe(false);
    const answered = await this.cli([
      'answer',
      seat,
      'approve',
      `--prompt=${item.fingerprint}`,
      '--reason',
      'journey: approve the command',
      '--json',
    ]);
    expect(answered.json, answered.stdout + answered.stderr).toMatchObject({
      ok: true,
      answered: { seat, choice: 'approve' },
    });
    await waitFor(ran, { timeoutMs: 30_000, what: 'the approved command ran' });
    await this.seen(seat, { activity: 'idle' });
    const kinds = (await this.cli(['events', '--seat', seat, '--json'])).json.events.map(
      (e: { kind: string }) => e.kind,
    );
    expect(kinds).toEqual(expect.arrayContaining(['seat.send_held', 'seat.prompt_answered']));
    return answered.json.answered;
  }

  /**
   * Ends what one test started besides the rig (a person's own tmux servers, pids it owns), so a test
   * that fails half-way leaves no second writer behind to fail the tests after it.
   */
  async endTestOthers(): Promise<void> {
    for (const pid of this.pids.splice(0)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    for (const t of this.others.splice(0)) await endTmuxAgents(t);
  }

  async cleanup(): Promise<void> {
    await this.endTestOthers();
    await endTmuxAgents(this.w.tmux);
    // Anything still running with one of this world's private homes is this test's own.
    const strays = Object.entries(this.fx).flatMap(([rt, f]) =>
      pidsWithEnv(
        runtimeById(rt)!.homeEnvVar!,
        (f as { env: Record<string, string> }).env[runtimeById(rt)!.homeEnvVar!]!,
      ),
    );
    if (strays.length) await killPids(strays);
    this.w.cleanup();
  }
}

/**
 * A person typing into an agent's pane on any tmux server: the text, then (once the text shows in
 * the agent's input box, as a person would wait to see it, or after 5 s) Enter, and Enter once more
 * if the agent dropped the first and the text still sits in its box 2 s later. On a loaded machine
 * an agent can take the Enter before it has drawn the text, which leaves the prompt unsent.
 */
export async function typeInto(
  tmux: TestTmux,
  target: string,
  text: string,
  adapter: RuntimeAdapter | undefined,
  enterDelayMs = 0,
): Promise<void> {
  tmux.run(['send-keys', '-t', target, '-l', text]);
  const probe = text.split('\n')[0]!.trim().slice(0, 20);
  const drafted = (): boolean => {
    if (!adapter?.readScreen) return false;
    const styled = tmux.run(['capture-pane', '-p', '-e', '-t', target]).split('\n');
    return adapter.readScreen({ styled, plain: styled.map(stripSgr) }).draft?.includes(probe) === true;
  };
  if (adapter?.readScreen) await waitFor(drafted, { timeoutMs: 5_000, intervalMs: 50 }).catch(() => undefined);
  if (enterDelayMs) await new Promise((r) => setTimeout(r, enterDelayMs));
  tmux.run(['send-keys', '-t', target, 'Enter']);
  if (!adapter?.readScreen) return;
  await new Promise((r) => setTimeout(r, 2000));
  if (drafted()) tmux.run(['send-keys', '-t', target, 'Enter']);
}

/** The activity acceptance: the engine reported the state within `budgetMs` of the screen changing. */
export function expectWithin(seen: { ms: number; callMs: number; row: PsRow }, budgetMs: number, what: string): void {
  expect(
    seen.ms,
    `${what}: reported ${seen.ms} ms after the screen changed (the reporting rigdesk ps took ${seen.callMs} ms)`,
  ).toBeLessThan(budgetMs);
}

export interface Want {
  activity: 'working' | 'idle' | 'needs_input' | 'exited';
  needsInput?: 'permission' | 'usage_limit' | 'question' | 'error';
  /** And ps names the conversation (Codex's thread lock may come a moment after its idle screen). */
  named?: boolean;
}

export function describeWant(w: Want): string {
  const s = w.needsInput ? `${w.activity} (${w.needsInput})` : w.activity;
  return w.named ? `${s}, on a named conversation` : s;
}

export function matchesWant(
  row: Pick<PsRow, 'activity' | 'needsInput' | 'session' | 'conversationId'> | undefined,
  want: Want,
): boolean {
  if (!row) return false;
  if (want.named && !row.conversationId) return false;
  if (row.activity !== want.activity) return false;
  if (want.needsInput && row.needsInput !== want.needsInput) return false;
  if (want.activity === 'exited' && row.session !== 'exited') return false;
  return true;
}

/** The journeys' expectation on a seat's activity (the same check the sensitivity test runs). */
export function expectActivity(
  row: Pick<PsRow, 'activity' | 'needsInput' | 'session'> | undefined,
  want: Want,
  where = '',
): void {
  expect(row && { activity: row.activity, needsInput: row.needsInput }, `activity ${where}`).toEqual({
    activity: want.activity,
    needsInput: want.needsInput,
  });
}

/** Transcript of a conversation where the runtime's adapter says it lives. */
export function transcriptOf(adapter: RuntimeAdapter, home: string, cwd: string, id: string): string | undefined {
  return adapter.transcriptPath?.(home, realpathSync(cwd), id, liveEvidenceIO);
}

/** The journeys' expectation that a reply landed in the conversation's transcript. */
export function expectReplyInTranscript(
  adapter: RuntimeAdapter,
  home: string,
  cwd: string,
  id: string,
  reply: string,
): string {
  const path = transcriptOf(adapter, home, cwd, id);
  expect(path, `${adapter.id} transcript of ${id} under ${home}`).toBeDefined();
  expect(readFileSync(path!, 'utf8')).toContain(reply);
  return path!;
}

export async function waitForReplyInTranscript(
  adapter: RuntimeAdapter,
  home: string,
  cwd: string,
  id: string,
  reply: string,
  timeoutMs = 45_000,
): Promise<string> {
  let last: unknown;
  try {
    return await waitFor(
      () => {
        try {
          return expectReplyInTranscript(adapter, home, cwd, id, reply);
        } catch (e) {
          last = e;
          return undefined;
        }
      },
      { timeoutMs, intervalMs: 100, what: `"${reply}" in ${adapter.id} transcript ${id}` },
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}: ${String(last)}`);
  }
}

export { processAlive, waitForExit };

/** Replaces some entries of a signature table for the length of `fn`, then puts them back. */
export async function altered<T extends object>(
  table: T,
  patch: Partial<{ [K in keyof T]: unknown }>,
  fn: () => Promise<void> | void,
): Promise<void> {
  const t = table as Record<string, unknown>;
  const saved = Object.fromEntries(Object.keys(patch).map((k) => [k, t[k]]));
  Object.assign(t, patch);
  try {
    await fn();
  } finally {
    Object.assign(t, saved);
  }
}

/**
 * The expectation holds with the adapter's tables as they are and fails with the one signature
 * (or path rule) it rests on altered as a CLI update would alter it (signature-sensitivity.test.ts).
 */
export async function sensitive(
  check: () => Promise<void> | void,
  alter: (fn: () => Promise<void>) => Promise<void>,
  what: string,
): Promise<void> {
  await check();
  let failed: unknown;
  await alter(async () => {
    try {
      await check();
    } catch (e) {
      failed = e;
    }
  });
  expect(failed, `still passed with ${what} altered: the journey would not notice that change`).toBeDefined();
  await check(); // and back to normal once the table is restored
}

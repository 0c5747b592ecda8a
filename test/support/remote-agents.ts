import Database from 'better-sqlite3';
import { copyFileSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { makeClaudeFixture } from '../agents/claude-fixture';
import { makeCodexFixture } from '../agents/codex-fixture';
import { closedPort, startFakeModelServer, type FakeModelServer } from '../agents/fake-model-server';
import { makeGeminiFixture } from '../agents/gemini-fixture';
import { makeOmoFixture } from '../agents/omo-fixture';
import { makeOmpFixture } from '../agents/omp-fixture';
import { makeOpencodeFixture } from '../agents/opencode-fixture';
import { makePiFixture } from '../agents/pi-fixture';
import { startLocalProxy, type LocalProxy } from '../agents/local-proxy';
import { makeQwenFixture } from '../agents/qwen-fixture';
import { QWEN_PROXY_VAR } from '../../src/main/engine/runtimes/qwen-settings';
import { runtimeById, type RuntimeAdapter } from '../../src/main/engine/runtimes';
import type { EvidenceIO } from '../../src/main/engine/runtimes/types';
import type { RigWorld } from './rig';
import type { TestSshd } from './sshd';
import { newPaneArgv, printedPane, waitFor } from './tmux';

export type HostRuntime = 'claude-code' | 'codex' | 'pi' | 'opencode' | 'gemini' | 'qwen' | 'omp' | 'omo';

/**
 * The real agent CLIs on the test host (test-host.ts), against the fake model server on this
 * machine's 127.0.0.1, which the host reaches through an ssh reverse forward. Each runtime gets the
 * local fixture's isolated home (the same files, the closed-port proxies, NO_PROXY=127.0.0.1,
 * localhost), made at the host's path and handed to the host's user; every path in its env is the
 * host's. Nothing here reads the host's files at the host's paths on this machine: `io` reads them
 * through the host (sshd.hostPath).
 */
export class HostAgents {
  readonly env = {} as Record<HostRuntime, Record<string, string>>;
  /** The seats' folder on the host. */
  readonly work: string;
  private personSocket: string;
  private proxy: LocalProxy | undefined;

  private constructor(
    readonly sshd: TestSshd,
    readonly server: FakeModelServer,
    /** The forward's port on the host: every model call the host makes goes to it. */
    readonly forwardPort: number,
    closed: number,
    runtimes: readonly HostRuntime[],
  ) {
    this.work = `${sshd.remoteDir}/work`;
    this.personSocket = `${sshd.tmuxSocket}-person`;
    sshd.asRemote(['mkdir', '-p', this.work]);
    const url = `http://127.0.0.1:${forwardPort}`;
    for (const rt of runtimes) this.env[rt] = this.makeFixture(rt, url, closed);
  }

  static async start(sshd: TestSshd, runtimes: readonly HostRuntime[], opts = {}): Promise<HostAgents> {
    // The host's user must find and read each CLI (linked from this project's node_modules).
    const bins = runtimes.flatMap((rt) => [runtimeById(rt)!.binary!, ...(runtimeById(rt)!.needs ?? [])]);
    const lacking = sshd
      .asRemote([
        'sh',
        '-c',
        'for b; do p=$(command -v "$b") && [ -r "$(readlink -f "$p")" ] || echo "$b"; done',
        'sh',
        ...bins,
      ])
      .trim();
    if (lacking) throw new Error(`the test host's user cannot run ${lacking.split('\n').join(', ')} from its PATH`);
    const server = await startFakeModelServer({ slowChunks: 5, slowMs: 1000, ...opts });
    const forwardPort = await sshd.reverseForward(server.port);
    return new HostAgents(sshd, server, forwardPort, await closedPort(), runtimes);
  }

  private makeFixture(rt: HostRuntime, url: string, closed: number): Record<string, string> {
    const root = `${this.sshd.remoteDir}/${rt}`;
    const here = this.sshd.hostPath(root);
    mkdirSync(here, { recursive: true });
    const opts = { serverUrl: url, closedPort: closed, trustedCwds: [this.work], root: here };
    const made = {
      'claude-code': () => makeClaudeFixture(opts).env,
      codex: () => makeCodexFixture(opts).env,
      pi: () => makePiFixture(opts).env,
      opencode: () => makeOpencodeFixture(opts).env,
      gemini: () => makeGeminiFixture(opts).env,
      qwen: () => makeQwenFixture(opts).env,
      omp: () => makeOmpFixture(opts).env,
      omo: () => makeOmoFixture(opts).env,
    }[rt]();
    // What the fixture wrote at `here` is the host's `root`: no path of this machine may stay in it.
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(made)) out[k] = v.split(here).join(root);
    out.PATH = this.sshd.loginPath();
    assertNoPath(here, here);
    this.sshd.giveToUser(root);
    return out;
  }

  /**
   * Qwen ignores NO_PROXY: its seat names the tests' loopback-only proxy in RIGDESK_QWEN_PROXY,
   * which Rigdesk writes into the seat's settings on the host. The proxy runs here; the host
   * reaches it through a reverse forward of its own.
   */
  async qwenProxy(): Promise<LocalProxy> {
    this.proxy ??= await startLocalProxy();
    this.env.qwen[QWEN_PROXY_VAR] = `http://127.0.0.1:${await this.sshd.reverseForward(this.proxy.port)}`;
    return this.proxy;
  }

  /**
   * Another Claude Code home on the host that the seat does not isolate: the same files under its
   * HOME (`~/.claude.json`, `~/.claude/settings.json`) and no CLAUDE_CONFIG_DIR, so Rigdesk installs
   * no hooks for it (they go only into a config a seat isolates): the screen-only path.
   */
  claudeWithoutConfigDir(name: string): Record<string, string> {
    const root = `${this.sshd.remoteDir}/${name}`;
    const here = this.sshd.hostPath(root);
    mkdirSync(here, { recursive: true });
    const fx = makeClaudeFixture({
      serverUrl: `http://127.0.0.1:${this.forwardPort}`,
      closedPort: Number(/:(\d+)$/.exec(this.env['claude-code'].HTTPS_PROXY!)![1]),
      trustedCwds: [this.work],
      root: here,
    });
    mkdirSync(join(fx.home, '.claude'), { recursive: true });
    copyFileSync(join(fx.configDir, '.claude.json'), join(fx.home, '.claude.json'));
    copyFileSync(join(fx.configDir, 'settings.json'), join(fx.home, '.claude', 'settings.json'));
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(fx.env)) if (k !== 'CLAUDE_CONFIG_DIR') out[k] = v.split(here).join(root);
    out.PATH = this.sshd.loginPath();
    assertNoPath(here, here);
    this.sshd.giveToUser(root);
    return out;
  }

  homeOf(rt: HostRuntime): string {
    return this.env[rt][runtimeById(rt)!.homeEnvVar!]!;
  }

  /** Evidence files of the host, as the adapters read them (through the host's own root). */
  readonly io: EvidenceIO = {
    listDir: (p) => {
      try {
        return readdirSync(this.sshd.hostPath(p));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw e;
      }
    },
    readFile: (p) => readFileSync(this.sshd.hostPath(p), 'utf8'),
    exists: (p) => existsSync(this.sshd.hostPath(p)),
    fileId: (p) => {
      try {
        const s = statSync(this.sshd.hostPath(p));
        return { devMajor: Math.floor(s.dev / 256), devMinor: s.dev % 256, inode: s.ino };
      } catch {
        return undefined;
      }
    },
    querySqlite: (file, sql, params) => {
      const here = this.sshd.hostPath(file);
      if (!existsSync(here)) return undefined;
      const db = new Database(here, { readonly: true, fileMustExist: true });
      try {
        return db.prepare(sql).all(...params);
      } finally {
        db.close();
      }
    },
  };

  /** The conversation's transcript on the host (the adapter's own rule), or undefined. */
  transcript(rt: HostRuntime, id: string): string | undefined {
    return runtimeById(rt)!.transcriptPath?.(this.homeOf(rt), this.work, id, this.io);
  }

  async replyIn(rt: HostRuntime, id: string, text: string, timeoutMs = 60_000): Promise<string> {
    return waitFor(
      () => {
        const p = this.transcript(rt, id);
        return p && this.sshd.readHost(p).includes(text) ? p : undefined;
      },
      { timeoutMs, intervalMs: 200, what: `"${text}" in ${rt}'s transcript ${id} on the host` },
    );
  }

  /** A rig spec's member on `host`, in the host's work folder (or `cwd`), with the runtime's isolated env. */
  member(
    id: string,
    rt: HostRuntime,
    host = 'box',
    env: Record<string, string> = this.env[rt],
    cwd = this.work,
  ): string {
    return [
      `      - id: ${id}`,
      `        runtime: ${rt}`,
      `        host: ${host}`,
      `        cwd: ${JSON.stringify(cwd)}`,
      '        env:',
      ...Object.entries(env).map(([k, v]) => `          ${k}: ${JSON.stringify(v)}`),
    ].join('\n');
  }

  spec(w: RigWorld, rig: string, members: string[], host = 'box'): string {
    return w.spec(
      `${rig}.yaml`,
      `${[`name: ${rig}`, 'hosts:', this.sshd.hostYaml(host), 'pods:', '  - id: team', '    members:', ...members].join('\n')}\n`,
    );
  }

  /** Rigdesk's tmux on the host, as the host's user. */
  tmux(args: string[]): string {
    return this.sshd.asRemote(['tmux', '-L', this.sshd.tmuxSocket, ...args]);
  }

  screen(seat: string): string {
    try {
      return this.tmux(['capture-pane', '-p', '-J', '-S', '-60', '-t', seat]);
    } catch (e) {
      return `(no screen: ${String((e as { stderr?: unknown }).stderr ?? e)})`;
    }
  }

  /**
   * A person's own terminal on the host: `argv` in a session of their own tmux server there (not
   * Rigdesk's), with the runtime's env, in the work folder.
   */
  personPane(rt: HostRuntime, name: string, argv: string[]): { paneId: string; panePid: number } {
    const env = this.env[rt];
    const out = this.sshd.asRemote(
      [
        'tmux',
        '-L',
        this.personSocket,
        '-f',
        '/dev/null',
        ...newPaneArgv(name, this.work, env),
        // The pane stays when the program ends, with how it ended, for a failure's message.
        'sh',
        '-c',
        '"$@"; echo "[exited $?]"; exec sleep 3600',
        'sh',
        ...argv,
      ],
      { env },
    );
    return printedPane(out);
  }

  personScreen(paneId: string): string {
    return this.sshd.asRemote(['tmux', '-L', this.personSocket, 'capture-pane', '-p', '-t', paneId]);
  }

  /** A person types into their own pane on the host: the text, then Enter once it shows as a draft. */
  async personTypes(paneId: string, text: string, adapter: RuntimeAdapter): Promise<void> {
    const t = (args: string[]) => this.sshd.asRemote(['tmux', '-L', this.personSocket, ...args]);
    t(['send-keys', '-t', paneId, '-l', text]);
    const drafted = () => {
      const styled = t(['capture-pane', '-p', '-e', '-t', paneId]).split('\n');
      const plain = styled.map((l) => l.replace(/\x1b\[[0-9;:]*m/g, ''));
      return adapter.readScreen?.({ styled, plain }).draft?.includes(text.slice(0, 20)) === true;
    };
    await waitFor(drafted, { timeoutMs: 10_000, intervalMs: 100, what: 'the typed text in the input box' }).catch(
      () => undefined,
    );
    t(['send-keys', '-t', paneId, 'Enter']);
  }

  /** Ends the person's tmux server on the host (their agents with it). */
  endPerson(): void {
    try {
      this.sshd.asRemote(['tmux', '-L', this.personSocket, 'kill-server']);
    } catch {
      /* none */
    }
  }

  /** Every model call came from this machine's loopback, and through the host's forward. */
  expectThroughForward(): void {
    expect(this.server.requests.length).toBeGreaterThan(0);
    const stray = this.server.requests.filter(
      (r) => !['127.0.0.1', '::ffff:127.0.0.1'].includes(r.remoteAddress) || r.host !== `127.0.0.1:${this.forwardPort}`,
    );
    expect(stray, 'requests not from the host through its forward').toEqual([]);
  }

  async close(): Promise<void> {
    this.endPerson();
    await this.proxy?.close();
    await this.server.close();
  }
}

/** Throws when a file under `dir` still names `path` (a fixture's local path that must be the host's). */
function assertNoPath(dir: string, path: string): void {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = lstatSync(p);
    if (st.isDirectory()) assertNoPath(p, path);
    else if (st.isFile() && st.size < 1_000_000 && readFileSync(p, 'utf8').includes(path))
      throw new Error(`${p} names this machine's ${path}; the host would not find it`);
  }
}

import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { type Chrome, openWindow } from '../../test/app/chromium';
import { closedPort, type FakeModelServer, startFakeModelServer } from '../../test/agents/fake-model-server';
import { JourneyWorld } from '../../test/journeys/support';
import { RIGDESK_BIN } from '../../test/support/rig';
import { waitFor } from '../../test/support/tmux';

export const RIG = 'soak';
export const AGENT_SEATS = [`claude@${RIG}`, `codex@${RIG}`] as const;

/** An engine's open files and memory at one moment, read from /proc by its pid. */
export interface EngineFigures {
  pid: number;
  at: string;
  openFiles: number;
  rssKiB: number;
}

export function engineFigures(pid: number): EngineFigures | undefined {
  try {
    const openFiles = readdirSync(`/proc/${pid}/fd`).length;
    const rss = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return { pid, at: new Date().toISOString(), openFiles, rssKiB: Number(rss?.[1] ?? 0) };
  } catch {
    return undefined;
  }
}

/**
 * The soak's world: one fake model server, one Rigdesk home and private tmux socket (a
 * JourneyWorld: isolated, offline Claude Code and Codex homes), a rig of shell seats plus one
 * Claude Code and one Codex seat, the real `rigdesk serve`, and its window open in Chromium.
 * Every pid it starts is kept, so the end can tell what was left behind by pid.
 */
export class SoakRig {
  readonly started: ChildProcess[] = [];
  j!: JourneyWorld;
  server!: FakeModelServer;
  serve?: ChildProcess;
  url?: string;
  chrome?: Chrome;
  page?: Page;
  readonly pageErrors: string[] = [];
  /** Settles once the window is on the current engine's page (see `showWindow`). */
  windowReady: Promise<void> = Promise.resolve();
  specPath = '';

  constructor(readonly shellSeats: number) {}

  get env(): NodeJS.ProcessEnv {
    return this.j.w.env;
  }

  get socket(): string {
    return this.j.w.tmux.socketName;
  }

  get seats(): string[] {
    return [
      ...Array.from({ length: this.shellSeats }, (_, i) => `s${String(i).padStart(2, '0')}@${RIG}`),
      ...AGENT_SEATS,
    ];
  }

  async open(): Promise<void> {
    this.server = await startFakeModelServer({ slowChunks: 3, slowMs: 500 });
    this.j = new JourneyWorld(this.server, await closedPort(), ['claude-code', 'codex']);
    this.specPath = this.j.w.spec(`${RIG}.yaml`, this.specYaml());
  }

  private specYaml(): string {
    const lines = [`name: ${RIG}`, 'pods:', '  - id: team', '    members:'];
    for (let i = 0; i < this.shellSeats; i++)
      lines.push(
        `      - { id: s${String(i).padStart(2, '0')}, runtime: shell, cwd: ./work, command: bash, args: ["--noprofile", "--norc"] }`,
      );
    for (const [id, runtime] of [
      ['claude', 'claude-code'],
      ['codex', 'codex'],
    ] as const) {
      lines.push(`      - id: ${id}`, `        runtime: ${runtime}`, '        cwd: ./work', '        env:');
      for (const [k, v] of Object.entries(this.j.envOf(runtime))) lines.push(`          ${k}: ${JSON.stringify(v)}`);
    }
    return `${lines.join('\n')}\n`;
  }

  /** `rigdesk serve --json`, waited for until it prints the window's URL. */
  async startEngine(): Promise<void> {
    const child = spawn(process.execPath, [RIGDESK_BIN, 'serve', '--json'], {
      env: this.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.started.push(child);
    this.serve = child;
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.resume();
    this.url = await waitFor(
      () => {
        const line = out.split('\n').find((l) => l.includes('"serving"'));
        return line ? (JSON.parse(line).url as string) : undefined;
      },
      { what: 'rigdesk serve up', timeoutMs: 60_000 },
    );
  }

  /** SIGTERM to the engine; how long it took to end, or undefined if it had not ended in `ms`. */
  async endEngine(ms = 30_000): Promise<number | undefined> {
    const child = this.serve;
    if (!child || child.exitCode !== null || child.signalCode !== null) return 0;
    const t0 = performance.now();
    const ended = new Promise<boolean>((r) => {
      child.once('exit', () => r(true));
      setTimeout(() => r(false), ms);
    });
    child.kill('SIGTERM');
    return (await ended) ? Math.round(performance.now() - t0) : undefined;
  }

  /** The window in Chromium on the engine's URL (opened once, then pointed at each new engine). */
  showWindow(): Promise<void> {
    this.windowReady = this.pointWindow().catch((e) => void this.pageErrors.push(`window: ${String(e)}`));
    return this.windowReady;
  }

  private async pointWindow(): Promise<void> {
    if (!this.url) return;
    if (!this.page) {
      const w = await openWindow(this.url, { viewport: { width: 1280, height: 800 } });
      this.chrome = w.chrome;
      this.page = w.page;
      w.page.on('pageerror', (e) => this.pageErrors.push(String(e)));
      return;
    }
    await this.page.goto(this.url);
  }

  async close(): Promise<void> {
    await this.chrome?.close().catch(() => undefined);
    await this.endEngine(10_000);
    for (const c of this.started) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await this.j?.cleanup();
    await this.server?.close();
  }
}

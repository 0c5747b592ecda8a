/**
 * An isolated home for the real omp (oh-my-pi, @oh-my-pi/pi-coding-agent 18.2.3 on bun 1.4.5):
 * its own HOME, PI_CODING_AGENT_DIR, TMPDIR and XDG dirs under one temp folder, a `fake`
 * openai-completions provider at a fake model server on 127.0.0.1 (`models.yml`), every proxy
 * variable sending anything else to a closed local port (Bun's fetch honours them), the update
 * check off, and bash calls asking first (`tools.approval.bash: prompt`; omp's default runs them
 * unasked). The first-run setup is left unsettled unless asked: Rigdesk settles it for a seat.
 *
 * omp also probes local model servers on start (127.0.0.1 ports 11434, 8080 and 1234) and would
 * take whatever answers there for models: `localModelPortsInUse` says when the machine has one.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sandboxNetworkEnv } from './fake-model-server';

/** The project's own omp (devDependency; `dist/cli.js`, `#!/usr/bin/env bun`). */
export const OMP_BIN: string = fileURLToPath(new URL('../../node_modules/.bin/omp', import.meta.url));
const PROJECT_BIN_DIR = fileURLToPath(new URL('../../node_modules/.bin', import.meta.url));

/** The version the tests were written against. */
export const OMP_VERSION = '18.2.3';

/** Where omp looks for local model servers on every start (ollama, llama.cpp, LM Studio). */
export const OMP_PROBED_PORTS = [11434, 8080, 1234] as const;

export interface OmpFixture {
  root: string;
  home: string;
  /** PI_CODING_AGENT_DIR: models.yml, config.yml, sessions/, agent.db */
  agentDir: string;
  tmp: string;
  env: Record<string, string>;
  /** Every session file of the agent dir, as `<folder>/<name>`. */
  sessionFiles(): string[];
  /** The session file of an id, wherever omp put it. */
  sessionFileFor(id: string): string | undefined;
  /** The text of every message of a session file, in order. */
  sessionText(id: string): string;
  cleanup(): void;
}

export interface OmpFixtureOptions {
  serverUrl: string;
  closedPort: number;
  root?: string;
  /** Write `setupVersion: 2` (the settled first-run setup) into config.yml. Default false. */
  setupDone?: boolean;
}

/** The local ports omp probes that something listens on now (from /proc/net/tcp and tcp6). */
export function localModelPortsInUse(): number[] {
  const listening = new Set<number>();
  for (const f of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(f, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols[3] === '0A') listening.add(Number.parseInt(cols[1]!.split(':').pop()!, 16));
    }
  }
  return OMP_PROBED_PORTS.filter((p) => listening.has(p));
}

/**
 * Why omp cannot be tested offline here, or undefined: something listens on a port omp probes,
 * and omp would list its models beside the fake one (and talk to it). Under CI that fails.
 */
export function ompPortsProblem(): string | undefined {
  const busy = localModelPortsInUse();
  if (busy.length === 0) return undefined;
  const why = `something listens on 127.0.0.1 port(s) ${busy.join(', ')}, which omp probes for local models on every start`;
  if (process.env.CI) throw new Error(`CI must keep ${OMP_PROBED_PORTS.join(', ')} free for the omp tests: ${why}`);
  process.stdout.write(`skipped: omp tests: ${why}\n`);
  return why;
}

export function makeOmpFixture(opts: OmpFixtureOptions): OmpFixture {
  const ownRoot = opts.root === undefined;
  if (opts.root !== undefined) mkdirSync(opts.root, { recursive: true });
  const root = realpathSync(opts.root ?? mkdtempSync(join(tmpdir(), 'rd-omp-')));
  const home = join(root, 'home');
  const agentDir = join(root, 'agent');
  const tmp = join(root, 'tmp');
  for (const d of [home, agentDir, tmp]) mkdirSync(d, { recursive: true });
  writeFileSync(
    join(agentDir, 'models.yml'),
    [
      'providers:',
      '  fake:',
      `    baseUrl: ${opts.serverUrl}/v1`,
      '    apiKey: FAKE_API_KEY',
      '    api: openai-completions',
      '    models:',
      '      - id: fake-model',
      '        name: Fake Model',
      '        contextWindow: 128000',
      '        maxTokens: 4096',
      '        compat: { supportsDeveloperRole: false, supportsReasoningEffort: false }',
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(agentDir, 'config.yml'),
    [
      '# the fake model for every role; bash asks first; no update check',
      'modelRoles: { default: fake/fake-model, smol: fake/fake-model, slow: fake/fake-model, plan: fake/fake-model }',
      'tools: { approvalMode: write, approval: { bash: prompt } }',
      'startup: { checkUpdate: false }',
      ...(opts.setupDone ? ['setupVersion: 2'] : []),
      '',
    ].join('\n'),
  );
  const env: Record<string, string> = {
    HOME: home,
    PI_CODING_AGENT_DIR: agentDir,
    TMPDIR: tmp,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    FAKE_API_KEY: 'sk-fake',
    TERM: 'xterm-256color',
    ...sandboxNetworkEnv(opts.closedPort),
    PATH: [PROJECT_BIN_DIR, process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin'].join(delimiter),
  };
  const sessionsRoot = join(agentDir, 'sessions');
  const sessionFiles = (): string[] => {
    let folders: string[];
    try {
      folders = readdirSync(sessionsRoot);
    } catch {
      return [];
    }
    return folders.flatMap((f) => {
      try {
        return readdirSync(join(sessionsRoot, f))
          .filter((n) => n.endsWith('.jsonl'))
          .map((n) => `${f}/${n}`);
      } catch {
        return [];
      }
    });
  };
  const sessionFileFor = (id: string): string | undefined => {
    const hit = sessionFiles().find((f) => f.endsWith(`_${id}.jsonl`));
    return hit ? join(sessionsRoot, hit) : undefined;
  };
  return {
    root,
    home,
    agentDir,
    tmp,
    env,
    sessionFiles,
    sessionFileFor,
    sessionText(id) {
      const f = sessionFileFor(id);
      if (!f) return '';
      return ompEntries(readFileSync(f, 'utf8'))
        .map((e) => textOf(e))
        .filter(Boolean)
        .join('\n');
    },
    cleanup() {
      if (ownRoot) rmSync(root, { recursive: true, force: true });
      else for (const d of [home, agentDir, tmp]) rmSync(d, { recursive: true, force: true });
    },
  };
}

export interface OmpEntry {
  type: string;
  id?: string;
  parentId?: string | null;
  cwd?: string;
  message?: { role: string; content: string | Array<{ type: string; text?: string }> };
}

export function ompEntries(text: string): OmpEntry[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as OmpEntry);
}

export function textOf(e: OmpEntry): string {
  const c = e.message?.content;
  if (typeof c === 'string') return c;
  return (c ?? []).map((p) => p.text ?? '').join('');
}

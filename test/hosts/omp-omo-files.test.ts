/**
 * omp's and omo's files for a seat on another host, through the host's own shell: what a launch
 * asks the host first (its folder, HOME and temp root resolved there, the programs it needs as its
 * PATH finds them), omp's fresh session file and first-run setup, omo's plugin from the host's
 * own package, and omp's transcript found in the host's evidence rounds. The scripts run in a real
 * local sh here (what ssh runs there), counted in round trips.
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countingExec, liveExec, type Exec } from '../../src/main/engine/deps';
import { answerOnHost } from '../../src/main/engine/hosts/evidence-batch';
import { withHostFiles, writeOnHost } from '../../src/main/engine/hosts/host-files';
import { omo, omp } from '../../src/main/engine/runtimes';
import { ompHeaderId, OMP_LAYOUT } from '../../src/main/engine/runtimes/omp-sessions';
import type { EvidenceIO } from '../../src/main/engine/runtimes/types';
import { hostFactsArgs, parseHostFacts } from '../../src/main/engine/seats/launch-remote';
import { hostSeatEnv } from '../../src/main/engine/seats/prepare-remote';

const X = '01a23c00-0000-7000-8000-000000000001';

describe("omp's and omo's files for a seat on a host (the host's scripts in a real sh)", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rd-omphost-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  /** The host's shell, with the PATH its logins get. */
  const hostExec =
    (path: string): Exec =>
    (file, args, opts) =>
      liveExec('env', [`PATH=${path}`, file, ...args], opts);

  it("omp's fresh session file: the folder named from HOME as the host resolves it, made there only by the launch's writes", async () => {
    mkdirSync(join(dir, 'real-home', 'work'), { recursive: true });
    symlinkSync(join(dir, 'real-home'), join(dir, 'home'));
    const agentDir = join(dir, 'agent');
    const seat = {
      cwd: join(dir, 'home', 'work'),
      command: null,
      env: { HOME: join(dir, 'home'), PI_CODING_AGENT_DIR: agentDir },
    };
    const exec = countingExec(hostExec(`${stubBin(dir, 'omp')}:/usr/bin:/bin`));
    const probe = await exec('sh', hostFactsArgs(seat, omp));
    const facts = parseHostFacts(probe.stdout, seat.cwd);
    expect(facts, probe.stdout + probe.stderr).toMatchObject({ realCwd: join(dir, 'real-home', 'work') });
    if (typeof facts === 'string') return;
    expect(facts.binary).toBe(join(dir, 'stub-bin', 'omp'));
    expect(facts.real.get(join(dir, 'home'))).toBe(join(dir, 'real-home'));

    const r = await withHostFiles(
      exec,
      (io) =>
        omp.freshArgv({
          binary: '/opt/omp',
          cwd: seat.cwd,
          args: [],
          home: agentDir,
          newId: () => X,
          env: hostSeatEnv(seat, facts),
          files: io,
        }),
      facts.real,
    );
    expect(r.ok && r.value).toEqual({ argv: ['/opt/omp', '--resume', X], conversationId: X });
    if (!r.ok) return;
    expect(exec.count, 'the facts, and no read for a new file').toBe(1);
    expect(existsSync(join(agentDir, 'sessions')), 'nothing made before the writes').toBe(false);
    expect(await writeOnHost(exec, r.writes)).toEqual({ ok: true });
    const made = readdirSync(join(agentDir, 'sessions', '-work'));
    expect(made).toEqual([expect.stringMatching(new RegExp(`_${X}\\.jsonl$`))]);
    expect(ompHeaderId(readFileSync(join(agentDir, 'sessions', '-work', made[0]!), 'utf8'))).toBe(X);
  });

  it("omp's first-run setup goes into the seat's agent dir on the host in one read and one write, keeping what is there", async () => {
    const agentDir = join(dir, 'agent');
    mkdirSync(agentDir);
    writeFileSync(join(agentDir, 'config.yml'), '# mine\ntools: { approval: { bash: prompt } }\n');
    const exec = countingExec(liveExec);
    const prep = () =>
      withHostFiles(exec, (io) =>
        omp.prepareSeat!(
          {
            seat: 'om@r',
            seatEnv: { PI_CODING_AGENT_DIR: agentDir },
            env: {},
            cwd: dir,
            home: agentDir,
            userHome: dir,
            io,
          },
          { write: true },
        ),
      );
    const r = await prep();
    expect(r.ok && r.value).toMatchObject({ ok: true, detail: expect.stringContaining('setupVersion 2') });
    expect(exec.count).toBe(1);
    expect(readFileSync(join(agentDir, 'config.yml'), 'utf8')).not.toContain('setupVersion');
    if (!r.ok) return;
    expect(await writeOnHost(exec, r.writes)).toEqual({ ok: true });
    const text = readFileSync(join(agentDir, 'config.yml'), 'utf8');
    expect(text).toMatch(/^setupVersion: 2$/m);
    expect(text).toContain('# mine');
    const again = await prep();
    expect(again.ok && again.writes, 'settled: nothing to write').toEqual([]);
  });

  it("omo's plugin comes from the package whose omo is on the host's PATH, never this machine's, with the SDK link made there", async () => {
    // A package only "the host" has: at a path of its own, found through its PATH.
    const nm = join(dir, 'host-pkgs', 'node_modules');
    const pkg = join(nm, 'oh-my-opencode');
    for (const d of ['bin', 'dist']) mkdirSync(join(pkg, d), { recursive: true });
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'oh-my-opencode', version: '9.9.9' }));
    writeFileSync(join(pkg, 'bin', 'oh-my-opencode.js'), '#!/usr/bin/env node\n', { mode: 0o755 });
    writeFileSync(join(pkg, 'dist', 'index.js'), 'export default {}\n');
    const sdk = join(nm, '@opencode-ai', 'plugin');
    mkdirSync(sdk, { recursive: true });
    writeFileSync(join(sdk, 'package.json'), JSON.stringify({ name: '@opencode-ai/plugin', version: '1.2.3' }));
    mkdirSync(join(dir, 'bin'));
    symlinkSync(join(pkg, 'bin', 'oh-my-opencode.js'), join(dir, 'bin', 'omo'));
    const exec = countingExec(hostExec(`${join(dir, 'bin')}:${stubBin(dir, 'opencode')}:/usr/bin:/bin`));
    const seat = { cwd: dir, command: null, env: { XDG_CONFIG_HOME: join(dir, 'config') } };
    const facts = parseHostFacts((await exec('sh', hostFactsArgs(seat, omo))).stdout, dir);
    if (typeof facts === 'string') throw new Error(`no facts: ${facts}`);
    expect(facts.needs).toEqual({ omo: join(pkg, 'bin', 'oh-my-opencode.js') });

    const configDir = join(dir, 'config', 'opencode');
    const prep = () =>
      withHostFiles(exec, (io) =>
        omo.prepareSeat!(
          {
            seat: 'oo@r',
            seatEnv: seat.env,
            // This machine's PATH has no such package: only the host's answer can find it.
            env: { PATH: '/nonexistent' },
            cwd: dir,
            home: join(dir, 'data'),
            userHome: dir,
            io,
            programPath: (p) => facts.needs[p],
          },
          { write: true },
        ),
      );
    exec.count = 0;
    const r = await prep();
    expect(r.ok && r.value).toMatchObject({
      ok: true,
      detail: expect.stringContaining(`oh-my-opencode 9.9.9 from ${pkg}`),
    });
    expect(exec.count, 'the package and the config in one round trip, the SDK and the records in another').toBe(2);
    expect(existsSync(configDir), 'nothing made before the writes').toBe(false);
    if (!r.ok) return;
    expect(await writeOnHost(exec, r.writes)).toEqual({ ok: true });
    const cfg = JSON.parse(readFileSync(join(configDir, 'opencode.json'), 'utf8')) as { plugin: string[] };
    expect(cfg.plugin).toEqual([pathToFileURL(join(pkg, 'dist', 'index.js')).href]);
    const link = join(configDir, 'node_modules', '@opencode-ai', 'plugin');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(sdk);
    expect(JSON.parse(readFileSync(join(configDir, 'package.json'), 'utf8')).dependencies).toEqual({
      '@opencode-ai/plugin': '1.2.3',
    });
    expect(JSON.parse(readFileSync(join(configDir, 'package-lock.json'), 'utf8')).packages[''].dependencies).toEqual({
      '@opencode-ai/plugin': '1.2.3',
    });
    const again = await prep();
    expect(again.ok && again.writes.filter((w) => w.kind !== 'dir'), 'installed: nothing to write').toEqual([]);

    // A host without omo on its PATH: refused as not installed, nothing written.
    const none = await withHostFiles(exec, (io) =>
      omo.prepareSeat!(
        {
          seat: 'oo@r',
          seatEnv: seat.env,
          env: {},
          cwd: dir,
          home: dir,
          userHome: dir,
          io,
          programPath: () => undefined,
        },
        { write: true },
      ),
    );
    expect(none.ok && none.value).toMatchObject({ ok: false, code: 'RUNTIME_NOT_INSTALLED' });
  });

  it('a link is made only where nothing is', async () => {
    const link = join(dir, 'a', 'link');
    expect(await writeOnHost(liveExec, [{ kind: 'link', path: link, text: '/first' }])).toEqual({ ok: true });
    expect(await writeOnHost(liveExec, [{ kind: 'link', path: link, text: '/second' }])).toEqual({ ok: true });
    expect(readlinkSync(link)).toBe('/first');
  });

  it("omp's transcript on a host is found in two round trips however many folders its agent dir has", async () => {
    const agentDir = join(dir, 'agent');
    for (const f of ['--a--', '--b--', '-c']) mkdirSync(join(agentDir, OMP_LAYOUT.sessionsDir, f), { recursive: true });
    const file = join(agentDir, OMP_LAYOUT.sessionsDir, '-c', OMP_LAYOUT.fileFor('2026-12-03T11:51:04.221Z', X));
    writeFileSync(file, '{}\n');
    const exec = countingExec(liveExec);
    const r = await answerOnHost(
      exec,
      new Map([
        ['there', { ask: (io: EvidenceIO) => omp.transcriptPath!(agentDir, dir, X, io) }],
        ['missing', { ask: (io: EvidenceIO) => omp.transcriptPath!(agentDir, dir, 'nope', io) }],
      ]),
    );
    expect(r.ok && Object.fromEntries(r.answers)).toEqual({ there: file, missing: undefined });
    expect(exec.count).toBe(2);
  });
});

/** A folder holding a program of that name (a launch's facts need the runtime's program on PATH). */
function stubBin(dir: string, name: string): string {
  const bin = join(dir, 'stub-bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, name), '#!/bin/sh\n', { mode: 0o755 });
  return bin;
}

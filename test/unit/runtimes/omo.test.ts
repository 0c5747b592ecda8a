/**
 * omo's adapter without the CLI: which processes are omo's (the three of an `omo run`, as /proc
 * showed them for 4.19.4), the session they name, omo's conversations counted as OpenCode's by
 * custody, and the plugin installed into a seat's own OpenCode config from the local package.
 */
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_RUNTIMES, omo, opencode } from '../../../src/main/engine/runtimes';
import { omoRunSession } from '../../../src/main/engine/runtimes/omo';
import { findOmoPackage, prepareOmoSeat, withLocalPlugin } from '../../../src/main/engine/runtimes/omo-settings';
import { conversationFamily, sameConversations } from '../../../src/main/engine/runtimes/family';
import { buildRoster } from '../../../src/main/engine/roster/build';
import { checkConversationFree } from '../../../src/main/engine/custody/guard';
import type { ProcInfo, ProcReader } from '../../../src/main/engine/proc/types';
import { memoryIO, proc } from './helpers';

const X = 'ses_dcb96641fffe3VwX1DVxMZDXpT';
const BIN_DIR = fileURLToPath(new URL('../../../node_modules/.bin', import.meta.url));
const RUN = [
  ['node', '/p/node_modules/.bin/omo', 'run', '--session-id', X, 'hi'],
  ['/usr/bin/node', '/p/node_modules/oh-my-opencode-linux-x64/bin/oh-my-opencode.js', 'run', '--session-id', X, 'hi'],
  ['bun', '/p/node_modules/oh-my-opencode/dist/cli/index.js', 'run', '--session-id', X, 'hi'],
];

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'rd-omo-unit-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('omo processes', () => {
  it('each of the three processes of `omo run --session-id X` is omo and names X; only `run` is an agent', () => {
    for (const argv of RUN) {
      const p = proc(argv[0]!.endsWith('bun') ? 'bun' : 'node', argv);
      expect(AGENT_RUNTIMES.filter((r) => r.matches(p)).map((r) => r.id)).toEqual(['omo']);
      expect(omo.conversationFromArgv(argv)).toBe(X);
    }
    expect(omo.matches(proc('node', ['node', '/p/node_modules/.bin/omo', 'install', '--no-tui']))).toBe(false);
    expect(omo.matches(proc('node', ['node', '/p/node_modules/.bin/omo', 'doctor']))).toBe(false);
    expect(omoRunSession(['node', '/p/.bin/omo', 'run', 'hello'])).toBeUndefined();
    expect(omoRunSession(['node', '/p/.bin/omo', 'run', '--session-id', 'nope', 'hi'])).toBeUndefined();
    expect(omoRunSession(['node', '/p/.bin/omo', 'run', '--', '--session-id', X])).toBeUndefined();
  });

  it("an omo seat's program is OpenCode's: `opencode`, resumed with -s, the process matched as OpenCode", () => {
    const ctx = { binary: '/b/opencode', cwd: '/w', args: [], newId: () => 'x' };
    expect(omo.freshArgv(ctx)).toEqual({ argv: ['/b/opencode'] });
    expect(omo.resumeArgv(ctx, X)).toEqual(['/b/opencode', '-s', X]);
    const tui = proc('opencode', ['opencode', '-s', X]);
    expect(AGENT_RUNTIMES.filter((r) => r.matches(tui)).map((r) => r.id)).toEqual(['opencode']);
    expect(omo.conversationFromArgv(['opencode', '-s', X])).toBe(X);
    expect(omo.binary).toBe('opencode');
    expect(omo.needs).toEqual(['omo']);
    expect(omo.missingConversation).toBe(opencode.missingConversation);
  });

  it("its seats get OpenCode's env and omo's telemetry off, unless the spec says otherwise", () => {
    const dir = tempDir();
    expect(omo.seatEnv!({ seatDir: dir, env: {} })).toEqual({
      TMPDIR: join(dir, 'tmp'),
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      OMO_SEND_ANONYMOUS_TELEMETRY: '0',
      OMO_DISABLE_POSTHOG: '1',
    });
    expect(omo.seatEnv!({ seatDir: dir, env: { TMPDIR: dir, OMO_SEND_ANONYMOUS_TELEMETRY: 'yes' } })).toEqual({
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      OMO_DISABLE_POSTHOG: '1',
    });
  });
});

describe("omo's conversations are OpenCode's", () => {
  it('the family', () => {
    expect(sameConversations('omo', 'opencode')).toBe(true);
    expect(sameConversations('omo', 'omo')).toBe(true);
    expect(sameConversations('opencode', 'pi')).toBe(false);
    expect(conversationFamily('opencode')).toEqual(['opencode', 'omo']);
    expect(conversationFamily('codex')).toEqual(['codex']);
  });

  const HOME = '/h/.local/share';
  const CWD = '/w/work';
  const reader = (procs: ProcInfo[]): ProcReader => {
    const byPid = new Map(procs.map((p) => [p.pid, p]));
    const children = new Map<number, number[]>();
    for (const p of procs) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid]);
    return {
      snapshot: () => ({ takenAt: 1, byPid, children }),
      read: (pid) => byPid.get(pid),
      cwd: () => CWD,
      environ: () => ({ HOME: '/h', XDG_DATA_HOME: HOME }),
      locks: () => [],
    };
  };
  const at = (pid: number, ppid: number, comm: string, argv: string[]) =>
    proc(comm, argv, { pid, ppid, pgid: pid, startTime: String(1000 + pid) });
  const rosterOf = (procs: ProcInfo[]) =>
    buildRoster({
      proc: reader(procs),
      io: memoryIO({}),
      servers: [],
      clientForPath: () => {
        throw new Error('no tmux here');
      },
      keyForPath: () => undefined,
      knownHomes: [],
      uid: 1000,
      selfPid: 1,
      now: () => 1,
    });
  const run = [
    at(500, 1, 'node', RUN[0]!),
    at(501, 500, 'node', RUN[1]!),
    at(502, 501, 'bun', RUN[2]!),
    at(503, 502, 'opencode', ['opencode', 'serve', '--hostname=127.0.0.1', '--port=4096']),
  ];

  it('a headless `omo run --session-id X` is one omo agent owning X, refused to an omo seat and to an OpenCode seat alike', async () => {
    const r = await rosterOf(run);
    expect(r.agents.map((a) => [a.pid, a.runtime, a.conversationId])).toEqual([
      [500, 'omo', X],
      [503, 'opencode', undefined],
    ]);
    for (const runtime of ['omo', 'opencode']) {
      const res = checkConversationFree(r, { runtime, conversationId: X, cwd: CWD, home: HOME });
      expect(res).toMatchObject({ ok: false, code: 'CONVERSATION_LIVE_ELSEWHERE' });
      expect(!res.ok && res.evidence?.owners).toEqual([
        expect.objectContaining({ pid: 500, headless: true, runtime: 'omo' }),
      ]);
    }
  });

  it('an `opencode -s X` is an owner to an omo seat; an OpenCode that names nothing in the folder is a doubt to it', async () => {
    const byHand = await rosterOf([at(600, 1, 'opencode', ['opencode', '-s', X])]);
    expect(checkConversationFree(byHand, { runtime: 'omo', conversationId: X, cwd: CWD, home: HOME })).toMatchObject({
      ok: false,
      code: 'CONVERSATION_LIVE_ELSEWHERE',
    });
    const fresh = await rosterOf([at(600, 1, 'opencode', ['opencode'])]);
    expect(checkConversationFree(fresh, { runtime: 'omo', conversationId: X, cwd: CWD, home: HOME })).toMatchObject({
      ok: false,
      code: 'CONVERSATION_OWNER_UNKNOWN',
    });
  });
});

describe("the plugin, in the seat's own OpenCode config", () => {
  const PATH = `${BIN_DIR}:/usr/bin:/bin`;

  it('the local package is the one whose omo is on PATH', () => {
    const pkg = findOmoPackage(PATH);
    expect(pkg).toMatchObject({ version: '4.19.4' });
    expect('entry' in pkg && pkg.entry).toMatch(/\/oh-my-opencode\/dist\/index\.js$/);
    expect(findOmoPackage('/usr/bin:/bin')).toEqual({ missing: 'omo is not on PATH' });
  });

  it('replaces any other copy (the @latest spec omo install writes) and keeps other plugins', () => {
    const mine = pathToFileURL('/p/oh-my-opencode/dist/index.js').href;
    expect(
      withLocalPlugin(
        ['oh-my-openagent@latest', 'other-plugin', 'oh-my-opencode@4.1.0'],
        '/p/oh-my-opencode/dist/index.js',
      ),
    ).toEqual(['other-plugin', mine]);
    expect(withLocalPlugin(undefined, '/p/oh-my-opencode/dist/index.js')).toEqual([mine]);
  });

  it("writes the plugin and the records that keep OpenCode from installing its SDK over the network, only in the seat's own XDG_CONFIG_HOME", () => {
    const home = tempDir();
    const dir = join(home, 'opencode');
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'opencode.json'),
      JSON.stringify({ model: 'fake/fake-model', plugin: ['oh-my-openagent@latest'] }),
    );
    const seatEnv = { XDG_CONFIG_HOME: home };
    expect(prepareOmoSeat({ seatEnv, env: { PATH }, dryRun: true })).toMatchObject({
      ok: true,
      detail: expect.stringContaining('launch installs'),
      wrote: [],
    });
    const r = prepareOmoSeat({ seatEnv, env: { PATH }, dryRun: false });
    expect(r.ok, JSON.stringify(r)).toBe(true);
    const cfg = JSON.parse(readFileSync(join(dir, 'opencode.json'), 'utf8')) as { model: string; plugin: string[] };
    expect(cfg.model).toBe('fake/fake-model');
    expect(cfg.plugin).toEqual([expect.stringMatching(/^file:\/\/.*\/oh-my-opencode\/dist\/index\.js$/)]);
    const link = join(dir, 'node_modules', '@opencode-ai', 'plugin');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toMatch(/@opencode-ai\/plugin$/);
    expect(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).dependencies).toHaveProperty(
      '@opencode-ai/plugin',
    );
    expect(JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8')).packages[''].dependencies).toHaveProperty(
      '@opencode-ai/plugin',
    );
    // Again: nothing left to write.
    expect(prepareOmoSeat({ seatEnv, env: { PATH }, dryRun: false })).toMatchObject({ ok: true, wrote: [] });
  });

  it('refuses a seat without its own config, without omo, or with a config that is not plain JSON', () => {
    expect(prepareOmoSeat({ seatEnv: {}, env: { PATH }, dryRun: false })).toMatchObject({
      ok: false,
      code: 'RUNTIME_CONFIG_UNSAFE',
    });
    const home = tempDir();
    expect(
      prepareOmoSeat({ seatEnv: { XDG_CONFIG_HOME: home }, env: { PATH: '/usr/bin:/bin' }, dryRun: false }),
    ).toMatchObject({
      ok: false,
      code: 'RUNTIME_NOT_INSTALLED',
    });
    mkdirSync(join(home, 'opencode'));
    writeFileSync(join(home, 'opencode', 'opencode.json'), '{ // mine\n "model": "x" }\n');
    expect(prepareOmoSeat({ seatEnv: { XDG_CONFIG_HOME: home }, env: { PATH }, dryRun: false })).toMatchObject({
      ok: false,
      code: 'RUNTIME_CONFIG_UNSAFE',
    });
  });
});

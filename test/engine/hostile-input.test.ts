import { mkdirSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { dispatch } from '../../src/main/engine/api';
import { upRig } from '../../src/main/engine/services/up';
import { TmuxLinks } from '../../src/main/engine/tmux/held';
import { cwdOf, environOf, paneCwdOf, filesNamed, HOSTILE_FOLDERS, watchCmdlines } from '../support/hostile';
import { RigWorld } from '../support/rig';
import { waitFor } from '../support/tmux';
import { writeClaudeStandIn } from '../restore/standin-claude';

/**
 * Values from data reach tmux as they are (real tmux, a private server per test): a folder name is
 * never a format tmux expands, and a seat's env never shows in any process's command line.
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Each live pane of the world's server: its seat tag, pid and current path. */
function panes(w: RigWorld): { seat: string; pid: number; path: string }[] {
  return w.tmux
    .run(['list-panes', '-a', '-F', '#{@rigdesk_seat}\x1f#{pane_pid}\x1f#{pane_current_path}'])
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const [seat, pid, path] = l.split('\x1f');
      return { seat: seat!, pid: Number(pid), path: path! };
    });
}

/** Where a command tmux ran from a format could have left `ran.txt`: the world, the CLI's folder, the server's. */
function ranSomewhere(w: RigWorld, engineCwd: string): string[] {
  const server = w.tmux.serverPid();
  const dirs = [w.root, engineCwd, process.cwd(), homedir(), ...(server ? [cwdOf(server)] : [])];
  return [...filesNamed('ran.txt', dirs, 3), ...filesNamed('ran.txt', ['/'], 0)];
}

/** A spec of rig `name` whose members are the given flow-map entries. */
function rigYaml(name: string, members: string[]): string {
  return [`name: ${name}`, 'pods:', '  - id: p', '    members:', ...members.map((m) => `      - ${m}`)].join('\n');
}

/** A shell seat's entry, `extra` added to its map. */
const shellSeat = (id: string, cwd: string, extra = '') =>
  `{ id: ${id}, runtime: shell, cwd: ${JSON.stringify(cwd)}, command: bash, args: ["--noprofile", "--norc"]${extra} }`;

function marker(): string {
  return `rd-secret-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
}

describe('a folder name never makes tmux run or replace anything (real tmux)', () => {
  let w: RigWorld;
  let engineCwd: string;
  beforeEach(() => {
    w = new RigWorld();
    engineCwd = join(w.root, 'engine-cwd');
    mkdirSync(engineCwd);
    for (const d of HOSTILE_FOLDERS) mkdirSync(join(w.root, d));
  });
  afterEach(() => w.cleanup());

  it('a seat whose folder is named x#(touch ran.txt) or y#{pane_id} starts in exactly that folder, and nothing runs', async () => {
    const spec = w.spec(
      'rig.yaml',
      rigYaml(
        'odd',
        HOSTILE_FOLDERS.map((d, i) => shellSeat(`s${i}`, `./${d}`)),
      ),
    );
    const up = await w.cli(['up', spec, '--json'], {}, { cwd: engineCwd });
    expect(up.code, up.stdout + up.stderr).toBe(0);
    for (const [i, d] of HOSTILE_FOLDERS.entries()) {
      const pane = panes(w).find((p) => p.seat === `s${i}@odd`)!;
      const want = realpathSync(join(w.root, d));
      expect(await paneCwdOf(pane.pid), d).toBe(want);
      expect(pane.path, d).toBe(want);
    }
    // A `#()` job runs in the background as the format is expanded: give it time to have run.
    await sleep(1000);
    expect(ranSomewhere(w, engineCwd)).toEqual([]);
  });

  it("the window's New rig in a folder named x#(touch ran.txt), or with a newline in its name, writes a spec whose seat starts in exactly that folder, and nothing runs", async () => {
    const odd = [HOSTILE_FOLDERS[0], 'n\nhosts: { evil: local }\nx'];
    const e = w.engine();
    for (const [i, d] of odd.entries()) {
      const folder = join(w.root, d);
      mkdirSync(folder, { recursive: true });
      const made = await dispatch(e, 'workspace.newRig', {
        name: `new${i}`,
        folder,
        runtime: 'shell',
        members: 1,
        write: true,
      });
      expect(made, d).toMatchObject({ ok: true, written: true });
      if (!made.ok) continue;
      // The spec holds the folder as one value: nothing of its name became YAML of its own.
      expect(Object.keys(parseYaml(made.yaml)).sort(), d).toEqual(['name', 'pods']);
      const up = await upRig(e, made.path);
      expect(up.ok, JSON.stringify(up)).toBe(true);
      const pane = panes(w).find((p) => p.seat === `lead@new${i}`)!;
      expect(await paneCwdOf(pane.pid), d).toBe(realpathSync(folder));
    }
    await sleep(1000);
    expect(ranSomewhere(w, engineCwd)).toEqual([]);
  });

  it('every kind of # in a folder name comes back as it is from new-session -c, held and one-shot', async () => {
    const names = [
      ...HOSTILE_FOLDERS,
      'z##[w',
      'q#[b',
      '#[fg=red]x',
      'h###[k',
      'p#D',
      'a##',
      'e#',
      'br#}c',
      'co#,m',
      'u#{?1,a,b}',
      'pct%Y',
      `q'uo"te $HOME ~ ;`,
    ];
    for (const n of names) mkdirSync(join(w.root, n), { recursive: true });
    for (const mode of ['held', 'one-shot'] as const) {
      const e = w.engine({ tmux: new TmuxLinks(mode) });
      for (const [i, n] of names.entries()) {
        const made = await e.own.newSession({
          name: `${mode}-${i}`,
          cwd: join(w.root, n),
          env: {},
          argv: ['sleep', '300'],
          seat: `${mode}-${i}`,
          attempt: 'a',
        });
        expect(made.ok, JSON.stringify(made)).toBe(true);
        if (made.ok)
          expect(await paneCwdOf(made.identity.panePid), `${mode}: ${n}`).toBe(realpathSync(join(w.root, n)));
      }
      e.deps.tmux.closeAll();
      w.tmux.kill();
    }
    await sleep(1000);
    expect(ranSomewhere(w, engineCwd)).toEqual([]);
  });

  it('restart --keep-conversation respawns a seat in such a folder in exactly that folder, nothing runs, and its env shows in no command line', async () => {
    const bin = writeClaudeStandIn(join(w.root, 'bin'));
    const secret = marker();
    const spec = w.spec(
      'rig.yaml',
      rigYaml(
        'odd',
        HOSTILE_FOLDERS.map(
          (d, i) =>
            `{ id: c${i}, runtime: claude-code, cwd: ${JSON.stringify(`./${d}`)}, command: ${bin}, env: { CLAUDE_CONFIG_DIR: ${join(w.root, `cfg-${i}`)}, MY_API_KEY: ${secret} } }`,
        ),
      ),
    );
    const up = await w.cli(['up', spec, '--json'], {}, { cwd: engineCwd });
    expect(up.code, up.stdout + up.stderr).toBe(0);
    const scan = watchCmdlines(secret);
    for (const [i, d] of HOSTILE_FOLDERS.entries()) {
      const seat = `c${i}@odd`;
      const before = await waitFor(() => panes(w).find((p) => p.seat === seat), { what: seat });
      const r = await w.cli(['restart', seat, '--keep-conversation', '--json'], {}, { cwd: engineCwd });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const after = panes(w).find((p) => p.seat === seat)!;
      expect(after.pid).not.toBe(before.pid);
      expect(await paneCwdOf(after.pid), d).toBe(realpathSync(join(w.root, d)));
      expect(environOf(after.pid).MY_API_KEY).toBe(secret);
    }
    expect(scan.stop()).toEqual([]);
    await sleep(1000);
    expect(ranSomewhere(w, engineCwd)).toEqual([]);
  });
});

describe("a seat's env never shows in any process's command line (real tmux)", () => {
  let w: RigWorld;
  beforeEach(() => {
    w = new RigWorld();
  });
  afterEach(() => w.cleanup());

  const rigWithSecret = (secret: string) =>
    w.spec(
      'rig.yaml',
      rigYaml(
        'keys',
        ['a', 'b'].map((m) => shellSeat(m, '.', `, env: { MY_API_KEY: ${secret} }`)),
      ),
    );

  /** The marker reached each seat's program, and no command line held it at any moment. */
  function expectDelivered(secret: string, seen: { pid: number; cmdline: string }[]) {
    expect(seen).toEqual([]);
    const seats = panes(w);
    expect(seats.map((p) => p.seat).sort()).toEqual(['a@keys', 'b@keys']);
    for (const p of seats) expect(environOf(p.pid).MY_API_KEY, p.seat).toBe(secret);
  }

  it('a marker env value is in the seat program’s environment and in no /proc/*/cmdline, from the launch that starts the tmux server on', async () => {
    const secret = marker();
    const scan = watchCmdlines(secret);
    const up = await w.cli(['up', rigWithSecret(secret), '--json']);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    await sleep(300);
    expectDelivered(secret, scan.stop());
  });

  it('the same with every tmux command one-shot (no held client)', async () => {
    const secret = marker();
    const e = w.engine({ tmux: new TmuxLinks('one-shot') });
    const scan = watchCmdlines(secret);
    const up = await upRig(e, rigWithSecret(secret));
    expect(up.ok, JSON.stringify(up)).toBe(true);
    await sleep(300);
    expectDelivered(secret, scan.stop());
  });
});

import { chmodSync, lstatSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { type RigWorld, shellRigYaml } from '../support/rig';
import { engineRequest, servedWorldPerTest } from '../support/serve';

/**
 * RIGDESK_HOME is the user's alone (real CLI, real `rigdesk serve`): a home or a file in it that
 * others may write is refused on start with the fix named, `doctor` names it, and what Rigdesk
 * makes there is 0600 (folders 0700), the SQLite files included.
 */

const mode = (p: string) => statSync(p).mode & 0o777;

/** Every entry under `dir` (links aside) with its mode. */
function modes(dir: string): { path: string; mode: number; dir: boolean }[] {
  const out: { path: string; mode: number; dir: boolean }[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = lstatSync(p);
    if (st.isSymbolicLink()) continue;
    out.push({ path: p, mode: st.mode & 0o777, dir: st.isDirectory() });
    if (st.isDirectory()) out.push(...modes(p));
  }
  return out;
}

describe("RIGDESK_HOME is the user's alone", () => {
  const ctx = servedWorldPerTest();
  let w: RigWorld;
  beforeEach(() => {
    w = ctx.w;
  });

  it('a 0777 home is refused on start (HOME_UNSAFE, the fix named) by every command and by serve, and doctor names it', async () => {
    mkdirSync(w.home, { recursive: true });
    chmodSync(w.home, 0o777);
    for (const args of [['ps'], ['up', w.spec('rig.yaml', shellRigYaml('demo', ['lead']))], ['serve'], ['doctor']]) {
      const r = await w.cli([...args, '--json']);
      expect(r.code, `${args[0]}: ${r.stdout}${r.stderr}`).toBe(1);
      expect(r.json, args[0]).toMatchObject({ ok: false, code: 'HOME_UNSAFE', evidence: { home: w.home } });
      expect(r.json.message).toContain(w.home);
      expect(r.json.hint).toContain(`chmod -R go-rwx '${w.home}'`);
    }
    // Nothing was made there: no store, no seat.
    expect(readdirSync(w.home)).toEqual([]);
    expect(w.sessions()).toEqual([]);
  });

  it('a file in the home others may write (a 0666 store) is refused on start, naming the file', async () => {
    expect((await w.cli(['ps', '--json'])).code).toBe(0);
    chmodSync(join(w.home, 'rigdesk.db'), 0o666);
    const r = await w.cli(['ps', '--json']);
    expect(r.code).toBe(1);
    expect(r.json).toMatchObject({ code: 'HOME_UNSAFE' });
    expect(r.json.message).toContain(join(w.home, 'rigdesk.db'));
    expect(r.json.evidence.problems[0]).toMatchObject({ path: join(w.home, 'rigdesk.db'), mode: '0666' });
  });

  it("what Rigdesk makes in its home is the user's only: the store with its -wal and -shm, engine.json, the socket, the layout", async () => {
    const info = await ctx.serve();
    const up = await w.cli(['up', w.spec('rig.yaml', shellRigYaml('demo', ['lead'])), '--json']);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    const layout = { grid: '1', slots: [], pinned: [], focus: 0, magnified: false, rail: true, panel: 'none' };
    expect(await engineRequest(info, 'workspace.saveLayout', { layout })).toMatchObject({ ok: true });
    const all = modes(w.home);
    for (const f of ['rigdesk.db', 'rigdesk.db-wal', 'rigdesk.db-shm', 'engine.json', 'engine.sock'])
      expect(all.map((e) => e.path)).toContain(join(w.home, f));
    for (const e of all) expect(e.mode & 0o077, `${e.path} is 0${e.mode.toString(8)}`).toBe(0);
    expect(mode(w.home)).toBe(0o700);
  });

  it('a home others may only read (an older Rigdesk’s 0755 home and 0644 store) is made the user’s only on start', async () => {
    mkdirSync(w.home, { recursive: true, mode: 0o755 });
    chmodSync(w.home, 0o755);
    writeFileSync(join(w.home, 'window-layout.json'), '{}\n', { mode: 0o644 });
    writeFileSync(join(w.home, 'rigdesk.db'), '', { mode: 0o644 });
    expect((await w.cli(['ps', '--json'])).code).toBe(0);
    expect(mode(w.home)).toBe(0o700);
    expect(mode(join(w.home, 'window-layout.json'))).toBe(0o600);
    expect(mode(join(w.home, 'rigdesk.db'))).toBe(0o600);
  });

  it('doctor of a running engine names a home made unsafe after it started', async () => {
    const info = await ctx.serve();
    chmodSync(w.home, 0o777);
    const r = await engineRequest(info, 'doctor', {});
    const checks = r.ok ? r.checks : r.evidence.checks;
    const home = checks.find((c: { check: string }) => c.check === 'home');
    expect(home).toMatchObject({ ok: false, detail: expect.stringContaining('HOME_UNSAFE') });
    expect(home.hint).toContain('chmod -R go-rwx');
    chmodSync(w.home, 0o700);
  });
});

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkConversationFree } from '../../src/main/engine/custody/guard';
import { countingExec, liveExec } from '../../src/main/engine/deps';
import { liveEvidenceIO } from '../../src/main/engine/evidence-io';
import type { EvidenceIO } from '../../src/main/engine/runtimes/types';
import { RigWorld, shellRigYaml } from '../support/rig';
import { spawnHeadlessStandIn, standInArgv } from '../support/standin';
import { TestTmux, waitFor } from '../support/tmux';

const X = '0e0e0e0e-1111-4222-8333-444455556666';
const T = '01a2261d-651b-79c3-93d1-b8ba59512eb0';

describe('roster: one refresh sees every agent for a constant number of spawns', () => {
  let w: RigWorld;
  const kids: ChildProcess[] = [];
  const servers: TestTmux[] = [];
  beforeEach(() => {
    w = new RigWorld();
  });
  afterEach(() => {
    for (const k of kids.splice(0)) k.kill('SIGKILL');
    for (const s of servers.splice(0)) s.kill();
    w.cleanup();
  });

  it('spawns one process per watched tmux server, whether 1 or 8 seats', async () => {
    const counts: number[] = [];
    for (const n of [1, 8]) {
      const members = Array.from({ length: n }, (_, i) => `s${i}`);
      expect((await w.cli(['up', w.spec(`r${n}.yaml`, shellRigYaml(`r${n}`, members))])).code).toBe(0);
      const exec = countingExec(liveExec);
      const engine = w.engine({ exec });
      const roster = await engine.roster();
      expect(roster.panes.filter((p) => p.seatTag.endsWith(`@r${n}`))).toHaveLength(n);
      // One list-panes per tmux server in the roster; other tests' agents may add servers of their
      // own, so the property is "one per server", and exactly one for Rigdesk's server at any size.
      expect(exec.calls.every((c) => c[0] === 'tmux' && c.includes('list-panes'))).toBe(true);
      expect(exec.count, JSON.stringify({ calls: exec.calls, servers: roster.servers })).toBe(roster.servers.length);
      counts.push(exec.calls.filter((c) => c.includes(w.tmux.socketName)).length);
    }
    expect(counts).toEqual([1, 1]);
  });

  it('callers asking at the same moment share one read; a later caller gets a read of its own', async () => {
    expect((await w.cli(['up', w.spec('shared.yaml', shellRigYaml('shared', ['a', 'b']))])).code).toBe(0);
    const exec = countingExec(liveExec);
    const engine = w.engine({ exec });
    const own = () => exec.calls.filter((c) => c.includes(w.tmux.socketName) && c.includes('list-panes')).length;
    const [r1, r2, r3] = await Promise.all([engine.roster(), engine.roster(), engine.roster()]);
    expect(own()).toBe(1);
    expect(r2).toBe(r1);
    expect(r3).toBe(r1);
    expect(r1.panes.filter((p) => p.seatTag.endsWith('@shared'))).toHaveLength(2);
    // Begun after its caller asked: never the answer of a read that was already done.
    const later = await engine.roster();
    expect(later).not.toBe(r1);
    expect(own()).toBe(2);
    // One asking while a read runs waits for the next read, shared by everyone asking meanwhile.
    const first = engine.roster();
    // Past the turn in which that read begins (the read itself takes a tmux round trip).
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
    const [second, third] = [engine.roster(), engine.roster()];
    expect(await second).toBe(await third);
    expect(await second).not.toBe(await first);
    expect(own()).toBe(4);
  });

  it('finds agents on other tmux servers (one more spawn per server, not per agent) and headless ones', async () => {
    const other = new TestTmux('rdt-other');
    servers.push(other);
    const a = other.newSession('a', standInArgv('claude', ['--session-id', X]));
    const b = other.newSession('b', standInArgv('claude', ['--resume', '11111111-2222-4333-8444-555555555555']));
    const headless = spawnHeadlessStandIn('codex', ['exec', 'resume', T, 'hi']);
    kids.push(headless);
    await waitFor(
      () => {
        try {
          return [a, b].every((s) =>
            require('node:fs').readFileSync(`/proc/${s.panePid}/cmdline`, 'utf8').startsWith('claude'),
          );
        } catch {
          return false;
        }
      },
      { what: 'stand-in' },
    );
    await new Promise((r) => setTimeout(r, 200));
    const exec = countingExec(liveExec);
    const roster = await w.engine({ exec }).roster();
    // One spawn per server (Rigdesk's + the one hosting both stand-ins), not one per agent.
    expect(exec.count).toBe(roster.servers.length);
    expect(exec.calls.filter((c) => c.some((a) => a.includes(other.socketName)))).toHaveLength(1);
    const onOther = roster.agents.filter((g) => g.pane?.server.includes(other.socketName));
    expect(onOther.map((g) => g.conversationId).sort()).toEqual([X, '11111111-2222-4333-8444-555555555555'].sort());
    expect(onOther.find((g) => g.conversationId === X)).toMatchObject({
      runtime: 'claude-code',
      conversationSource: 'argv',
      pane: { paneId: a.paneId, sessionName: 'a' },
    });
    const h = roster.agents.find((g) => g.pid === headless.pid);
    expect(h).toMatchObject({ runtime: 'codex', conversationId: T, conversationSource: 'argv' });
    expect(h!.pane).toBeUndefined();
  });

  it("another server's listing is kept while its agents stay in the panes it listed, and taken again when an agent starts in a new pane there or a pane goes", async () => {
    const other = new TestTmux('rdt-other');
    servers.push(other);
    const Y = '11111111-2222-4333-8444-555555555555';
    const isAgent = (pid: number) => {
      try {
        return require('node:fs').readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('claude');
      } catch {
        return false;
      }
    };
    const a = other.newSession('a', standInArgv('claude', ['--session-id', X]));
    await waitFor(() => isAgent(a.panePid), { what: 'stand-in a' });
    const exec = countingExec(liveExec);
    const engine = w.engine({ exec });
    const listings = () => exec.calls.filter((c) => c.some((x) => x.includes(other.socketName))).length;
    const on = (r: Awaited<ReturnType<typeof engine.roster>>, id: string) =>
      r.agents.find((g) => g.conversationId === id)?.pane;

    expect(on(await engine.roster(), X)).toMatchObject({ paneId: a.paneId, sessionName: 'a' });
    expect(listings()).toBe(1);
    // Nothing changed there: the same listing places the agent, with no process spawned for it.
    expect(on(await engine.roster(), X)).toMatchObject({ paneId: a.paneId, sessionName: 'a' });
    expect(listings()).toBe(1);

    // An agent in a pane made since: the kept listing cannot place it, so the server is listed again.
    const b = other.newSession('b', standInArgv('claude', ['--resume', Y]));
    await waitFor(() => isAgent(b.panePid), { what: 'stand-in b' });
    expect(on(await engine.roster(), Y)).toMatchObject({ paneId: b.paneId, sessionName: 'b' });
    expect(listings()).toBe(2);
    await engine.roster();
    expect(listings()).toBe(2);

    // A listed pane gone: listed again, and the roster no longer shows it.
    other.run(['kill-session', '-t', 'b']);
    await waitFor(() => !existsSync(`/proc/${b.panePid}`), { what: 'pane b gone' });
    const after = await engine.roster();
    expect(listings()).toBe(3);
    expect(after.panes.filter((p) => p.server.includes(other.socketName)).map((p) => p.paneId)).toEqual([a.paneId]);
  });

  it('a Codex writer lock held by a live process blocks its thread, and names the home (real flock)', async () => {
    const homeA = join(w.root, 'codexA');
    const homeB = join(w.root, 'codexB');
    for (const h of [homeA, homeB]) mkdirSync(join(h, 'thread-writer-locks'), { recursive: true });
    const lockA = join(homeA, 'thread-writer-locks', `${T}.lock`);
    writeFileSync(lockA, '');
    // The same thread present in a second home through a hard link: one inode, one lock.
    linkSync(lockA, join(homeB, 'thread-writer-locks', `${T}.lock`));
    const holder = spawn('flock', ['--no-fork', '-x', lockA, 'sleep', '600'], { stdio: 'ignore' });
    kids.push(holder);
    await waitFor(() => require('node:fs').readFileSync('/proc/locks', 'utf8').includes(` ${holder.pid} `), {
      what: 'flock held',
    });
    const engine = w.engine({ env: { ...w.env, CODEX_HOME: homeA } });
    const roster = await engine.roster();
    const refused = checkConversationFree(roster, { runtime: 'codex', conversationId: T, home: homeA });
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.code).toBe('CONVERSATION_LIVE_ELSEWHERE');
      expect(refused.evidence!.owners as { pid: number; source: string }[]).toEqual([
        expect.objectContaining({ pid: holder.pid, source: 'writer_lock' }),
      ]);
    }
    // Naming another home is no bypass: the answer is a structured conflict.
    const other = checkConversationFree(roster, {
      runtime: 'codex',
      conversationId: T,
      home: join(w.root, 'elsewhere'),
    });
    expect(other.ok).toBe(false);
    if (!other.ok) expect(other.evidence).toMatchObject({ homeConflict: true });
    // Another thread is free.
    expect(checkConversationFree(roster, { runtime: 'codex', conversationId: X }).ok).toBe(true);
    holder.kill('SIGKILL');
    await waitFor(() => !require('node:fs').readFileSync('/proc/locks', 'utf8').includes(` ${holder.pid} `), {
      what: 'lock released',
    });
    expect(checkConversationFree(await engine.roster(), { runtime: 'codex', conversationId: T }).ok).toBe(true);
  });

  it('a Codex daemon is an agent of its own home, not of the TUI that started it, and once that TUI is gone is named as the daemon, never as its old pane', async () => {
    const home = join(w.root, 'codexD');
    mkdirSync(join(home, 'thread-writer-locks'), { recursive: true });
    const lock = join(home, 'thread-writer-locks', `${T}.lock`);
    writeFileSync(lock, '');
    const fs = require('node:fs') as typeof import('node:fs');
    // Stand-ins, as Codex 0.171 runs them: a TUI (`codex`) that starts the daemon
    // (`codex app-server … --managed-daemon`) in a session of its own; the daemon's child holds the
    // thread's writer lock. Both carry TMUX and TMUX_PANE of the pane the TUI ran in.
    const daemonJs = `require('node:child_process').spawn('flock', ['--no-fork', '-x', ${JSON.stringify(lock)}, 'sleep', '600'], { stdio: 'ignore' }); setInterval(() => {}, 60000)`;
    const tuiJs = `const c = require('node:child_process').spawn('bash', ['-c', 'exec -a codex "$0" -e "$1" -- app-server --listen unix:// --managed-daemon', process.execPath, ${JSON.stringify(daemonJs)}], { stdio: 'ignore', detached: true }); require('node:fs').writeFileSync(process.env.DAEMON_PID_FILE, String(c.pid)); setInterval(() => {}, 60000)`;
    const pidFile = join(w.root, 'daemon.pid');
    const tui = spawn('bash', ['-c', `exec -a codex "${process.execPath}" -e "$0"`, tuiJs], {
      stdio: 'ignore',
      env: { ...w.env, CODEX_HOME: home, TMUX: '/tmp/rd-gone-server,1,0', TMUX_PANE: '%0', DAEMON_PID_FILE: pidFile },
    });
    kids.push(tui);
    const held = () =>
      fs
        .readFileSync('/proc/locks', 'utf8')
        .split('\n')
        .some((l) => / WRITE /.test(l) && l.includes(`:${fs.statSync(lock).ino} `));
    await waitFor(() => fs.existsSync(pidFile) && held(), { what: 'the stand-in daemon holding the lock' });
    const daemon = Number(fs.readFileSync(pidFile, 'utf8'));
    try {
      const engine = w.engine({ env: { ...w.env, CODEX_HOME: home } });
      // While its TUI lives: two agents, and the thread is the daemon's.
      let roster = await engine.roster();
      expect(roster.agents.find((a) => a.pid === tui.pid)).toMatchObject({ runtime: 'codex', home });
      expect(roster.agents.find((a) => a.pid === tui.pid)?.conversationId).toBeUndefined();
      expect(roster.agents.find((a) => a.pid === daemon)).toMatchObject({
        runtime: 'codex',
        service: 'daemon',
        home,
        conversationId: T,
      });
      // Its TUI gone, the daemon goes on holding the thread: named as the daemon of its home.
      tui.kill('SIGKILL');
      await waitFor(
        () => !fs.existsSync(`/proc/${tui.pid}`) || fs.readFileSync(`/proc/${tui.pid}/stat`, 'utf8').includes(') Z'),
        { what: 'the TUI gone' },
      );
      roster = await engine.roster();
      const agent = roster.agents.find((a) => a.pid === daemon);
      expect(agent).toMatchObject({ runtime: 'codex', service: 'daemon', home, conversationId: T });
      expect(agent?.pane).toBeUndefined();
      expect(roster.servers.map((s) => s.server).join(' ')).not.toContain('rd-gone-server');
      const refused = checkConversationFree(roster, { runtime: 'codex', conversationId: T, home });
      expect(refused.ok).toBe(false);
      if (!refused.ok) {
        expect(refused.code).toBe('CONVERSATION_LIVE_ELSEWHERE');
        expect(refused.message).toContain(`the Codex daemon of ${home} (pid ${daemon})`);
        expect(refused.message).not.toContain('tmux pane');
        expect(refused.hint).toContain(`about a minute after the last Codex using it has closed`);
        expect(refused.evidence!.owners).toEqual([
          expect.objectContaining({ pid: daemon, service: 'daemon', home, headless: false, source: 'writer_lock' }),
        ]);
        expect((refused.evidence!.owners as { paneId?: string }[])[0]!.paneId).toBeUndefined();
      }
    } finally {
      process.kill(-daemon, 'SIGKILL');
    }
  });

  it('two live writers of one thread in two homes are both named', async () => {
    const locks = ['A', 'B'].map((n) => {
      const d = join(w.root, `codex${n}`, 'thread-writer-locks');
      mkdirSync(d, { recursive: true });
      writeFileSync(join(d, `${T}.lock`), '');
      return join(d, `${T}.lock`);
    });
    const holders = locks.map((l) => spawn('flock', ['--no-fork', '-x', l, 'sleep', '600'], { stdio: 'ignore' }));
    kids.push(...holders);
    await waitFor(
      () => holders.every((h) => require('node:fs').readFileSync('/proc/locks', 'utf8').includes(` ${h.pid} `)),
      { what: 'both locks' },
    );
    // The second home is known only as some seat's CODEX_HOME.
    const spec = w.spec(
      'rig.yaml',
      `name: cx\npods:\n  - id: p\n    members:\n      - { id: m, runtime: codex, cwd: ., env: { CODEX_HOME: ${JSON.stringify(join(w.root, 'codexB'))} } }\n`,
    );
    await w.cli(['up', spec]); // launch fails (no codex installed) but the seat and its home are recorded
    const roster = await w.engine({ env: { ...w.env, CODEX_HOME: join(w.root, 'codexA') } }).roster();
    const r = checkConversationFree(roster, { runtime: 'codex', conversationId: T });
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect((r.evidence!.owners as { pid: number }[]).map((o) => o.pid).sort()).toEqual(
        holders.map((h) => h.pid).sort(),
      );
  });

  it('an unreadable live-state directory fails closed (fault: injected evidence reader)', async () => {
    const io: EvidenceIO = {
      ...liveEvidenceIO,
      listDir: (p) => {
        if (p.endsWith('/sessions'))
          throw Object.assign(new Error(`EACCES: permission denied, scandir '${p}'`), { code: 'EACCES' });
        return liveEvidenceIO.listDir(p);
      },
    };
    const roster = await w.engine({ io }).roster();
    const r = checkConversationFree(roster, { runtime: 'claude-code', conversationId: X });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.code).toBe('EVIDENCE_UNREADABLE');
      expect(r.message).toContain('EACCES');
    }
    // Other runtimes' evidence was readable: their guard still answers.
    expect(checkConversationFree(roster, { runtime: 'codex', conversationId: T }).ok).toBe(true);
  });
});

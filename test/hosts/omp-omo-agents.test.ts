/**
 * Journey: the real omp (on bun) and omo (OpenCode with oh-my-opencode's plugin) on another host
 * (test-host.ts), driven through `rigdesk` over ssh against the fake model server here (reached
 * through an ssh reverse forward). What each needs before launch is made on the host: omp's fresh
 * session file, in the folder omp names from the host's own HOME (a link there, resolved there),
 * and its first-run setup in its agent dir; omo's plugin from the package whose `omo` is on the
 * host's PATH (where the host has one, at a path this machine does not have), with its SDK linked
 * so OpenCode does not install it from the registry. Then: omp replies, asks for a permission
 * that is approved from Rigdesk, refuses a person's `omp --resume X` by hand on the host as a
 * second writer and comes back on X after the host's tmux server is killed; omo replies and
 * refuses a headless `omo run --session-id X` on the host. One host, one world; the steps run in order.
 *
 * omp probes 127.0.0.1 ports 11434, 8080 and 1234 on every start: nothing may listen there, here
 * or on the host (skipped when something does, failed under CI).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, realpathSync, symlinkSync, unlinkSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ompHeaderId } from '../../src/main/engine/runtimes/omp-sessions';
import { OPENCODE_LAYOUT } from '../../src/main/engine/runtimes/opencode-sessions';
import { waitForExit } from '../agents/claude-run';
import { closedPort } from '../agents/fake-model-server';
import { OMO_SERVER_TIMEOUT, OMO_TELEMETRY_OFF } from '../agents/omo-fixture';
import { OMP_PROBED_PORTS, ompPortsProblem } from '../agents/omp-fixture';
import type { PsRow } from '../../src/shared/contract';
import { requireCli } from '../journeys/support';
import { endHostJourney, killHostTmux, seenOnHost } from '../support/host-journey';
import { HostAgents } from '../support/remote-agents';
import { RigWorld } from '../support/rig';
import { sshdMissing, TestSshd } from '../support/sshd';
import { waitFor } from '../support/tmux';

const OMP = 'om@ompr';
const OMO = 'oo@omor';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PROJECT_MODULES = fileURLToPath(new URL('../../node_modules', import.meta.url));

/** The ports omp probes that something listens on, as the host's own /proc/net says. */
function hostListening(sshd: TestSshd): number[] {
  const text = sshd.asRemote(['cat', '/proc/net/tcp', '/proc/net/tcp6']);
  const ports = new Set<number>();
  for (const line of text.split('\n')) {
    const cols = line.trim().split(/\s+/);
    if (cols[3] === '0A') ports.add(Number.parseInt(cols[1]!.split(':').pop()!, 16));
  }
  return OMP_PROBED_PORTS.filter((p) => ports.has(p));
}

describe.skipIf(!!sshdMissing() || !!ompPortsProblem())(
  'journey: the real omp and omo on another host, over ssh',
  () => {
    const installed = requireCli('omp', 'omo', 'opencode');
    let sshd: TestSshd;
    let agents: HostAgents;
    let w: RigWorld;
    /** omp's seat: its HOME a link on the host, its folder under HOME's real path there. */
    let ompHome = '';
    let ompCwd = '';
    /** The oh-my-opencode package as the host has it. */
    let hostModules = '';
    let X = '';
    let Y = '';

    beforeAll(async () => {
      sshd = await new TestSshd().start();
      agents = await HostAgents.start(sshd, ['omp', 'omo']);
      const busy = hostListening(sshd);
      if (busy.length > 0) throw new Error(`the host listens on ${busy.join(', ')}, which omp probes for local models`);
      const root = `${sshd.remoteDir}/omp`;
      ompHome = `${root}/home-link`;
      ompCwd = `${root}/home/work`;
      sshd.asRemote(['sh', '-c', 'mkdir -p "$1/home/work" && ln -s "$1/home" "$2"', 'sh', root, ompHome]);
      agents.env.omp.HOME = ompHome;
      hostModules = realpathSync(PROJECT_MODULES);
      if (sshd.ns) {
        // The host's omo from a folder only the host has (a bind mount inside its namespace): a
        // plugin path taken from this machine would not be the host's.
        hostModules = `${sshd.remoteDir}/pkgs/node_modules`;
        const [file, ...args] = sshd.ns.enter([
          'sh',
          '-c',
          'mkdir -p "$1" && mount --bind "$2" "$1"',
          'sh',
          hostModules,
          realpathSync(PROJECT_MODULES),
        ]);
        execFileSync(file!, args, { stdio: 'pipe' });
        const link = sshd.hostPath(`${sshd.binDir}/omo`);
        unlinkSync(link);
        symlinkSync(`${hostModules}/.bin/omo`, link);
      }
      // The host's user runs each program from its own PATH.
      const versions = sshd.asRemote(['sh', '-c', 'bun --version && omp --version && omo --version']);
      expect(versions).toMatch(/^1\.\d+\.\d+\nomp\/\d+\.\d+\.\d+\n\d+\.\d+\.\d+\n$/);
      w = new RigWorld();
    }, 120_000);
    afterAll(() => endHostJourney({ w, agents, sshd }, installed()), 120_000);

    /** Polls ps until every seat matches `want`; the screens on the host say why when it does not. */
    const seen = (seats: string[], want: (r: PsRow) => boolean, what: string, timeoutMs = 60_000) =>
      seenOnHost(w, agents, seats, want, what, timeoutMs);
    /** The host's processes of a runtime (by comm) started with `name=value` in their env. */
    const hostPids = (name: string, value: string, comm: RegExp): number[] =>
      sshd
        .asRemote([
          'sh',
          '-c',
          'for d in /proc/[0-9]*; do tr "\\0" "\\n" < "$d/environ" 2>/dev/null | grep -qxF "$1" && echo "${d#/proc/} $(cat "$d/comm")"; done; true',
          'sh',
          `${name}=${value}`,
        ])
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(' '))
        .filter(([, c]) => comm.test(c ?? ''))
        .map(([p]) => Number(p));
    const ompDir = () => agents.env.omp.PI_CODING_AGENT_DIR!;
    const omoDb = () => OPENCODE_LAYOUT.dbFile(agents.homeOf('omo'));
    const omoText = (id: string): string =>
      (
        (agents.io.querySqlite?.(omoDb(), 'SELECT data FROM part WHERE session_id = ? ORDER BY time_created, id', [
          id,
        ]) ?? []) as { data: string }[]
      )
        .map((r) => (JSON.parse(r.data) as { text?: string }).text ?? '')
        .join('\n');

    it("up launches omp on an id Rigdesk chose, in a session file it made on the host, and omo with the host's own plugin; both idle", async () => {
      const omp = await w.cli([
        'up',
        agents.spec(w, 'ompr', [agents.member('om', 'omp', 'box', agents.env.omp, ompCwd)]),
        '--json',
      ]);
      expect(omp.code, omp.stdout + omp.stderr).toBe(0);
      const omo = await w.cli(['up', agents.spec(w, 'omor', [agents.member('oo', 'omo')]), '--json']);
      expect(omo.code, omo.stdout + omo.stderr).toBe(0);
      expect(sshd.remoteSessions().sort()).toEqual([OMP, OMO].sort());
      expect(w.sessions()).toEqual([]);

      expect(omp.json.seats[0].launched).toMatchObject({ mode: 'fresh', runtime: 'omp' });
      X = omp.json.seats[0].launched.conversationId;
      expect(X).toMatch(UUID);
      // Named from HOME as the host resolves it (a link there): `-work`, where omp looks.
      const file = agents.transcript('omp', X);
      expect(file, 'the session file Rigdesk made on the host').toMatch(
        new RegExp(`/sessions/-work/[^/]+_${X}\\.jsonl$`),
      );
      expect(ompHeaderId(sshd.readHost(file!))).toBe(X);
      const cfg = sshd.readHost(`${ompDir()}/config.yml`);
      expect(cfg).toMatch(/^setupVersion: 2$/m);
      expect(cfg, "the seat's own settings kept").toContain('approval: { bash: prompt }');

      const configDir = `${agents.env.omo.XDG_CONFIG_HOME}/opencode`;
      const plugin = JSON.parse(sshd.readHost(`${configDir}/opencode.json`)).plugin as string[];
      expect(plugin).toEqual([pathToFileURL(`${hostModules}/oh-my-opencode/dist/index.js`).href]);
      if (sshd.isolated) expect(existsSync(`${hostModules}/oh-my-opencode`), 'a path only the host has').toBe(false);
      expect(sshd.asRemote(['readlink', `${configDir}/node_modules/@opencode-ai/plugin`]).trim()).toBe(
        `${hostModules}/@opencode-ai/plugin`,
      );
      expect(JSON.parse(sshd.readHost(`${configDir}/package-lock.json`)).packages[''].dependencies).toHaveProperty(
        '@opencode-ai/plugin',
      );

      const [om] = await seen([OMP], (r) => r.state === 'running' && r.activity === 'idle', 'omp idle', 60_000);
      expect(om).toMatchObject({ host: 'box', conversationId: X });
      expect(sshd.asRemote(['cat', `/proc/${om!.pid}/cmdline`]).split('\0')).toEqual(
        expect.arrayContaining(['--resume', X]),
      );
      expect(agents.screen(OMP)).not.toContain('Setup step');
      // OpenCode started with the plugin (its agent on the status line) without a registry install.
      await waitFor(() => /Sisyphus/.test(agents.screen(OMO)), { timeoutMs: 60_000, what: "omo's plugin agent" });
      await seen([OMO], (r) => r.state === 'running' && r.activity === 'idle', 'omo idle', 60_000);
    }, 150_000);

    it('a send to each is delivered and its reply lands in its conversation on the host', async () => {
      for (const [seat, text] of [
        [OMP, 'hello omp'],
        [OMO, 'hello omo'],
      ] as const) {
        const sent = await w.cli(['send', seat, text, '--verify', '--json']);
        expect(sent.json, `${seat}: ${sent.stdout}${sent.stderr}\n${agents.screen(seat)}`).toMatchObject({ ok: true });
      }
      await agents.replyIn('omp', X, 'ACK hello omp');
      const [oo] = await seen(
        [OMO],
        (r) => typeof r.conversationId === 'string',
        "omo's session named from its database",
      );
      Y = oo!.conversationId!;
      expect(Y).toMatch(OPENCODE_LAYOUT.sessionId);
      await waitFor(() => omoText(Y).includes('ACK hello omo'), {
        timeoutMs: 30_000,
        what: "omo's reply in Y on the host",
      });
    }, 120_000);

    it("omp's permission prompt reads needs_input:permission, holds a send, and approved from Rigdesk runs on the host", async () => {
      expect((await w.cli(['send', OMP, 'RUN: echo ok > from-omp.txt', '--json'])).json.ok).toBe(true);
      await seen([OMP], (r) => r.activity === 'needs_input' && r.needsInput === 'permission', 'omp asks');
      const held = await w.cli(['send', OMP, 'y', '--json']);
      expect(held.json).toMatchObject({ ok: false, code: 'SEND_HELD', evidence: { why: 'needs_input:permission' } });
      const listed = await w.cli(['prompts', '--json']);
      const item = listed.json.prompts.find((p: { seat: string }) => p.seat === OMP);
      expect(item, listed.stdout).toMatchObject({
        reason: 'permission',
        choices: expect.arrayContaining(['approve', 'deny', 'deny_with_message']),
      });
      expect(item.screen.join('\n')).toContain('echo ok > from-omp.txt');
      expect(sshd.existsHost(`${ompCwd}/from-omp.txt`)).toBe(false);
      const answered = await w.cli([
        'answer',
        OMP,
        'approve',
        `--prompt=${item.fingerprint}`,
        '--reason',
        'journey: approve the echo on the host',
        '--json',
      ]);
      expect(answered.json, answered.stdout + answered.stderr).toMatchObject({ ok: true });
      // The shell makes the file before echo writes into it: wait for what it holds, not that it is.
      const echoed = `${ompCwd}/from-omp.txt`;
      await waitFor(() => sshd.existsHost(echoed) && sshd.readHost(echoed).trim() === 'ok', {
        timeoutMs: 30_000,
        what: 'the echo on the host',
      });
      await seen([OMP], (r) => r.activity === 'idle', 'omp idle again');
    }, 120_000);

    it("second writers on the host are refused with nothing started: a person's `omp --resume X`, a headless `omo run --session-id Y`", async () => {
      // omp: the person's own tmux on the host, resuming the seat's conversation.
      const hand = agents.personPane('omp', 'mine-omp', ['omp', '--resume', X]);
      await waitFor(
        async () =>
          (await w.cli(['ps', '--all', '--json'])).json.others.some(
            (o: { conversationId?: string; host?: string }) => o.conversationId === X && o.host === 'box',
          ),
        { timeoutMs: 60_000, what: "the person's omp on X in the host's process table" },
      ).catch((e: Error) => {
        throw new Error(`${e.message}\n${agents.personScreen(hand.paneId)}`);
      });
      // omo: a headless run resuming the seat's session, its turn held at the model.
      agents.server.hold();
      const held = agents.server.held();
      // What the run prints goes to a file on the host, for a failure's message.
      const runLog = `${sshd.remoteDir}/omo-run.log`;
      const runStarted = Date.now();
      const omoPort = await closedPort();
      const startRun = () =>
        sshd.startAsRemote(
          [
            'sh',
            '-c',
            'cd "$1" && log="$2" && shift 2 && exec "$@" >"$log" 2>&1',
            'sh',
            agents.work,
            runLog,
            'omo',
            'run',
            '--port',
            String(omoPort),
            '--session-id',
            Y,
            'headless HOLD',
          ],
          { ...agents.env.omo, ...OMO_TELEMETRY_OFF, PWD: agents.work },
        );
      let run = startRun();
      // omo gives the OpenCode server it starts 5 s, a constant with no setting; on a busy machine it
      // printed OMO_SERVER_TIMEOUT and quit before reaching the model. A person would run it again:
      // so does the test, once.
      const first = await waitFor(
        () =>
          agents.server.held() > held
            ? 'model'
            : !existsSync(`/proc/${run}`) && sshd.readHost(runLog).includes(OMO_SERVER_TIMEOUT)
              ? 'again'
              : undefined,
        { timeoutMs: 120_000, what: "the headless run's turn at the model" },
      ).catch(() => 'late' as const);
      if (first === 'again') run = startRun();

      const sentOmp = await w.cli(['send', OMP, 'typed while a person writes X', '--json']);
      expect(sentOmp.json, sentOmp.stdout).toMatchObject({ ok: false, code: 'CONVERSATION_LIVE_ELSEWHERE' });
      expect(sentOmp.json.evidence).toMatchObject({ host: 'box' });
      expect(sentOmp.json.evidence.owners.map((o: { paneId?: string }) => o.paneId)).toContain(hand.paneId);
      expect((await w.cli(['stop', OMP, '--json'])).code).toBe(0);
      await waitFor(() => hostPids('PI_CODING_AGENT_DIR', ompDir(), /^(omp|bun)/).length === 1, {
        timeoutMs: 15_000,
        what: "only the person's omp left on the host",
      });
      const relaunch = await w.cli(['launch', OMP, '--json']);
      expect(relaunch.json, relaunch.stdout).toMatchObject({ ok: false, code: 'CONVERSATION_LIVE_ELSEWHERE' });
      expect(relaunch.json.evidence.owners.map((o: { paneId?: string }) => o.paneId)).toContain(hand.paneId);
      expect(sshd.remoteSessions()).not.toContain(OMP);
      expect(hostPids('PI_CODING_AGENT_DIR', ompDir(), /^(omp|bun)/), 'no omp started beside the person').toHaveLength(
        1,
      );

      // 12 s here idle and with both cores busy; one CI run saw it take over 60 s (what it was doing
      // was not recorded then: a timeout now prints the run's output).
      await waitFor(() => agents.server.held() > held, {
        timeoutMs: first === 'late' ? 1 : 120_000,
        what: "the headless run's turn at the model",
      }).catch((e: Error) => {
        const requests = agents.server.requests.slice(-5).map((r) => `${r.method} ${r.path}`);
        throw new Error(
          `${e.message} (${Date.now() - runStarted} ms after it started)\n--- the run's output:\n${sshd.readHost(runLog)}\n--- the server's last requests: ${requests.join(', ')}`,
        );
      });
      console.log(`omo: the headless run at the model ${Date.now() - runStarted} ms after it started`);
      const owner = { conversationId: Y, headless: true, runtime: 'omo', source: 'argv' };
      const sentOmo = await w.cli(['send', OMO, 'typed while omo run writes Y', '--json']);
      expect(sentOmo.json, sentOmo.stdout).toMatchObject({ ok: false, code: 'CONVERSATION_LIVE_ELSEWHERE' });
      expect(sentOmo.json.evidence.owners[0]).toMatchObject(owner);
      expect((await w.cli(['stop', OMO, '--json'])).code).toBe(0);
      const opencodes = () => hostPids('XDG_DATA_HOME', agents.homeOf('omo'), /^opencode/);
      await waitFor(() => opencodes().length === 1, {
        timeoutMs: 15_000,
        what: "only the run's server left on the host",
      });
      const launchOmo = await w.cli(['launch', OMO, '--json']);
      expect(launchOmo.json, launchOmo.stdout).toMatchObject({ ok: false, code: 'CONVERSATION_LIVE_ELSEWHERE' });
      expect(launchOmo.json.evidence.owners[0]).toMatchObject(owner);
      expect(sshd.remoteSessions()).not.toContain(OMO);
      expect(opencodes(), 'no OpenCode started beside the run').toHaveLength(1);

      // Both accept the second writer themselves: the run goes on to write Y once released.
      agents.server.release();
      await waitFor(() => omoText(Y).includes('ACK headless HOLD'), {
        timeoutMs: 30_000,
        what: "the run's reply in Y",
      });
      expect(await waitForExit(run, 30_000)).toBe('exited');
      agents.endPerson();
      const back = await waitFor(
        async () => {
          const l = await w.cli(['launch', OMP, '--json']);
          return l.code === 0 ? l : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 1000, what: 'omp launched again once the person is gone' },
      );
      expect(back.json.launched).toMatchObject({ mode: 'resume', conversationId: X });
      await seen([OMP], (r) => r.state === 'running' && r.activity === 'idle' && r.conversationId === X, 'omp on X');
    }, 240_000);

    it("restore after the host's tmux server is killed resumes omp on X there, and it replies in X", async () => {
      await killHostTmux(w, sshd, [OMP]);
      expect(sshd.remoteSessions()).toEqual([]);
      // Restore reads X's session file on the host: named in the plan while it is there, and missing
      // (a decision, not a launch) while it is not.
      const file = agents.transcript('omp', X)!;
      const plan = await w.cli(['restore', 'ompr', '--plan', '--json']);
      expect(
        plan.json.plan.find((p: { seat: string }) => p.seat === OMP),
        plan.stdout,
      ).toMatchObject({
        action: 'resume',
        conversationId: X,
        why: expect.stringContaining(file),
      });
      sshd.asRemote(['mv', file, `${file}.away`]);
      const away = await w.cli(['restore', 'ompr', '--plan', '--json']);
      expect(
        away.json.plan.find((p: { seat: string }) => p.seat === OMP),
        away.stdout,
      ).toMatchObject({
        action: 'awaiting_decision',
        reason: 'transcript_missing',
      });
      sshd.asRemote(['mv', `${file}.away`, file]);
      const r = await w.cli(['restore', 'ompr', '--json']);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(
        r.json.seats.find((x: { seat: string }) => x.seat === OMP),
        r.stdout,
      ).toMatchObject({
        outcome: 'resumed',
        conversationId: X,
      });
      const [row] = await seen(
        [OMP],
        (x) => x.state === 'running' && x.activity === 'idle' && x.conversationId === X,
        'omp idle on X after restore',
      );
      expect(sshd.asRemote(['cat', `/proc/${row!.pid}/cmdline`]).split('\0')).toEqual(
        expect.arrayContaining(['--resume', X]),
      );
      const sent = await w.cli(['send', OMP, 'after restore', '--verify', '--json']);
      expect(sent.json, `${sent.stdout}\n${agents.screen(OMP)}`).toMatchObject({ ok: true });
      await agents.replyIn('omp', X, 'ACK after restore');
      if (sshd.isolated) expect(existsSync(sshd.remoteDir), "nothing of the host's seats made here").toBe(false);
    }, 120_000);
  },
);

/**
 * Issue 6 acceptance: "a screen signature or file layout change in a CLI makes a named test fail".
 * The real Codex and Pi run in Rigdesk seats and are driven into each state the activity journeys
 * check. At each state the engine's own detection (the `ps` service, in process, over the same
 * home) is run twice: with the adapters' tables as they are, where the journey's expectation holds,
 * and with the one signature (or path rule) that state rests on altered the way a CLI update
 * would alter it, where the very same expectation fails. So a CLI that changes that line or that
 * file layout fails the journeys, rather than passing them with a wrong answer.
 *
 * The tables live in the adapter modules and are imported from there; each alteration is undone
 * before the next step (try/finally).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CODEX_BIN } from '../agents/codex-fixture';
import { PI_BIN } from '../agents/pi-fixture';
import { runAgent } from '../agents/agent-run';
import type { FakeModelServer } from '../agents/fake-model-server';
import { ps } from '../../src/main/engine/services/ps';
import type { Engine } from '../../src/main/engine/engine';
import { codex, pi, type RuntimeAdapter } from '../../src/main/engine/runtimes';
import { CODEX_LAYOUT, CODEX_TRANSCRIPT } from '../../src/main/engine/runtimes/codex';
import { PI_LAYOUT } from '../../src/main/engine/runtimes/pi';
import { CODEX_SCREEN } from '../../src/main/engine/runtimes/screens/codex';
import { PI_SCREEN } from '../../src/main/engine/runtimes/screens/pi';
import {
  describeWant,
  expectActivity,
  expectOnlyLoopback,
  expectReplyInTranscript,
  JourneyWorld,
  requireCli,
  startServer,
  type Want,
  altered,
  sensitive,
} from './support';
import type { PsRow } from '../../src/shared/contract';

const CX = 'cx@sig';
const PI = 'pi@sig';
/** Pi's folder rule turns ":" into "-" too; a cwd with one tells the rule apart from a "/"-only one. */
const PI_FOLDER = 'work:pi';

describe('a changed screen signature or file layout makes the journeys fail', () => {
  const installed = requireCli('codex', 'pi');
  let server: FakeModelServer;
  let closed: number;
  let j: JourneyWorld | undefined;
  let engine: Engine;

  beforeAll(async () => {
    ({ server, closed } = await startServer({ slowChunks: 8, slowMs: 1000, waitMs: 8000 }));
  });
  afterEach(async () => {
    await j?.cleanup();
    j = undefined;
  });
  afterAll(async () => {
    await server?.close();
    if (server && installed()) expectOnlyLoopback(server);
  });

  /** The engine's detection, in process, as `rigdesk ps` computes it. */
  async function detect(seat: string): Promise<PsRow | undefined> {
    const r = await ps(engine);
    if (!r.ok) throw new Error(r.message);
    return r.seats.find((s) => s.seat === seat);
  }

  /** The journey's expectation holds with the real tables and fails with the altered one. */
  const readsAs = (
    seat: string,
    want: Want,
    alter: (check: () => Promise<void>) => Promise<void>,
    what: string,
  ): Promise<void> =>
    sensitive(
      async () => expectActivity(await detect(seat), want, seat),
      alter,
      `${what} (${seat} read as ${describeWant(want)})`,
    );

  async function world(): Promise<JourneyWorld> {
    const w = (j = new JourneyWorld(server, closed, ['codex', 'pi'], ['work', PI_FOLDER]));
    await w.up('sig', [
      { id: 'cx', runtime: 'codex' },
      { id: 'pi', runtime: 'pi', cwd: `./${PI_FOLDER}` },
    ]);
    await w.sequences([CX, PI], [{ activity: 'idle' }]);
    engine = w.w.engine();
    return w;
  }

  // A dozen states, each read by whole `rigdesk ps` processes (1-3 s each on a loaded two-core
  // machine): the journey as a whole needs more than the default minute there.
  it('screen and transcript signatures: working, idle, permission and usage_limit of Codex and Pi each fail with their signature altered', async () => {
    const w = await world();
    // Pi idle rests on its editor (two rules, no Working line).
    await readsAs(PI, { activity: 'idle' }, (c) => altered(PI_SCREEN, { rule: /^═{8,}\s*$/ }, c), 'the editor rule');

    // Codex waiting for its first token: the Working line, and the rollout's task_started. Replies
    // are held (HOLD) until each state has been read, so a loaded machine cannot outrun them.
    server.hold();
    await w.type(CX, 'first WAIT HOLD', codex.submitDelayMs);
    await w.screenShows(CX, CODEX_SCREEN.working, 'the Working line');
    await w.seen(CX, { activity: 'working' });
    await readsAs(
      CX,
      { activity: 'working' },
      (c) =>
        altered(CODEX_SCREEN, { working: /[•◦] Thinking \(\d+s • esc to interrupt\)/ }, () =>
          altered(CODEX_TRANSCRIPT, { started: ['"type":"turn_started"'] }, c),
        ),
      'the Working line and task_started',
    );
    server.release();
    await w.seen(CX, { activity: 'idle' });

    // A streaming reply: Codex shows no Working line, so the rollout alone says working; Pi shows Working....
    server.hold();
    await w.type(CX, 'stream HOLD', codex.submitDelayMs);
    await w.type(PI, 'stream HOLD');
    await w.screenShows(CX, /tick2/, 'Codex streaming');
    await w.screenShows(PI, /Working\.\.\./, 'Pi working');
    await w.sequences([CX, PI], [{ activity: 'working' }]);
    await readsAs(
      CX,
      { activity: 'working' },
      (c) => altered(CODEX_TRANSCRIPT, { started: ['"type":"turn_started"'] }, c),
      "the rollout's task_started event name",
    );
    await readsAs(
      CX,
      { activity: 'working' },
      (c) => altered(CODEX_LAYOUT, { sessionsDir: 'rollouts' }, c),
      'the rollout folder',
    );
    await readsAs(
      PI,
      { activity: 'working' },
      (c) => altered(PI_SCREEN, { working: /^\s*\S? ?Thinking\.\.\./ }, c),
      'the Working... line',
    );
    server.release();
    await w.sequences([CX, PI], [{ activity: 'idle' }]);

    // Codex's approval prompt.
    await w.type(CX, 'RUN: echo x > f', codex.submitDelayMs);
    await w.seen(CX, { activity: 'needs_input', needsInput: 'permission' });
    await readsAs(
      CX,
      { activity: 'needs_input', needsInput: 'permission' },
      (c) => altered(CODEX_SCREEN, { permission: /Allow this command\?/ }, c),
      'the approval question',
    );
    w.w.tmux.run(['send-keys', '-t', CX, 'Escape']);
    await w.seen(CX, { activity: 'idle' });

    // A 429 on both.
    await w.type(CX, 'LIMIT', codex.submitDelayMs);
    await w.type(PI, 'LIMIT');
    await w.sequences([CX, PI], [{ activity: 'needs_input', needsInput: 'usage_limit' }]);
    await readsAs(
      CX,
      { activity: 'needs_input', needsInput: 'usage_limit' },
      (c) => altered(CODEX_SCREEN, { usageLimit: /You have reached your usage limit/ }, c),
      'the usage-limit message',
    );
    await readsAs(
      PI,
      { activity: 'needs_input', needsInput: 'usage_limit' },
      (c) => altered(PI_SCREEN, { usageLimit: /Error: (Retry failed after \d+ attempts: )?rate_limited\b/ }, c),
      'the 429 line',
    );
  }, 150_000);

  it("file layout: each reply is found where the adapter says, and not with the path rule altered (Pi's folder rule, Codex's rollout name)", async () => {
    const w = await world();
    const rows = Object.fromEntries((await w.rows()).map((r) => [r.seat, r]));
    const cases: {
      seat: string;
      adapter: RuntimeAdapter;
      runtime: 'codex' | 'pi';
      folder: string;
      alter: (c: () => void) => Promise<void>;
      what: string;
    }[] = [
      // Pi 0.73.1 turns "/", "\" and ":" into "-"; a rule that only knew "/" misses this cwd's folder.
      {
        seat: PI,
        adapter: pi,
        runtime: 'pi',
        folder: PI_FOLDER,
        alter: (c) =>
          altered(PI_LAYOUT, { folderFor: (cwd: string) => `--${cwd.replace(/^\//, '').replace(/\//g, '-')}--` }, c),
        what: 'the session folder rule',
      },
      {
        seat: CX,
        adapter: codex,
        runtime: 'codex',
        folder: 'work',
        alter: (c) => altered(CODEX_LAYOUT, { rolloutFor: (name: string, id: string) => name === `${id}.jsonl` }, c),
        what: 'the rollout file name',
      },
    ];
    for (const k of cases) {
      const sent = await w.cli(['send', k.seat, `layout ${k.runtime}`, '--verify', '--json']);
      expect(sent.json.ok, sent.stdout).toBe(true);
    }
    await w.sequences([CX, PI], [{ activity: 'idle' }]);
    for (const k of cases) {
      const id = (await w.row(k.seat)).conversationId ?? rows[k.seat]!.conversationId!;
      const check = () => {
        expectReplyInTranscript(k.adapter, w.homeOf(k.runtime), w.dir(k.folder), id, `ACK layout ${k.runtime}`);
      };
      check();
      let failed: unknown;
      await k.alter(() => {
        try {
          check();
        } catch (e) {
          failed = e;
        }
      });
      expect(failed, `${k.seat}'s reply still found with ${k.what} altered`).toBeDefined();
    }
  });

  it("missing conversation: what the real CLIs print for an unknown id matches the adapters' signatures, and not altered ones", async () => {
    const w = (j = new JourneyWorld(server, closed, ['codex', 'pi']));
    const id = '11111111-2222-4333-8444-555555555555';
    const runs: { adapter: RuntimeAdapter; out: string; altered: RegExp }[] = [];
    const cx = await runAgent(CODEX_BIN, w.envOf('codex'), w.dir(), [
      'exec',
      '--skip-git-repo-check',
      'resume',
      id,
      'hello',
    ]);
    expect(cx.code).toBe(1);
    runs.push({
      adapter: codex,
      out: cx.stdout + cx.stderr,
      altered: /No saved thread found with ID (\S+?)\.|no rollout exists for thread id (\S+)/,
    });
    const p = await runAgent(PI_BIN, w.envOf('pi'), w.dir(), ['-p', '--session', id, 'hello']);
    expect(p.code).toBe(1);
    runs.push({ adapter: pi, out: p.stdout + p.stderr, altered: /No session matches '([^']+)'/ });
    for (const r of runs) {
      const m = r.adapter.missingConversation.exec(r.out);
      expect(
        m?.slice(1).find((g) => g !== undefined),
        `${r.adapter.id} said: ${r.out}`,
      ).toBe(id);
      expect(r.altered.exec(r.out), `${r.adapter.id}: an altered signature would still match`).toBeNull();
    }
  });
});

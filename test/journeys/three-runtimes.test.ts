/**
 * Journey (issue 6): a rig of one seat per runtime (the real Claude Code, Codex and Pi, offline
 * against the fake model server), driven through the `rigdesk` CLI only: bring it up, send to
 * each and find the reply in that conversation's own transcript (where the runtime's adapter says
 * it lives), see each go working → idle, and answer a permission prompt from Rigdesk.
 *
 * Answering a prompt: an automatic send is held at a prompt (SEND_HELD, needs_input:permission);
 * `rigdesk prompts` shows the prompt as on screen with a fingerprint, and `rigdesk answer <seat>
 * approve --prompt=<fingerprint> --reason R` types the runtime's own approve key (Claude: Enter on
 * "1. Yes"; Codex: `y`) after the same custody checks as a send, recorded as seat.prompt_answered.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../agents/fake-model-server';
import { waitFor } from '../support/tmux';
import { claudeCode, codex, pi } from '../../src/main/engine/runtimes';
import { liveEvidenceIO } from '../../src/main/engine/evidence-io';
import { expectOnlyLoopback, JourneyWorld, requireCli, startServer, waitForReplyInTranscript } from './support';
import type { PsRow } from '../../src/shared/contract';

const ADAPTER = { 'claude-code': claudeCode, codex, pi } as const;
const SEATS: { seat: string; member: string; runtime: keyof typeof ADAPTER }[] = [
  { seat: 'lead@trio', member: 'lead', runtime: 'claude-code' },
  { seat: 'coder@trio', member: 'coder', runtime: 'codex' },
  { seat: 'pi@trio', member: 'pi', runtime: 'pi' },
];

describe('journey: a rig of Claude Code, Codex and Pi, driven through rigdesk', () => {
  const installed = requireCli('claude-code', 'codex', 'pi');
  let server: FakeModelServer;
  let j: JourneyWorld;
  const conv: Record<string, string> = {};

  beforeAll(async () => {
    const s = await startServer({ slowChunks: 6, slowMs: 1000 });
    server = s.server;
    j = new JourneyWorld(server, s.closed, ['claude-code', 'codex', 'pi']);
  });
  afterAll(async () => {
    await j?.cleanup();
    await server?.close();
    if (server && installed()) expectOnlyLoopback(server);
  });

  it('up brings one seat per runtime; ps shows each running, idle, and on a conversation it can name', async () => {
    const up = await j.up(
      'trio',
      SEATS.map((s) => ({ id: s.member, runtime: s.runtime })),
    );
    expect(up.json.seats.map((s: { outcome: string }) => s.outcome)).toEqual(['launched', 'launched', 'launched']);
    const rows = await Promise.all(
      SEATS.map(async (s) => (await j.seen(s.seat, { activity: 'idle', named: true })).row),
    );
    for (const [i, row] of rows.entries()) {
      expect(row).toMatchObject({ runtime: SEATS[i]!.runtime, state: 'running', session: 'present' });
      expect(row.conversationId, `${row.seat} conversation`).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
      );
      conv[row.seat] = row.conversationId!;
    }
    // Claude and Pi: the id Rigdesk chose at launch; Codex: the thread its writer lock names.
    expect(conv['lead@trio']).toBe(up.json.seats[0].launched.conversationId);
    expect(conv['pi@trio']).toBe(up.json.seats[2].launched.conversationId);
    expect(up.json.seats[1].launched.conversationId).toBeUndefined();
  });

  it("send to each: delivered, and the reply lands in that seat's own transcript", async () => {
    for (const s of SEATS) {
      const sent = await j.cli(['send', s.seat, `hello ${s.member}`, '--verify', '--json']);
      expect(sent.json, `${s.seat}: ${sent.stdout}${sent.stderr}`).toMatchObject({
        ok: true,
        sent: { status: 'delivered', verified: true },
      });
    }
    for (const s of SEATS) {
      await waitForReplyInTranscript(
        ADAPTER[s.runtime],
        j.homeOf(s.runtime),
        j.dir(),
        conv[s.seat]!,
        `ACK hello ${s.member}`,
      );
    }
    // Pi's file names the same id in its header as Rigdesk does.
    const piFile = ADAPTER.pi.transcriptPath!(j.homeOf('pi'), j.dir(), conv['pi@trio']!, liveEvidenceIO)!;
    expect(JSON.parse(readFileSync(piFile, 'utf8').split('\n')[0]!)).toMatchObject({
      type: 'session',
      id: conv['pi@trio'],
    });
  });

  it('each goes working while its reply streams, then idle once it has ended', async () => {
    await j.sequences(
      SEATS.map((s) => s.seat),
      [{ activity: 'idle' }],
    );
    // Each reply streams, then holds its last chunk until the test has seen all three working: what
    // is defended is the reading while a reply is in flight, not how fast a poll of whole
    // `rigdesk ps` processes can catch a few seconds on a loaded machine.
    server.hold();
    await Promise.all(
      SEATS.map(async (s) => {
        const sent = await j.cli(['send', s.seat, `slow one HOLD ${s.member}`, '--verify', '--json']);
        expect(sent.json, `${s.seat}: ${sent.stdout}${sent.stderr}\n${j.screen(s.seat)}`).toMatchObject({
          ok: true,
          sent: { verified: true },
        });
      }),
    );
    // Nothing is released before this: every reading taken here is of a reply still in flight.
    await j.sequences(
      SEATS.map((s) => s.seat),
      [{ activity: 'working' }],
    );
    server.release();
    await j.sequences(
      SEATS.map((s) => s.seat),
      [{ activity: 'idle' }],
    );
    for (const s of SEATS)
      await waitForReplyInTranscript(
        ADAPTER[s.runtime],
        j.homeOf(s.runtime),
        j.dir(),
        conv[s.seat]!,
        `slow one HOLD ${s.member} tick2 tick3 tick4 tick5 tick6`,
      );
  });

  it('a permission prompt is answered from Rigdesk: a plain send is held; rigdesk prompts shows it and rigdesk answer approves it, recorded', async () => {
    const work = j.dir();
    const ask = [
      { seat: 'lead@trio', file: 'from-claude.txt' },
      { seat: 'coder@trio', file: 'from-codex.txt' },
    ];
    for (const a of ask)
      expect((await j.cli(['send', a.seat, `RUN: echo ok > ${a.file}`, '--json'])).json.ok).toBe(true);
    await Promise.all(ask.map((a) => j.seen(a.seat, { activity: 'needs_input', needsInput: 'permission' })));
    const listed = await j.cli(['prompts', '--json']);
    expect(listed.code, listed.stdout + listed.stderr).toBe(0);
    for (const a of ask) {
      // An automatic send never types over the prompt.
      const held = await j.cli(['send', a.seat, 'y', '--json']);
      expect(held.code).toBe(1);
      expect(held.json).toMatchObject({ ok: false, code: 'SEND_HELD', evidence: { why: 'needs_input:permission' } });
      expect(existsSync(join(work, a.file))).toBe(false);
      // The person approves the prompt they were shown (its fingerprint pins the answer to it).
      const item = listed.json.prompts.find((p: { seat: string }) => p.seat === a.seat);
      expect(item, listed.stdout).toMatchObject({
        reason: 'permission',
        choices: expect.arrayContaining(['approve', 'deny', 'deny_with_message']),
      });
      expect(item.screen.join('\n')).toContain(`echo ok > ${a.file}`);
      const answered = await j.cli([
        'answer',
        a.seat,
        'approve',
        `--prompt=${item.fingerprint}`,
        '--reason',
        'journey: approve the echo',
        '--json',
      ]);
      expect(answered.json, answered.stdout + answered.stderr).toMatchObject({
        ok: true,
        answered: { seat: a.seat, choice: 'approve' },
      });
    }
    // The shell makes each file before echo writes into it: wait for what they hold.
    const echoed = (f: string) => existsSync(join(work, f)) && readFileSync(join(work, f), 'utf8').trim() === 'ok';
    await waitFor(() => ask.every((a) => echoed(a.file)), { timeoutMs: 30_000, what: 'both commands ran' });
    await Promise.all(ask.map((a) => j.seen(a.seat, { activity: 'idle' })));
    for (const a of ask) {
      const ev = await j.cli(['events', '--seat', a.seat, '--json']);
      const kinds = ev.json.events.map((e: { kind: string }) => e.kind);
      expect(kinds).toContain('seat.send_held');
      expect(kinds).toContain('seat.prompt_answered');
    }
    // Pi never asks: the same request just runs, and the seat is never seen waiting for a person.
    expect((await j.cli(['send', 'pi@trio', 'RUN: echo ok > from-pi.txt', '--json'])).json.ok).toBe(true);
    const rows: PsRow[] = [];
    await waitFor(
      async () => {
        rows.push(await j.row('pi@trio'));
        return existsSync(join(work, 'from-pi.txt'));
      },
      { timeoutMs: 30_000, intervalMs: 100, what: 'pi ran the command' },
    );
    expect(rows.filter((r) => r.activity === 'needs_input')).toEqual([]);
  });

  it('down removes exactly the three seats', async () => {
    const down = await j.cli(['down', 'trio', '--json']);
    expect(down.code, down.stdout).toBe(0);
    expect(down.json.seats.map((s: { outcome: string }) => s.outcome)).toEqual(['removed', 'removed', 'removed']);
    expect(j.w.sessions()).toEqual([]);
  });
});

import type { SentText } from '../../../shared/contract';
import { fail, type Result } from '../../../shared/errors';
import { observeSeats, type ObservedSeat, type FreshLookPorts } from '../activity/observe';
import { checkConversationFree } from '../custody/guard';
import { revalidateTarget, type WriteTarget } from '../custody/revalidate';
import type { Ports } from '../ports';
import { atFault } from '../faults';
import { runtimeById } from '../runtimes';
import type { SeatRow } from '../store';
import { realOrSame } from '../custody/cwd';
import { withSeatTurn } from './lease';
import { validateSendText } from './text';
import { verifySubmitted } from './verify';
import { conversationFamily } from '../runtimes/family';

/** What a send takes besides a fresh look: the seat's lease, a revalidation of its pane, the paste. */
export type SendPorts = FreshLookPorts & Pick<Ports, 'faults' | 'newId' | 'procNow' | 'selfPid'>;

export interface SendOptions {
  /** Seconds from the start to wait for idle before taking the lease. */
  waitForIdle?: number;
  force?: boolean;
  reason?: string;
  /**
   * Confirm on screen that the text left the input box (one more Enter if it did not). Default: on
   * for an agent whose screen Rigdesk reads, since every one of them was seen to drop an Enter under
   * load, and text left in a box is a prompt nobody sent; off for a plain program (nothing to read).
   */
  verify?: boolean;
}

/** How long a send waits for its turn behind another send to the same seat, at least. */
const TURN_WAIT_MS = 30_000;

/** A send held back before anything was typed (the seat was busy, or still starting). */
export function heldNothingTyped(code: string): boolean {
  return code === 'SEND_HELD' || code === 'SEAT_STARTING';
}

/**
 * Sends text to a seat (docs/architecture.md invariants 1, 5, 6): custody first; then what the seat is doing
 * holds an automatic send (a prompt waiting for the person, a draft, unknown or busy activity)
 * unless forced with a reason; the target is re-read just before the keystrokes; the text goes in
 * as a bracketed paste of a literal buffer, then Enter. Held, refused and unconfirmed are never
 * reported as delivered.
 */
export async function sendToSeat(
  ports: SendPorts,
  ref: unknown,
  textIn: unknown,
  opts: SendOptions = {},
): Promise<Result<{ sent: SentText }>> {
  const found = ports.store.rigs.find(ref);
  if (!found.ok) return found;
  const { seat } = found;
  const text = validateSendText(textIn);
  if (!text.ok) return text;
  if (opts.force && !opts.reason) return fail('BAD_USAGE', 'a forced send needs --reason, which is recorded');
  const start = ports.clock.now();
  const deadline = start + (opts.waitForIdle ?? 0) * 1000;
  const res = await deliver(ports, seat, text.text, opts, start, deadline);
  const where = { rig: seat.rig, seat: seat.seat };
  if (!res.ok)
    ports.store.events.append(heldNothingTyped(res.code) ? 'seat.send_held' : 'seat.send_refused', where, {
      code: res.code,
      message: res.message,
      evidence: res.evidence ?? {},
    });
  return res;
}

async function deliver(
  ports: SendPorts,
  seat: SeatRow,
  text: string,
  opts: SendOptions,
  start: number,
  deadline: number,
): Promise<Result<{ sent: SentText }>> {
  if (!ports.store.sessions.live(seat.seat))
    return fail('SEAT_NOT_RUNNING', `${seat.seat} is not running`, {
      hint: `Start it with rigdesk launch ${seat.seat}.`,
    });
  // --wait-for-idle waits before taking the lease, against a deadline counted from the start.
  if (opts.waitForIdle && !opts.force) {
    for (;;) {
      const o = await observe(ports, seat);
      if (!o.ok) return o;
      const hold = holdReason(o.observed);
      // A seat that is starting is waited for past the given wait, up to its start time: `starting`
      // ends by itself then (activity/decide.ts), so this wait is bounded too.
      if (hold === undefined || (ports.clock.now() >= deadline && hold.why !== 'starting')) break;
      await ports.clock.sleep(250);
    }
  }
  const turn = await withSeatTurn(ports, seat.seat, Math.max(deadline, start + TURN_WAIT_MS), () =>
    typeOnce(ports, seat, text, opts),
  );
  if (!turn.ok) {
    return fail('SEND_HELD', `another send to ${seat.seat} held the seat for ${Math.round(turn.waitedMs / 1000)} s`, {
      evidence: { status: 'held', why: 'lease' },
    });
  }
  return turn.value;
}

async function observe(ports: SendPorts, seat: SeatRow) {
  const roster = await ports.roster();
  const observed = (await observeSeats(ports, roster, [seat])).get(seat.seat)!;
  if (!observed.live || !observed.pane)
    return fail('SEAT_NOT_RUNNING', `${seat.seat}'s session is gone`, {
      hint: `Start it again with rigdesk launch ${seat.seat}.`,
    });
  return { ok: true as const, roster, observed };
}

/** Why an automatic send must not type now, or undefined when it may. */
function holdReason(o: ObservedSeat): { why: string; detail: string } | undefined {
  const a = o.activity;
  if (a.session === 'exited') return { why: 'exited', detail: 'the agent has exited; its shell is in front' };
  if (a.needsInput !== 'none')
    return { why: `needs_input:${a.needsInput}`, detail: `the seat is waiting for a person (${a.needsInput})` };
  if (a.draft) return { why: 'draft', detail: 'a person has unsent text in the input box' };
  if (a.activity === 'unknown') return { why: 'unknown', detail: 'nothing shows what the seat is doing' };
  if (a.activity === 'starting') return { why: 'starting', detail: 'the seat was just launched and is not ready yet' };
  if (a.activity === 'working') return { why: 'working', detail: 'the seat is in the middle of a turn' };
  return undefined;
}

type Observed = Extract<Awaited<ReturnType<typeof observe>>, { ok: true }>;

/** The seat's conversation must have no other writer (its own pane is allowed). */
function checkCustody(
  ports: Pick<Ports, 'fs' | 'seatHome' | 'store'>,
  seat: SeatRow,
  o: Observed,
  warnings: string[],
): Result {
  const live = o.observed.live!;
  const pane = o.observed.pane!;
  const adapter = runtimeById(seat.runtime);
  const conversationId = pane.agent?.conversationId ?? live.conversationId ?? undefined;
  if (!adapter?.conversations) return { ok: true };
  if (!conversationId) {
    warnings.push(`the conversation of ${seat.seat} is not known yet; only its own pane was checked`);
    return { ok: true };
  }
  return checkConversationFree(
    o.roster,
    {
      runtime: adapter.id,
      conversationId,
      cwd: realOrSame(ports.fs, seat.cwd),
      home: ports.seatHome(seat),
      allowPids: [pane.panePid, ...pane.lineage.map((p) => p.pid)],
      allowSessionId: live.id,
      host: seat.host,
    },
    ports.store.sessions.liveBoundTo(conversationFamily(adapter.id), conversationId),
  );
}

/** A prompt, a draft, unknown or busy activity holds the send, unless it is forced with a reason. */
function checkHold(
  ports: Pick<Ports, 'store'>,
  seat: SeatRow,
  observed: ObservedSeat,
  opts: SendOptions,
  warnings: string[],
): Result {
  const hold = holdReason(observed);
  if (!hold) return { ok: true };
  if (!opts.force && hold.why === 'starting') {
    const basis = observed.activity.basis[0]?.detail;
    return fail('SEAT_STARTING', `${seat.seat} is starting (${basis ?? 'just launched'}); nothing was typed`, {
      hint: 'Send again in a moment, or add --wait-for-idle <seconds> to send once it is ready.',
      evidence: { status: 'held', why: 'starting', activity: observed.activity },
    });
  }
  if (!opts.force) {
    return fail('SEND_HELD', `held: ${hold.detail}; nothing was typed`, {
      hint:
        hold.why === 'working'
          ? 'Add --wait-for-idle <seconds> to send when the turn ends.'
          : hold.why === 'exited'
            ? `Relaunch it: rigdesk launch ${seat.seat}.`
            : 'Answer the seat yourself, or send with --force --reason "<why>".',
      evidence: { status: 'held', why: hold.why, activity: observed.activity },
    });
  }
  ports.store.events.append(
    'seat.send_override',
    { rig: seat.rig, seat: seat.seat },
    { why: hold.why, reason: opts.reason },
  );
  warnings.push(`typed over ${hold.why} by request: ${opts.reason}`);
  return { ok: true };
}

/** What the keystrokes go to, pinned so a pane that changed hands is refused before the write. */
function writeTargetOf(observed: ObservedSeat): WriteTarget {
  const live = observed.live!;
  const pane = observed.pane!;
  return {
    server: live.server,
    paneId: live.paneId,
    sessionId: live.sessionId,
    serverPid: live.serverPid,
    panePid: pane.panePid,
    panePidStart: pane.panePidStart,
    // The process that reads the keystrokes: the agent, or for a plain program the seat's program
    // (the wrapper's child). If it exits or its pid is reused, the write is refused.
    agent: pane.agent
      ? { pid: pane.agent.pid, startTime: pane.agent.startTime }
      : pane.lineage[0]
        ? { pid: pane.lineage[0].pid, startTime: pane.lineage[0].startTime }
        : undefined,
  };
}

/** Paste the text as a literal buffer, then Enter (after the runtime's delay). */
async function pasteAndSubmit(
  ports: Pick<Ports, 'client' | 'clock' | 'faults' | 'newId'>,
  seat: SeatRow,
  server: string,
  paneId: string,
  text: string,
): Promise<Result> {
  const client = ports.client(server);
  const pasted = await client.paste(paneId, text, `rigdesk-${ports.newId()}`);
  if (!pasted.ok) return pasted;
  // Some runtimes drop an Enter that arrives right after pasted text (Codex): the adapter says how long to wait.
  const delay = runtimeById(seat.runtime)?.submitDelayMs;
  if (delay) await ports.clock.sleep(delay);
  const dropEnter = ports.faults['send.drop_enter'];
  const entered = dropEnter ? (await dropEnter(), { ok: true as const }) : await client.sendKeys(paneId, ['Enter']);
  if (entered.ok) return { ok: true };
  // The text is already in the input box: this is not a refusal, it is unconfirmed.
  return fail('SEND_UNCONFIRMED', `pasted into ${seat.seat}, but Enter could not be sent (${entered.message})`, {
    hint: 'Look at the seat (rigdesk capture) before sending again.',
    evidence: { status: 'unconfirmed', why: 'enter_failed' },
  });
}

async function typeOnce(
  ports: SendPorts,
  seat: SeatRow,
  text: string,
  opts: SendOptions,
): Promise<Result<{ sent: SentText }>> {
  const o = await observe(ports, seat);
  if (!o.ok) return o;
  const { observed } = o;
  const live = observed.live!;
  const pane = observed.pane!;
  const warnings: string[] = [];
  const conversationId = pane.agent?.conversationId ?? live.conversationId ?? undefined;
  const custody = checkCustody(ports, seat, o, warnings);
  if (!custody.ok) return custody;
  const held = checkHold(ports, seat, observed, opts, warnings);
  if (!held.ok) return held;
  await atFault(ports.faults, 'send.before_revalidate');
  const moved = await revalidateTarget(ports, writeTargetOf(observed));
  if (!moved.ok) return moved;
  const typed = await pasteAndSubmit(ports, seat, live.server, live.paneId, text);
  if (!typed.ok) return typed;
  const record = (verified: boolean) =>
    ports.store.events.append(
      'seat.send',
      { rig: seat.rig, seat: seat.seat },
      {
        paneId: live.paneId,
        chars: text.length,
        preview: text.slice(0, 120),
        conversationId: conversationId ?? null,
        verified,
      },
    );
  let verified = false;
  if (opts.verify ?? runtimeById(seat.runtime)?.readScreen !== undefined) {
    const v = await verifySubmitted(ports, seat, live.server, live.paneId, text);
    verified = v.ok;
    if (!v.ok) {
      record(false);
      return fail('SEND_UNCONFIRMED', `typed into ${seat.seat}, but ${v.why}`, {
        hint: 'Look at the seat (rigdesk capture) before sending again.',
        evidence: { status: 'unconfirmed', why: v.why },
      });
    }
  }
  record(verified);
  return {
    ok: true,
    sent: { seat: seat.seat, status: 'delivered', paneId: live.paneId, chars: text.length, verified, warnings },
  };
}

import type { AnsweredPrompt, PromptChoice } from '../../../shared/contract/app';
import { hostOfServer } from '../tmux/identity';
import { fail, type Result } from '../../../shared/errors';
import { capturePanes } from '../activity/capture';
import { observeSeats, type FreshLookPorts } from '../activity/observe';
import { checkConversationFree } from '../custody/guard';
import { revalidateTarget, type WriteTarget } from '../custody/revalidate';
import { withSeatTurn } from '../delivery/lease';
import type { Ports } from '../ports';
import { runtimeById } from '../runtimes';
import type { SeatRow } from '../store';
import { appendPromptEvent } from './events';
import { type SendPorts, sendToSeat } from '../delivery/send';
import { PROMPT_KEYS, type PromptScreen, readPrompt } from './screens';
import { conversationFamily } from '../runtimes/family';

/**
 * What an answer takes besides a fresh look: the seat's lease, a revalidation of its pane, and a
 * send (deny_with_message types its message through safe send).
 */
export type AnswerPorts = SendPorts;

export interface AnswerOptions {
  /** deny_with_message: what the agent should do instead; other: the answer of one's own. */
  message?: string;
  /** option: the question's option number. */
  option?: number;
  /** The prompt the person saw (from `prompts.list`); a different prompt on screen is refused. */
  fingerprint?: string;
  reason?: string;
  /** Who answers (the window, the CLI), recorded with the answer. */
  by?: string;
  /** Tests only: runs between the decision and the revalidation, as a pane could change hands. */
  beforeRevalidate?: () => Promise<void> | void;
}

export type Answered = AnsweredPrompt;

/** How long an answer waits behind another writer to the same seat (a send, another answer). */
const TURN_WAIT_MS = 10_000;

/**
 * Answers a seat's permission prompt (a live needs_input, not a stored decision). Like a send, it
 * writes only after the checks of docs/architecture.md: the seat is at a permission prompt *now* (fresh
 * observation and screen), it is the prompt the person saw, nobody else writes its conversation,
 * and the pane, its pid and the agent's start time are re-read just before the keys. Every
 * answer and every refusal is an event.
 */
export async function answerPrompt(
  ports: AnswerPorts,
  ref: unknown,
  choice: PromptChoice,
  opts: AnswerOptions = {},
): Promise<Result<{ answered: Answered }>> {
  const found = ports.store.rigs.find(ref);
  if (!found.ok) return found;
  const { seat } = found;
  const usage = usageProblem(choice, opts);
  if (usage) return fail('BAD_USAGE', usage);
  const where = { rig: seat.rig, seat: seat.seat };
  const turn = await withSeatTurn(ports, seat.seat, ports.clock.now() + TURN_WAIT_MS, () =>
    answerOnce(ports, seat, choice, opts),
  );
  const res = turn.ok
    ? turn.value
    : fail(
        'SEND_HELD',
        `another writer held ${seat.seat} for ${Math.round(turn.waitedMs / 1000)} s; nothing was typed`,
        { evidence: { why: 'lease' } },
      );
  if (res.ok && choice === 'deny_with_message' && opts.message !== undefined)
    return withMessage(ports, seat, res.answered, opts.message);
  if (!res.ok)
    appendPromptEvent(ports, 'seat.prompt_answer_refused', where, {
      choice,
      code: res.code,
      message: res.message,
      reason: opts.reason ?? null,
      by: opts.by ?? null,
      evidence: res.evidence ?? {},
    });
  return res;
}

async function answerOnce(
  ports: AnswerPorts,
  seat: SeatRow,
  choice: PromptChoice,
  opts: AnswerOptions,
): Promise<Result<{ answered: Answered }>> {
  if (!PROMPT_KEYS[seat.runtime])
    return fail(
      'DECISION_CHOICE_INVALID',
      `${seat.seat} runs ${seat.runtime}, whose prompts Rigdesk does not answer; answer it in the terminal`,
    );
  if (!ports.store.sessions.live(seat.seat)) return fail('SEAT_NOT_RUNNING', `${seat.seat} is not running`);
  const roster = await ports.roster();
  const observed = (await observeSeats(ports, roster, [seat])).get(seat.seat)!;
  const { live, pane, activity } = observed;
  if (!live || !pane) return fail('SEAT_NOT_RUNNING', `${seat.seat}'s session is gone`);
  const noPrompt = (why: string, evidence: Record<string, unknown> = {}) =>
    fail('PROMPT_NOT_WAITING', `${seat.seat} ${why}; nothing was typed`, {
      hint: 'Look at the seat again; answer the prompt it shows now.',
      evidence: { activity, ...evidence },
    });
  if (activity.needsInput !== 'permission' && activity.needsInput !== 'question')
    return noPrompt('is not at a permission prompt or a question now');
  const screen = (await capturePanes(ports.client(live.server), [live.paneId])).get(live.paneId);
  const prompt = screen ? readPrompt(seat.runtime, screen.plain, screen.styled) : undefined;
  if (!prompt) return noPrompt('shows no permission prompt on screen');
  if (opts.fingerprint && opts.fingerprint !== prompt.fingerprint)
    return noPrompt('shows a different prompt from the one answered', {
      saw: opts.fingerprint,
      now: prompt.fingerprint,
      prompt: prompt.lines,
    });
  if (choice === 'approve' && prompt.kind === 'permission' && !prompt.approveReady)
    return noPrompt(`cannot be approved from here: ${prompt.why}`, { prompt: prompt.lines });
  const offer = offerFor(seat, prompt, choice, opts.option);
  if (!offer.ok) return offer;

  const conversationId = pane.agent?.conversationId ?? live.conversationId ?? undefined;
  const adapter = runtimeById(seat.runtime);
  if (adapter && conversationId) {
    const ownPids = [pane.panePid, ...pane.lineage.map((p) => p.pid)];
    const free = checkConversationFree(
      roster,
      {
        runtime: adapter.id,
        conversationId,
        allowPids: ownPids,
        allowSessionId: live.id,
        host: hostOfServer(live.server),
      },
      ports.store.sessions.liveBoundTo(conversationFamily(adapter.id), conversationId),
    );
    if (!free.ok) return free;
  }
  const target: WriteTarget = {
    server: live.server,
    paneId: live.paneId,
    sessionId: live.sessionId,
    serverPid: live.serverPid,
    panePid: pane.panePid,
    panePidStart: pane.panePidStart,
    agent: pane.agent ? { pid: pane.agent.pid, startTime: pane.agent.startTime } : undefined,
  };
  if (!target.agent) return noPrompt('has no agent process in its pane');
  await opts.beforeRevalidate?.();
  const moved = await revalidateTarget(ports, target);
  if (!moved.ok) return moved;
  const still = await samePrompt(ports, live, seat.runtime, prompt.fingerprint);
  if (!still.ok) return still;
  const sent = await typeAnswer(ports, live, offer.keys, choice === 'other' ? opts.message : undefined);
  if (!sent.ok) return sent;
  const answered: Answered = {
    seat: seat.seat,
    choice,
    keys: offer.keys,
    ...(opts.option !== undefined ? { option: opts.option } : {}),
    paneId: live.paneId,
    fingerprint: prompt.fingerprint,
  };
  appendPromptEvent(
    ports,
    'seat.prompt_answered',
    { rig: seat.rig, seat: seat.seat },
    {
      choice,
      keys: answered.keys,
      paneId: live.paneId,
      fingerprint: prompt.fingerprint,
      prompt: prompt.lines,
      reason: opts.reason ?? null,
      by: opts.by ?? null,
      conversationId: conversationId ?? null,
      basis: activity.basis,
    },
  );
  return { ok: true, answered };
}

/** What a choice needs besides itself, when it is missing or does not belong. */
function usageProblem(choice: PromptChoice, opts: AnswerOptions): string | undefined {
  const wantsText = choice === 'deny_with_message' || choice === 'other';
  if (wantsText && opts.message === undefined) return `${choice} needs the text to type (--message)`;
  if (!wantsText && opts.message !== undefined) return 'a message goes only with deny_with_message or other';
  if ((choice === 'option') !== (opts.option !== undefined))
    return choice === 'option' ? 'option needs the number of the option' : 'an option number goes only with option';
  return undefined;
}

/**
 * The keys, then (an answer of one's own) the text pasted as it is and Enter. The paste waits for
 * the keys' redraw (the field open), and Enter for the text to show: a paste that came before the
 * field was open was lost under load, and Enter then picked the highlighted option (Claude took
 * "Red"). A field drawn off a narrow pane (Codex's notes) never shows the text, so after the wait
 * Enter goes anyway.
 */
async function typeAnswer(
  ports: AnswerPorts,
  live: { server: string; paneId: string },
  keys: string[],
  text: string | undefined,
): Promise<Result> {
  const client = ports.client(live.server);
  const before = text === undefined ? undefined : await screenOf(ports, live);
  const sent = await client.sendKeys(live.paneId, keys);
  if (!sent.ok || text === undefined) return sent;
  await until(ports, async () => (await screenOf(ports, live)) !== before);
  const pasted = await client.paste(live.paneId, text, `rigdesk-answer-${ports.newId()}`);
  if (!pasted.ok) return pasted;
  const probe = squash(text).slice(0, 24);
  await until(ports, async () => squash(await screenOf(ports, live)).includes(probe));
  return client.sendKeys(live.paneId, ['Enter']);
}

/** How long the field may take to open, and the pasted text to show in it. */
const FIELD_WAIT_MS = 1500;

const squash = (s: string) => s.replace(/\s+/g, '');

async function screenOf(ports: AnswerPorts, live: { server: string; paneId: string }): Promise<string> {
  const screen = (await capturePanes(ports.client(live.server), [live.paneId])).get(live.paneId);
  return screen ? screen.plain.join('\n') : '';
}

/** True once `ok` holds, polled every 100 ms for FIELD_WAIT_MS; false when it never did. */
async function until(ports: AnswerPorts, ok: () => Promise<boolean>): Promise<boolean> {
  const end = ports.clock.now() + FIELD_WAIT_MS;
  for (;;) {
    if (await ok()) return true;
    if (ports.clock.now() >= end) return false;
    await ports.clock.sleep(100);
  }
}

/** The keys of the choice the prompt on screen offers, or the refusal that lists what it offers. */
function offerFor(
  seat: SeatRow,
  prompt: PromptScreen,
  choice: PromptChoice,
  option?: number,
): Result<{ keys: string[] }> {
  const offer = prompt.offers.find((o) => o.choice === choice && (option === undefined || o.option === option));
  if (offer) return { ok: true, keys: offer.keys };
  return fail(
    'DECISION_CHOICE_INVALID',
    `${seat.seat}'s prompt offers no ${choice.replace(/_/g, ' ')}; nothing was typed`,
    {
      hint: `It offers: ${prompt.offers.map((o) => `${o.choice} (${o.label})`).join(', ')}.`,
      evidence: { prompt: prompt.lines },
    },
  );
}

/**
 * The screen read again right before the keys: the prompt the answer was decided on must still be
 * the one there (a person may have answered it in the terminal meanwhile, or the agent moved on).
 */
async function samePrompt(
  ports: AnswerPorts,
  live: { server: string; paneId: string },
  runtime: string,
  fingerprint: string,
): Promise<Result<object>> {
  const screen = (await capturePanes(ports.client(live.server), [live.paneId])).get(live.paneId);
  const now = screen ? readPrompt(runtime, screen.plain, screen.styled) : undefined;
  if (now?.fingerprint === fingerprint) return { ok: true };
  return fail(
    'PROMPT_CHANGED',
    now
      ? 'the prompt on screen changed just before the answer; nothing was typed'
      : 'the prompt went away just before the answer; nothing was typed',
    {
      hint: 'Look at the seat again and answer what it asks now.',
      evidence: { was: fingerprint, now: now?.fingerprint ?? null, prompt: now?.lines ?? [] },
    },
  );
}

/** How long the message waits for the agent's input box once the prompt is refused. */
const MESSAGE_WAIT_S = 30;

/**
 * deny_with_message, after the refusal: the message goes into the agent's own input box through
 * safe send (it waits for the box, pastes, verifies), and the answer says whether it arrived.
 */
async function withMessage(
  ports: AnswerPorts,
  seat: SeatRow,
  answered: Answered,
  message: string,
): Promise<Result<{ answered: Answered }>> {
  const sent = await sendToSeat(ports, seat.seat, message, { waitForIdle: MESSAGE_WAIT_S });
  if (!sent.ok)
    return {
      ...sent,
      message: `the prompt was refused, but the message was not delivered: ${sent.message}`,
      evidence: { ...sent.evidence, answered },
    };
  return { ok: true, answered: { ...answered, message: { chars: sent.sent.chars, verified: sent.sent.verified } } };
}

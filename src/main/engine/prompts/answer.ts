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
import { PROMPT_KEYS, readPrompt } from './screens';
import { conversationFamily } from '../runtimes/family';

/** What an answer takes besides a fresh look: the seat's lease and a revalidation of its pane. */
export type AnswerPorts = FreshLookPorts & Pick<Ports, 'procNow' | 'selfPid'>;

export interface AnswerOptions {
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
  const keys = PROMPT_KEYS[seat.runtime];
  if (!keys)
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
  if (activity.needsInput !== 'permission') return noPrompt('is not at a permission prompt now');
  const screen = (await capturePanes(ports.client(live.server), [live.paneId])).get(live.paneId);
  const prompt = screen ? readPrompt(seat.runtime, screen.plain, screen.styled) : undefined;
  if (!prompt) return noPrompt('shows no permission prompt on screen');
  if (opts.fingerprint && opts.fingerprint !== prompt.fingerprint)
    return noPrompt('shows a different prompt from the one answered', {
      saw: opts.fingerprint,
      now: prompt.fingerprint,
      prompt: prompt.lines,
    });
  if (choice === 'approve' && !prompt.approveReady)
    return noPrompt(`cannot be approved from here: ${prompt.why}`, { prompt: prompt.lines });

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
  const sent = await ports.client(live.server).sendKeys(live.paneId, [...keys[choice]]);
  if (!sent.ok) return sent;
  const answered: Answered = {
    seat: seat.seat,
    choice,
    keys: [...keys[choice]],
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

import { create } from 'zustand';
import type {
  DecisionChoice,
  DecisionOutcome,
  RestoreReport,
  SeatPlanView,
  SeatPreview,
  SeatResult,
} from '../../../shared/contract';
import type { Failure } from '../../../shared/errors';
import { call } from '../state/actions';
import { type Decision, noteDone, useWindow } from '../state/store';

/**
 * The restore review's state, kept apart from the window's store and across view switches: the
 * last plan of each rig (the engine's `restore --plan` answer), the run "apply" started and its
 * report, and the decisions answered from the review with what each answer did.
 */

export type PlanReport = Extract<RestoreReport, { planOnly: true }>;
export type RunReport = Extract<RestoreReport, { planOnly: false }>;

export interface PlanState {
  loading: boolean;
  report?: PlanReport;
  failure?: Failure;
}
export interface RunState {
  running: boolean;
  /** The newest event seq when the run began: launches after it are this run's, shown as they land. */
  afterSeq: number;
  report?: RunReport;
  failure?: Failure;
}
export type Answer = { pending: true; choice: DecisionChoice } | { pending: false; outcome: DecisionOutcome };

interface ReviewState {
  plans: Record<string, PlanState>;
  runs: Record<string, RunState>;
  answers: Record<string, Answer>;
}

export const useReview = create<ReviewState>(() => ({ plans: {}, runs: {}, answers: {} }));

/** The same engine call as `rigdesk restore <rig> --plan`. */
export async function planRig(rig: string): Promise<void> {
  useReview.setState((s) => ({ plans: { ...s.plans, [rig]: { ...s.plans[rig], loading: true } } }));
  const r = await call('restore', { target: rig, plan: true }, `restore ${rig} --plan`, { quiet: true });
  const next: PlanState = !r
    ? { loading: false }
    : !r.ok
      ? { loading: false, failure: r }
      : r.planOnly
        ? { loading: false, report: r }
        : { loading: false };
  useReview.setState((s) => ({ plans: { ...s.plans, [rig]: next } }));
}

/**
 * "Apply every proven resume": the rig's restore, run for real. Every seat whose conversation its
 * transcript proves resumes on it; a seat with nothing to lose starts fresh; every other seat gets a
 * decision, never a guess (the engine's decision table). Launches show as they land (events), the
 * report when the run ends.
 */
export async function applyRestore(rig: string, seats: readonly string[]): Promise<void> {
  const afterSeq = useWindow.getState().events.at(-1)?.seq ?? 0;
  useReview.setState((s) => ({
    runs: { ...s.runs, [rig]: { running: true, afterSeq } },
    answers: Object.fromEntries(Object.entries(s.answers).filter(([seat]) => !seats.includes(seat))),
  }));
  const r = await call('restore', { target: rig }, `restore ${rig}`);
  const run: RunState = { running: false, afterSeq };
  if (r && !r.ok) run.failure = r;
  if (r?.ok && !r.planOnly) {
    run.report = r;
    noteDone(`${rig}: ${r.outcome.replace(/_/g, ' ')}`);
  }
  useReview.setState((s) => ({ runs: { ...s.runs, [rig]: run } }));
  await planRig(rig);
}

/** A decision answered from the review: recorded by the engine, and what it did shown on its row. */
export async function answerDecision(d: Decision, choice: DecisionChoice, reason: string): Promise<boolean> {
  useReview.setState((s) => ({ answers: { ...s.answers, [d.seat]: { pending: true, choice } } }));
  const r = await call('decide', { id: d.id, choice, reason }, `decide ${d.id} ${choice}`);
  useReview.setState((s) => {
    const answers = { ...s.answers };
    if (r?.ok) answers[d.seat] = { pending: false, outcome: r.result };
    else delete answers[d.seat];
    return { answers };
  });
  if (r?.ok) noteDone(`${d.seat}: ${choice.replace(/_/g, ' ')}`);
  await planRig(d.rig);
  return r?.ok === true;
}

/** One seat's line of the review: what restore will do (the plan), did (the run), and what was decided. */
export interface SeatLine {
  seat: string;
  preview?: SeatPreview;
  plan?: SeatPlanView;
  result?: SeatResult;
  answer?: Answer;
}

export function seatLines(
  seats: readonly string[],
  plan: PlanReport | undefined,
  run: RunState | undefined,
  answers: Record<string, Answer>,
): SeatLine[] {
  return seats.map((seat) => ({
    seat,
    preview: plan?.seats.find((p) => p.seat === seat),
    plan: plan?.plan.find((p) => p.seat === seat),
    result: run?.report?.seats.find((p) => p.seat === seat),
    answer: answers[seat],
  }));
}

const WILL: Readonly<Record<string, string>> = {
  resume: 'will resume on its conversation',
  fresh: 'will start fresh',
  verify_running: 'running: checked, not relaunched',
  awaiting_decision: 'awaits your decision',
  skipped_stopped: 'stays stopped (stopped on purpose)',
  skipped_policy: 'never (its restore policy)',
  refused: 'refused',
};
const DID: Readonly<Record<string, string>> = {
  resumed: 'resumed on its conversation',
  fresh: 'started fresh',
  running: 'running',
  awaiting_decision: 'awaits your decision',
  attention_required: 'up, a dialog waits in its pane',
  failed: 'failed',
  refused: 'refused',
  skipped_stopped: 'stays stopped (stopped on purpose)',
  skipped_policy: 'never (its restore policy)',
  left_stopped: 'left stopped',
};

/** The row's status: a key (for `data-outcome`) and the words. */
export function statusOf(
  l: SeatLine,
  running: boolean,
  landed: boolean,
): { key: string; phase: string; words: string } {
  if (l.answer?.pending) return { key: 'answering', phase: 'answered', words: `answering: ${l.answer.choice}…` };
  if (l.answer) {
    const o = l.answer.outcome.outcome;
    return { key: o, phase: 'answered', words: `decided: ${DID[o] ?? o}` };
  }
  if (running)
    return landed
      ? { key: 'launched', phase: 'running', words: 'launched, proving its conversation…' }
      : { key: 'restoring', phase: 'running', words: 'restoring…' };
  if (l.result) return { key: l.result.outcome, phase: 'result', words: DID[l.result.outcome] ?? l.result.outcome };
  if (l.preview) return { key: l.preview.plan, phase: 'plan', words: WILL[l.preview.plan] ?? l.preview.plan };
  return { key: 'unknown', phase: 'plan', words: 'not in the plan' };
}

const str = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : undefined);

/** What proves the row's status, in a line: the conversation and who names it, or the evidence that stops it. */
export function proofOf(l: SeatLine): string {
  const o = l.answer && !l.answer.pending ? l.answer.outcome : l.result;
  if (o) {
    if (o.outcome === 'resumed')
      return `conversation ${o.conversationId} · pid ${o.pid} · proven by ${o.evidence.source}`;
    if (o.outcome === 'fresh') return o.conversationId ? `new conversation ${o.conversationId}` : 'new conversation';
    if (o.outcome === 'failed' || o.outcome === 'refused') return `${o.code}: ${o.why}`;
    if (o.outcome === 'running') return o.conversationId ? `conversation ${o.conversationId}` : o.why;
    if (o.outcome === 'attention_required') return `${o.evidence.reason}: see its pane`;
    if (o.outcome === 'left_stopped') return 'marked stopped on purpose';
    return o.why;
  }
  const p = l.plan;
  if (p?.action === 'resume') return `conversation ${p.conversationId} · ${p.why}`;
  if (p?.action === 'awaiting_decision') return `${p.reason.replace(/_/g, ' ')}: ${p.why}${p.conversationId ? '' : ''}`;
  if (l.preview?.code) return `${l.preview.code}: ${l.preview.why}`;
  return l.preview?.why ?? '';
}

/** A decision's evidence as short lines (key: value), the transcript it looked for first. */
export function evidenceLines(evidence: Record<string, unknown>): string[] {
  return Object.entries(evidence).map(([k, v]) => `${k}: ${str(v) ?? JSON.stringify(v)}`);
}

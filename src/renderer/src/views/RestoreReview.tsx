import { useEffect, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { DecisionChoice } from '../../../shared/contract';
import { openInGrid, WINDOW_REASON } from '../state/actions';
import { type Decision, openDecisionFor, useWindow } from '../state/store';
import {
  answerDecision,
  applyRestore,
  evidenceLines,
  planRig,
  proofOf,
  type SeatLine,
  seatLines,
  statusOf,
  useReview,
} from './restore-review-state';
import { RigPicker, useViewRig } from './RigPicker';

/**
 * The restore review: every seat of a rig with what restore will do (the engine's `restore --plan`,
 * the CLI's own call) or did (the run started here), what proves it, and the decisions only the
 * person may settle, answered in place.
 */
export function RestoreReview() {
  const rig = useViewRig();
  if (!rig)
    return (
      <section className="view-empty" aria-label="restore review">
        <p>No rig yet: nothing to restore.</p>
      </section>
    );
  return <RigReview key={rig} rig={rig} />;
}

/** Events after which the plan is read again: a decision, a restore, a launch or a stop changes it. */
const REPLAN = /^(decision\.|restore\.finished$|seat\.launch$|seat\.stop$|reconcile\.)/;

function useLivePlan(rig: string, running: boolean) {
  const tick = useWindow((s) => s.events.filter((e) => e.rig === rig && REPLAN.test(e.kind)).at(-1)?.seq ?? 0);
  // Planned again when a relevant event lands (tick).
  useEffect(() => {
    if (running) return;
    const t = setTimeout(() => void planRig(rig), tick ? 300 : 0);
    return () => clearTimeout(t);
  }, [rig, tick, running]);
}

function RigReview({ rig }: { rig: string }) {
  const plan = useReview((s) => s.plans[rig]);
  const run = useReview((s) => s.runs[rig]);
  const answers = useReview((s) => s.answers);
  const seats = useWindow(
    useShallow(
      (s) => s.topology.rigs.find((r) => r.name === rig)?.pods.flatMap((p) => p.seats.map((x) => x.seat)) ?? [],
    ),
  );
  const running = run?.running === true;
  useLivePlan(rig, running);
  const landed = useWindow(
    useShallow((s) =>
      running
        ? s.events.filter((e) => e.seq > (run?.afterSeq ?? 0) && e.kind === 'seat.launch').map((e) => e.seat)
        : [],
    ),
  );
  const lines = seatLines(seats, plan?.report, run, answers);
  const decided = useWindow(
    useShallow((s) => s.decisions.filter((d) => d.rig === rig && d.state === 'open').map((d) => d.seat)),
  );
  const counts = { resume: 0, fresh: 0, awaiting_decision: 0 };
  for (const p of plan?.report?.seats ?? [])
    if ((p.plan === 'resume' || p.plan === 'fresh' || p.plan === 'awaiting_decision') && !decided.includes(p.seat))
      counts[p.plan]++;
  // A seat whose decision is already open waits for its answer here, not for another run.
  const actionable = counts.resume + counts.fresh + counts.awaiting_decision;
  return (
    <section className="review-view" aria-label={`restore review of ${rig}`} data-review={rig}>
      <header className="view-head">
        <RigPicker rig={rig} />
        <span className="spacer" />
        <button type="button" onClick={() => void planRig(rig)} disabled={running || plan?.loading}>
          Plan again
        </button>
        <button
          type="button"
          className="primary"
          data-testid="apply-resumes"
          disabled={running || actionable === 0}
          onClick={() => void applyRestore(rig, seats)}
        >
          {running ? 'Restoring…' : 'Apply every proven resume'}
        </button>
      </header>
      <p className="review-what" data-testid="apply-what">
        {planSummary(counts, decided.length)}{' '}
        <span className="review-source muted">
          {plan?.report
            ? `Planned from ${plan.report.snapshotId === null ? 'the store as it is' : `snapshot ${plan.report.snapshotId}`}, as rigdesk restore ${rig} --plan.`
            : plan?.loading
              ? 'Planning…'
              : ''}
        </span>
      </p>
      {plan?.failure && (
        <p className="refusal" role="alert">
          {plan.failure.code}: {plan.failure.message}
        </p>
      )}
      {run?.failure && (
        <p className="refusal" role="alert">
          restore {rig}: {run.failure.code}: {run.failure.message}
        </p>
      )}
      {run?.report && !running && (
        <p className="review-outcome" data-testid="run-outcome">
          Restore {run.report.outcome.replace(/_/g, ' ')} (snapshot {run.report.snapshotId}).
        </p>
      )}
      <table className="review">
        <thead>
          <tr>
            <th scope="col">Seat</th>
            <th scope="col">What restore will do or did, what proves it, your choice</th>
          </tr>
        </thead>
        <tbody>
          {lines.map((l) => (
            <ReviewRow key={l.seat} line={l} running={running} landed={landed.includes(l.seat)} />
          ))}
        </tbody>
      </table>
    </section>
  );
}

const n = (k: number, one: string, many: string) => `${k} ${k === 1 ? one : many}`;

/** What "apply" would do now, in a sentence; and what waits for the person. */
function planSummary(c: { resume: number; fresh: number; awaiting_decision: number }, open: number): string {
  const parts = [
    c.resume ? `${n(c.resume, 'seat resumes', 'seats resume')} on the conversation its transcript proves` : '',
    c.fresh ? `${n(c.fresh, 'seat', 'seats')} with nothing to lose start${c.fresh === 1 ? 's' : ''} fresh` : '',
    c.awaiting_decision ? `${n(c.awaiting_decision, 'seat gets', 'seats get')} a decision here, never a guess` : '',
  ].filter(Boolean);
  const waits = open ? ` ${n(open, 'decision waits', 'decisions wait')} for your answer below.` : '';
  if (parts.length === 0) return `Nothing more to restore.${waits}`;
  const text = parts.join('; ');
  return `Apply: ${text}.${waits}`;
}

function ReviewRow({ line, running, landed }: { line: SeatLine; running: boolean; landed: boolean }) {
  const decision = useWindow((s) => openDecisionFor(s.decisions, line.seat));
  const runtime = useWindow((s) => s.seats[line.seat]?.runtime);
  const st = statusOf(line, running, landed);
  const waits = !!decision && !line.answer;
  return (
    <tr
      className={`review-row o-${st.key}${waits ? ' waits' : ''}`}
      data-review-seat={line.seat}
      data-outcome={waits ? 'awaiting_decision' : st.key}
      data-phase={st.phase}
    >
      <th scope="row">
        <button type="button" className="link" title="Open in the grid" onClick={() => openInGrid(line.seat)}>
          {line.seat}
        </button>
        {runtime && <div className="muted runtime">{runtime}</div>}
      </th>
      <td>
        <span className="status-word">{waits ? 'awaits your decision' : st.words}</span>
        <div className="proof" data-testid="proof">
          {waits && !line.result && !line.plan ? decision.reason.replace(/_/g, ' ') : proofOf(line)}
        </div>
        {decision && !line.answer && <Evidence d={decision} />}
        {decision && !line.answer && <Choices d={decision} />}
      </td>
    </tr>
  );
}

function Evidence({ d }: { d: Decision }) {
  // Its `why` is the row's proof line already.
  const { why: _why, ...rest } = d.evidence;
  const lines = evidenceLines(rest);
  return (
    <details className="evidence-lines" open>
      <summary>
        decision {d.id}: {d.reason.replace(/_/g, ' ')}
        {d.conversationId ? ` · conversation ${d.conversationId}` : ''}
      </summary>
      {lines.length > 0 && <pre className="evidence">{lines.join('\n')}</pre>}
    </details>
  );
}

function Choices({ d }: { d: Decision }) {
  const [reason, setReason] = useState(WINDOW_REASON);
  const [busy, setBusy] = useState(false);
  const answer = async (c: DecisionChoice) => {
    setBusy(true);
    if (!(await answerDecision(d, c, reason))) setBusy(false);
  };
  return (
    <div className="choices" data-decision={d.id}>
      <label className="field">
        <span>Reason (recorded)</span>
        <input aria-label={`reason for ${d.seat}`} value={reason} onChange={(e) => setReason(e.target.value)} />
      </label>
      <div className="buttons">
        {d.choices.map((c: DecisionChoice) => (
          <button
            key={c}
            type="button"
            data-choice={c}
            className={c === 'resume' ? 'primary' : undefined}
            disabled={busy || !reason.trim()}
            onClick={() => void answer(c)}
          >
            {c.replace(/_/g, ' ')}
          </button>
        ))}
      </div>
    </div>
  );
}

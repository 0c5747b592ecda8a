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
  // biome-ignore lint/correctness/useExhaustiveDependencies: planned again when a relevant event lands (tick)
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
  const counts = { resume: 0, fresh: 0, awaiting_decision: 0 };
  for (const p of plan?.report?.seats ?? []) if (p.plan in counts) counts[p.plan as keyof typeof counts]++;
  const actionable = counts.resume + counts.fresh + counts.awaiting_decision;
  return (
    <section className="review-view" aria-label={`restore review of ${rig}`} data-review={rig}>
      <header className="view-head">
        <RigPicker rig={rig} />
        <span className="review-source muted">
          {plan?.report
            ? `plan from ${plan.report.snapshotId === null ? 'the store as it is' : `snapshot ${plan.report.snapshotId}`} (as rigdesk restore ${rig} --plan)`
            : plan?.loading
              ? 'planning…'
              : ''}
        </span>
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
      <p className="review-what muted" data-testid="apply-what">
        {actionable === 0
          ? 'Nothing to restore: every seat is running, stopped on purpose, or never restored.'
          : `${counts.resume} seat${counts.resume === 1 ? '' : 's'} resume${counts.resume === 1 ? 's' : ''} on a conversation its transcript proves` +
            (counts.fresh ? `; ${counts.fresh} with nothing to lose start${counts.fresh === 1 ? 's' : ''} fresh` : '') +
            (counts.awaiting_decision
              ? `; ${counts.awaiting_decision} get${counts.awaiting_decision === 1 ? 's' : ''} a decision here, never a guess`
              : '') +
            '.'}
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
            <th scope="col">Restore</th>
            <th scope="col">What proves it</th>
            <th scope="col">Your choice</th>
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
        {runtime && <span className="muted runtime"> {runtime}</span>}
      </th>
      <td className="status">
        <span className="status-word">{waits ? 'awaits your decision' : st.words}</span>
      </td>
      <td className="proof" data-testid="proof">
        <span>{waits && !line.result && !line.plan ? decision.reason.replace(/_/g, ' ') : proofOf(line)}</span>
        {decision && !line.answer && <Evidence d={decision} />}
      </td>
      <td className="choice">{decision && !line.answer ? <Choices d={decision} /> : null}</td>
    </tr>
  );
}

function Evidence({ d }: { d: Decision }) {
  const lines = evidenceLines(d.evidence);
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
      <input aria-label={`reason for ${d.seat}`} value={reason} onChange={(e) => setReason(e.target.value)} />
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

import { useEffect, useState } from 'react';
import type { Failure } from '../../../shared/errors';
import { call, focusSeat, noteQueued } from '../state/actions';
import { noteDone, useWindow } from '../state/store';
import { ChangesView } from './changes/ChangesView';
import { DevicesDialog } from './Devices';
import { closeDialog, DialogFrame } from './DialogFrame';
import { NewRigDialog } from './NewRig';
import { Refusal } from './Notes';
import { UpDialog } from './UpSpec';

export function DialogHost() {
  const d = useWindow((s) => s.dialog);
  if (!d) return null;
  switch (d.kind) {
    case 'confirm':
      return <Confirm title={d.title} body={d.body} confirm={d.confirm} run={d.run} />;
    case 'fresh':
      return <FreshDialog seat={d.seat} />;
    case 'fork':
      return <ForkDialog seat={d.seat} />;
    case 'send':
      return <TextDialog seat={d.seat} mode="send" />;
    case 'queue':
      return <TextDialog seat={d.seat} mode="queue" />;
    case 'up':
      return <UpDialog initial={d.path} />;
    case 'newRig':
      return <NewRigDialog />;
    case 'changes':
      return <ChangesView seat={d.seat} />;
    case 'devices':
      return <DevicesDialog />;
  }
}

function Confirm(p: { title: string; body: string; confirm: string; run: () => Promise<unknown> }) {
  const [busy, setBusy] = useState(false);
  return (
    <DialogFrame title={p.title}>
      <p>{p.body}</p>
      <div className="buttons">
        <button
          type="button"
          className="danger"
          disabled={busy}
          onClick={async () => {
            setBusy(true);
            closeDialog();
            await p.run();
          }}
        >
          {p.confirm}
        </button>
        <button type="button" autoFocus onClick={closeDialog}>
          Cancel
        </button>
      </div>
    </DialogFrame>
  );
}

/** `fresh` shows its plan first (what is kept, what is lost); nothing happens until it is confirmed. */
function FreshDialog({ seat }: { seat: string }) {
  const [plan, setPlan] = useState<Awaited<ReturnType<typeof freshPlan>>>();
  const [reason, setReason] = useState('');
  const [failure, setFailure] = useState<Failure>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    void freshPlan(seat).then(setPlan);
  }, [seat]);
  const go = async () => {
    setBusy(true);
    const r = await call('fresh', { seat, reason }, `fresh ${seat}`, { quiet: true });
    setBusy(false);
    if (!r) return;
    if (!r.ok) return setFailure(r);
    noteDone(`${seat}: started fresh`);
    closeDialog();
  };
  return (
    <DialogFrame title={`Start ${seat} fresh?`}>
      {!plan && <p className="muted">Reading the plan…</p>}
      {plan && !plan.ok && <Refusal what={`fresh ${seat}`} failure={plan} />}
      {plan?.ok && (
        <ul className="plan" data-testid="fresh-plan">
          {plan.lines.map((l) => (
            <li key={l}>{l}</li>
          ))}
        </ul>
      )}
      <label className="field">
        <span>Why (recorded with the change)</span>
        <input aria-label="reason" value={reason} autoFocus onChange={(e) => setReason(e.target.value)} />
      </label>
      {failure && <Refusal what={`fresh ${seat}`} failure={failure} />}
      <div className="buttons">
        <button
          type="button"
          className="danger"
          disabled={busy || !plan?.ok || !reason.trim()}
          onClick={() => void go()}
        >
          Start fresh
        </button>
        <button type="button" onClick={closeDialog}>
          Cancel
        </button>
      </div>
    </DialogFrame>
  );
}

async function freshPlan(seat: string): Promise<Failure | { ok: true; lines: string[] }> {
  const r = await call('fresh', { seat, reason: 'plan only', plan: true }, `fresh ${seat}`, { quiet: true });
  if (!r) return { ok: false, code: 'ENGINE_UNREACHABLE', message: 'not connected' };
  if (!r.ok) return r;
  const p = r.plan;
  const lines = [
    p.stop
      ? `Stops its session ${p.stop.sessionId} (pane ${p.stop.paneId}, pid ${p.stop.pid}).`
      : 'Nothing runs now; nothing is stopped.',
    'Starts the agent on a new, empty conversation.',
    p.previousConversationId
      ? `Kept: conversation ${p.previousConversationId} stays on disk (fork or resume it by hand); this seat no longer resumes it.`
      : 'Kept: the seat, its folder, its settings and its queue.',
    'Lost: what the agent holds in mind from its current conversation.',
  ];
  return { ok: true, lines };
}

function ForkDialog({ seat }: { seat: string }) {
  const [as, setAs] = useState('');
  const [failure, setFailure] = useState<Failure>();
  const [busy, setBusy] = useState(false);
  const go = async () => {
    setBusy(true);
    const r = await call('fork', { seat, as }, `fork ${seat}`, { quiet: true });
    setBusy(false);
    if (!r) return;
    if (!r.ok) return setFailure(r);
    const rig = seat.slice(seat.lastIndexOf('@') + 1);
    noteDone(`${seat}: forked into ${as}@${rig}`);
    closeDialog();
    focusSeat(`${as}@${rig}`, { fill: true });
  };
  return (
    <DialogFrame title={`Fork ${seat}`}>
      <p>A new seat in the same pod starts on a copy of this seat's conversation; this seat goes on with its own.</p>
      <form onSubmit={(e) => (e.preventDefault(), void go())}>
        <label className="field">
          <span>New member name</span>
          <input aria-label="new member" value={as} autoFocus onChange={(e) => setAs(e.target.value)} />
        </label>
        {failure && <Refusal what={`fork ${seat}`} failure={failure} />}
        <div className="buttons">
          <button type="submit" className="primary" disabled={busy || !as.trim()}>
            Fork
          </button>
          <button type="button" onClick={closeDialog}>
            Cancel
          </button>
        </div>
      </form>
    </DialogFrame>
  );
}

/** Send (safe delivery: held at a prompt, over a draft or while busy) or queue work, with the same box. */
function TextDialog({ seat, mode }: { seat: string; mode: 'send' | 'queue' }) {
  const [text, setText] = useState('');
  const [failure, setFailure] = useState<Failure>();
  const [busy, setBusy] = useState(false);
  const go = async () => {
    setBusy(true);
    if (mode === 'queue') {
      const ok = await noteQueued(seat, text);
      setBusy(false);
      if (ok) closeDialog();
      return;
    }
    const r = await call('send', { seat, text }, `send to ${seat}`, { quiet: true });
    setBusy(false);
    if (!r) return;
    if (!r.ok) return setFailure(r);
    noteDone(`${seat}: sent`);
    closeDialog();
  };
  return (
    <DialogFrame title={mode === 'send' ? `Send to ${seat}` : `Queue work for ${seat}`}>
      <p className="muted">
        {mode === 'send'
          ? 'Typed as a paste and submitted; held (never typed over) when the seat shows a prompt, a draft or is busy.'
          : 'Delivered when the seat can take it (idle, or its usage limit over); a stopped seat gets it on its next run.'}
      </p>
      <textarea
        aria-label={mode === 'send' ? 'text to send' : 'work to queue'}
        value={text}
        autoFocus
        rows={5}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey) {
            e.preventDefault();
            if (text.trim()) void go();
          }
        }}
      />
      {failure && <Refusal what={`send to ${seat}`} failure={failure} />}
      <div className="buttons">
        <button type="button" className="primary" disabled={busy || !text.trim()} onClick={() => void go()}>
          {mode === 'send' ? 'Send' : 'Queue'}
        </button>
        <button type="button" onClick={closeDialog}>
          Cancel
        </button>
      </div>
    </DialogFrame>
  );
}

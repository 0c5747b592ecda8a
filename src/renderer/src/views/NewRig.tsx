import { useState } from 'react';
import type { Failure } from '../../../shared/errors';
import { call } from '../state/actions';
import { useWindow } from '../state/store';
import { closeDialog, DialogFrame } from './DialogFrame';
import { Refusal } from './Notes';
import { upSpec } from './UpSpec';

/**
 * First run: the agent CLIs this machine has (as `doctor` finds them), a folder and a member
 * count. The spec is shown before it is written; writing it brings the rig up.
 */
export function NewRigDialog() {
  const runtimes = useWindow((s) => s.runtimes);
  const found = runtimes.filter((r) => r.path);
  const [runtime, setRuntime] = useState(found.find((r) => r.conversations)?.runtime ?? found[0]?.runtime ?? 'shell');
  const [name, setName] = useState('my-rig');
  const [folder, setFolder] = useState('');
  const [members, setMembers] = useState(3);
  const [spec, setSpec] = useState<{ path: string; yaml: string }>();
  const [failure, setFailure] = useState<Failure>();
  const [busy, setBusy] = useState(false);
  const params = { name, folder, runtime, members };
  const show = async () => {
    setBusy(true);
    setFailure(undefined);
    const r = await call('workspace.newRig', { ...params, write: false }, 'new rig', { quiet: true });
    setBusy(false);
    if (!r) return;
    if (r.ok) setSpec({ path: r.path, yaml: r.yaml });
    else {
      setSpec(undefined);
      setFailure(r);
    }
  };
  const write = async () => {
    setBusy(true);
    const r = await call('workspace.newRig', { ...params, write: true }, 'new rig', { quiet: true });
    if (r && !r.ok) {
      setBusy(false);
      return setFailure(r);
    }
    if (!r) return setBusy(false);
    const up = await upSpec(r.path);
    setBusy(false);
    if (up && !up.ok) return setFailure(up);
    closeDialog();
  };
  return (
    <DialogFrame title="New rig" wide>
      {!spec ? (
        <NewRigForm
          form={{ runtime, name, folder, members }}
          set={{ setRuntime, setName, setFolder, setMembers }}
          busy={busy}
          failure={failure}
          onShow={() => void show()}
        />
      ) : (
        <div>
          <p>
            This spec will be written to <code>{spec.path}</code>, then brought up:
          </p>
          <pre className="spec" data-testid="new-rig-spec">
            {spec.yaml}
          </pre>
          {failure && <Refusal what="new rig" failure={failure} />}
          <div className="buttons">
            <button type="button" className="primary" disabled={busy} onClick={() => void write()}>
              {busy ? 'Bringing up…' : 'Write it and bring it up'}
            </button>
            <button type="button" onClick={() => setSpec(undefined)}>
              Back
            </button>
            <button type="button" onClick={closeDialog}>
              Cancel
            </button>
          </div>
        </div>
      )}
    </DialogFrame>
  );
}

interface FormProps {
  form: { runtime: string; name: string; folder: string; members: number };
  set: {
    setRuntime: (v: string) => void;
    setName: (v: string) => void;
    setFolder: (v: string) => void;
    setMembers: (v: number) => void;
  };
  busy: boolean;
  failure?: Failure;
  onShow: () => void;
}

/** The agent (those not on this machine are shown, with how to install them), the folder, the count, the name. */
function NewRigForm({ form, set, busy, failure, onShow }: FormProps) {
  const runtimes = useWindow((s) => s.runtimes);
  return (
    <form onSubmit={(e) => (e.preventDefault(), onShow())}>
      <fieldset className="runtimes">
        <legend>Agent</legend>
        {runtimes.map((r) => (
          <label key={r.runtime} className={r.path ? '' : 'missing'}>
            <input
              type="radio"
              name="runtime"
              value={r.runtime}
              checked={form.runtime === r.runtime}
              disabled={!r.path}
              onChange={() => set.setRuntime(r.runtime)}
            />
            <span className="name">{r.runtime}</span>
            <span className="muted">{r.path ?? (r.hint ? `not installed: ${r.hint}` : 'not installed')}</span>
          </label>
        ))}
      </fieldset>
      <label className="field">
        <span>Folder the agents work in</span>
        <input
          aria-label="folder"
          placeholder="/home/you/project"
          value={form.folder}
          onChange={(e) => set.setFolder(e.target.value)}
        />
      </label>
      <div className="row">
        <label className="field">
          <span>Seats</span>
          <input
            aria-label="members"
            type="number"
            min={1}
            max={20}
            value={form.members}
            onChange={(e) => set.setMembers(Math.max(1, Math.min(20, Number(e.target.value) || 1)))}
          />
        </label>
        <label className="field grow">
          <span>Rig name</span>
          <input aria-label="rig name" value={form.name} onChange={(e) => set.setName(e.target.value)} />
        </label>
      </div>
      {failure && <Refusal what="new rig" failure={failure} />}
      <div className="buttons">
        <button type="submit" className="primary" disabled={busy || !form.folder.trim() || !form.name.trim()}>
          Show the spec
        </button>
        <button type="button" onClick={closeDialog}>
          Cancel
        </button>
      </div>
    </form>
  );
}

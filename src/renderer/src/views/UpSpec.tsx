import { useEffect, useState } from 'react';
import { z } from 'zod';
import type { ClientAnswer } from '../../../shared/contract';
import type { Failure } from '../../../shared/errors';
import { call } from '../state/actions';
import { noteDone } from '../state/store';
import { closeDialog, DialogFrame } from './DialogFrame';
import { Refusal } from './Notes';

/** A spec's problems as `up` lists them in its failure's evidence: one per line and field. */
const problemList = z.array(
  z.looseObject({
    message: z.string(),
    line: z.number().nullable().optional(),
    field: z.string().nullable().optional(),
    code: z.string().optional(),
  }),
);

export function specProblems(f: Failure): z.output<typeof problemList> {
  const parsed = problemList.safeParse(f.evidence?.problems);
  return parsed.success ? parsed.data : [];
}

/** Bring up a rig from a spec: a path typed or picked; every validation problem listed with its line and field. */
export function UpDialog({ initial }: { initial?: string }) {
  const [path, setPath] = useState(initial ?? '');
  const [failure, setFailure] = useState<Failure>();
  const [busy, setBusy] = useState(false);
  const [picking, setPicking] = useState(false);
  const go = async () => {
    setBusy(true);
    setFailure(undefined);
    const r = await upSpec(path);
    setBusy(false);
    if (r && !r.ok) setFailure(r);
    else if (r?.ok) closeDialog();
  };
  const problems = failure ? specProblems(failure) : [];
  return (
    <DialogFrame title="Bring up a rig" wide>
      <form onSubmit={(e) => (e.preventDefault(), void go())}>
        <label className="field">
          <span>Rig spec (YAML)</span>
          <div className="row">
            <input
              aria-label="rig spec path"
              placeholder="/path/to/rig.yaml"
              value={path}
              autoFocus
              onChange={(e) => setPath(e.target.value)}
            />
            <button type="button" onClick={() => setPicking(!picking)} aria-expanded={picking}>
              Choose…
            </button>
          </div>
        </label>
        {picking && (
          <SpecPicker
            start={path}
            onPick={(p) => {
              setPath(p);
              setPicking(false);
            }}
          />
        )}
        {failure && <Refusal what="up" failure={failure} />}
        {problems.length > 0 && (
          <ol className="problems" aria-label="problems in the spec">
            {problems.map((p, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: the list is replaced whole on each check; two problems may read alike
              <li key={`${i} ${p.message}`} data-problem-line={p.line ?? ''} data-problem-field={p.field ?? ''}>
                {p.line !== null && p.line !== undefined && <span className="line">line {p.line}</span>}
                {p.field && <code className="field-name">{p.field}</code>}
                <span className="message">{p.message}</span>
              </li>
            ))}
          </ol>
        )}
        <div className="buttons">
          <button type="submit" className="primary" disabled={busy || !path.trim()}>
            {busy ? 'Bringing up…' : 'Bring up'}
          </button>
          <button type="button" onClick={closeDialog}>
            Cancel
          </button>
        </div>
      </form>
    </DialogFrame>
  );
}

/** `up` a spec; the window's note says how many seats started. */
export async function upSpec(spec: string) {
  const r = await call('up', { spec }, `up ${spec}`, { quiet: true });
  if (r?.ok) noteDone(`${r.rig}: up, ${r.seats.length} seat(s)`);
  return r;
}

type Listing = ClientAnswer<'workspace.files'>;

/** A folder at a time, through the engine (the same paths `up` reads), for both window kinds. */
function SpecPicker({ start, onPick }: { start: string; onPick: (path: string) => void }) {
  const [at, setAt] = useState<Listing>();
  const [failure, setFailure] = useState<Failure>();
  const open = async (dir?: string) => {
    const r = await call('workspace.files', dir ? { dir } : {}, 'list folder', { quiet: true });
    if (!r) return;
    if (r.ok) {
      setAt(r);
      setFailure(undefined);
    } else setFailure(r);
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: list the start folder once per start, not per render of open
  useEffect(() => {
    const dir = start.includes('/') ? start.slice(0, start.lastIndexOf('/')) || '/' : undefined;
    void open(dir);
  }, [start]);
  return (
    <section className="picker" aria-label="spec files">
      {failure && <Refusal what="list folder" failure={failure} />}
      {at && (
        <>
          <div className="picker-head">
            <code>{at.dir}</code>
          </div>
          <ul>
            {at.parent && (
              <li>
                <button type="button" className="link" onClick={() => void open(at.parent)}>
                  ↑ ..
                </button>
              </li>
            )}
            {at.entries.map((e) => (
              <li key={e.name}>
                <button
                  type="button"
                  className={`link ${e.kind}`}
                  onClick={() => (e.kind === 'dir' ? void open(`${at.dir}/${e.name}`) : onPick(`${at.dir}/${e.name}`))}
                >
                  {e.kind === 'dir' ? `▸ ${e.name}/` : e.name}
                </button>
              </li>
            ))}
            {at.entries.length === 0 && <li className="muted">No folders or .yaml files here.</li>}
          </ul>
        </>
      )}
    </section>
  );
}

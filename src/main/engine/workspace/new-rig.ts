import { isAbsolute, join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { fail, type Result } from '../../../shared/errors';
import type { Fs } from '../deps';
import type { Ports } from '../ports';
import { RUNTIME_IDS, runtimeById } from '../runtimes';
import { liveSpecDeps, NAME_RE, parseRigSpec } from '../spec';
import { runtimesFound } from './runtimes';

export interface NewRigInput {
  name: string;
  folder: string;
  runtime: string;
  members: number;
  write: boolean;
}

/** The spec is written beside the work, named for the rig, so a person finds it where the agents work. */
export function specPathFor(folder: string, name: string): string {
  return join(folder, `${name}.rig.yaml`);
}

/** `lead`, then `worker1`...: the lead delegates to each worker. */
export function newRigYaml(name: string, folder: string, runtime: string, members: number): string {
  const ids = Array.from({ length: members }, (_, i) => (i === 0 ? 'lead' : `worker${i}`));
  // A runtime with no program of its own (shell) runs the command it offers for a new rig.
  const command = runtimeById(runtime)?.defaultCommand;
  const member = (id: string) => (command ? { id, runtime, cwd: folder, command } : { id, runtime, cwd: folder });
  const doc = {
    name,
    pods: [{ id: 'team', members: ids.map(member) }],
    ...(ids.length > 1 ? { edges: ids.slice(1).map((to) => ({ from: 'lead', to, kind: 'delegates_to' })) } : {}),
  };
  // The folder is quoted in the comments: a newline in its name must not start a line of YAML.
  const at = JSON.stringify(folder);
  const spec = JSON.stringify(specPathFor(folder, name));
  return `# Written by the Rigdesk window: ${members} ${runtime} seat(s) working in ${at}.\n# Bring it up again with: rigdesk up ${spec}\n${stringify(doc)}`;
}

/**
 * A first rig from the window: the spec is built, checked by the same parser `up` uses (so what
 * is shown is a spec `up` accepts), and only with `write` written, never over an existing file.
 */
export function newRig(
  ports: Pick<Ports, 'env' | 'fs' | 'store' | 'userHome'>,
  p: NewRigInput,
): Result<{ path: string; yaml: string; written: boolean }> {
  if (!NAME_RE.test(p.name))
    return fail('SEAT_NAME_INVALID', `rig name ${JSON.stringify(p.name.slice(0, 60))} is not a plain name`, {
      hint: 'Use 1-48 letters, digits, "_" or "-", starting with a letter or digit.',
    });
  if (ports.store.rigs.exists(p.name))
    return fail('BAD_USAGE', `a rig named ${p.name} is already recorded`, { hint: 'Choose another name.' });
  const folder = isAbsolute(p.folder) ? resolve(p.folder) : resolve(ports.userHome, p.folder);
  if (!isFolder(ports.fs, folder))
    return fail('CWD_MISSING', `${folder} is not a folder`, { hint: 'Create the folder or choose another one.' });
  const found = runtimesFound(ports).find((r) => r.runtime === p.runtime);
  if (!found || !RUNTIME_IDS.includes(p.runtime))
    return fail('RUNTIME_UNKNOWN', `no runtime ${JSON.stringify(p.runtime.slice(0, 40))}`);
  if (!found.path)
    return fail('RUNTIME_NOT_INSTALLED', `${found.binary} is not on PATH`, found.hint ? { hint: found.hint } : {});
  const path = specPathFor(folder, p.name);
  const yaml = newRigYaml(p.name, folder, p.runtime, p.members);
  const checked = parseRigSpec(yaml, path, { knownRuntimes: RUNTIME_IDS, deps: liveSpecDeps() });
  if (!checked.ok) return checked;
  if (ports.fs.existsSync(path))
    return fail('BAD_USAGE', `${path} already exists; nothing was written`, {
      hint: 'Bring that spec up instead, or choose another rig name.',
    });
  if (!p.write) return { ok: true, path, yaml, written: false };
  try {
    // wx: created here or not at all, so a file that appeared meanwhile is never overwritten.
    ports.fs.writeFileSync(path, yaml, { flag: 'wx', mode: 0o644 });
  } catch (e) {
    return fail('BAD_USAGE', `${path} could not be written: ${(e as Error).message}`);
  }
  return { ok: true, path, yaml, written: true };
}

function isFolder(fs: Pick<Fs, 'statSync'>, p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

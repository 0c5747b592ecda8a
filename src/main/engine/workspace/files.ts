import { dirname, isAbsolute, resolve } from 'node:path';
import { fail, type Result } from '../../../shared/errors';
import type { Ports } from '../ports';

const SPEC = /\.ya?ml$/i;
/** A listing stops here: a picker needs a screenful, not a folder of a million files. */
const MAX_ENTRIES = 500;

/**
 * One folder for the window's spec picker: its sub-folders and its YAML files, hidden ones left
 * out, folders first. Reading a folder is all it does; the chosen path goes to `up`, which checks it.
 */
export function listSpecFiles(
  ports: Pick<Ports, 'fs' | 'userHome'>,
  dir: string | undefined,
): Result<{ dir: string; parent?: string; entries: { name: string; kind: 'dir' | 'spec' }[] }> {
  const at = dir === undefined ? ports.userHome : isAbsolute(dir) ? resolve(dir) : resolve(ports.userHome, dir);
  let names: { name: string; dir: boolean; file: boolean }[];
  try {
    names = ports.fs.readdirSync(at, { withFileTypes: true }).map((d) => ({
      name: d.name,
      dir: d.isDirectory(),
      file: d.isFile() || d.isSymbolicLink(),
    }));
  } catch (e) {
    return fail('SPEC_NOT_FOUND', `cannot list ${at}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, {
      hint: 'Choose a folder you can read.',
    });
  }
  const shown = names.filter((n) => !n.name.startsWith('.'));
  const entries = [
    ...shown.filter((n) => n.dir).map((n) => ({ name: n.name, kind: 'dir' as const })),
    ...shown.filter((n) => n.file && SPEC.test(n.name)).map((n) => ({ name: n.name, kind: 'spec' as const })),
  ]
    .sort((a, b) => (a.kind === b.kind ? a.name.localeCompare(b.name) : a.kind === 'dir' ? -1 : 1))
    .slice(0, MAX_ENTRIES);
  const parent = dirname(at);
  return { ok: true, dir: at, ...(parent !== at ? { parent } : {}), entries };
}

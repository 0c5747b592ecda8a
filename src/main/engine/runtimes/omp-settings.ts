import { join } from 'node:path';
import { isMap, parseDocument } from 'yaml';
import { fail, type Result } from '../../../shared/errors';
import { localSettingsIO, type SettingsIO } from './json-settings';

/**
 * omp's first-run setup, settled in the seat's own agent dir. An interactive `omp` whose
 * `config.yml` says `setupVersion` below 2 opens a five-step setup wizard (providers, theme, …)
 * instead of its editor, which would hold the seat at a screen nobody asked for. (`omp --resume`,
 * how Rigdesk starts every seat it can name, skips the wizard anyway; a seat started plain would not.)
 *
 * Rigdesk writes `setupVersion: 2` into `$PI_CODING_AGENT_DIR/config.yml`, merged into what is
 * there with its comments kept, and only where the seat's own env sets PI_CODING_AGENT_DIR: the
 * person's own `~/.omp/agent` is never written. A config.yml that is not a YAML map is a reason
 * (RUNTIME_CONFIG_UNSAFE), never a guess. The file is read and written through `io`: this machine's,
 * or the seat's host's.
 */
export const OMP_SETUP_VERSION = 2;

export interface OmpSetupPlan {
  /** The file written, when Rigdesk wrote one. */
  wrote?: string;
  detail: string;
}

export function ompConfigPath(agentDir: string): string {
  return join(agentDir, 'config.yml');
}

export function prepareOmpSetup(input: {
  /** The seat's own env from the rig spec. */
  seatEnv: Readonly<Record<string, string>>;
  dryRun: boolean;
  io?: SettingsIO;
}): Result<OmpSetupPlan> {
  const io = input.io ?? localSettingsIO;
  const agentDir = input.seatEnv.PI_CODING_AGENT_DIR?.trim();
  if (!agentDir)
    return {
      ok: true,
      detail:
        "the seat shares the person's own omp agent dir (no PI_CODING_AGENT_DIR in its env): its setup is left as it is",
    };
  const path = ompConfigPath(agentDir);
  let text = '';
  try {
    text = io.readText(path) ?? '';
  } catch (e) {
    return fail('RUNTIME_CONFIG_UNSAFE', `cannot read omp's config ${path}: ${(e as Error).message}`, {
      evidence: { path },
    });
  }
  const doc = parseDocument(text);
  if (doc.errors.length > 0 || (doc.contents !== null && !isMap(doc.contents)))
    return fail('RUNTIME_CONFIG_UNSAFE', `omp's config ${path} is not a YAML map; Rigdesk will not rewrite it`, {
      hint: "Fix or remove that file (it is the seat's own, under its PI_CODING_AGENT_DIR), then launch again.",
      evidence: { path, errors: doc.errors.map((e) => e.message) },
    });
  const have = doc.get('setupVersion');
  if (typeof have === 'number' && have >= OMP_SETUP_VERSION)
    return { ok: true, detail: `setup settled in ${path} (setupVersion ${have})` };
  if (input.dryRun) return { ok: true, detail: `launch writes setupVersion ${OMP_SETUP_VERSION} into ${path}` };
  doc.set('setupVersion', OMP_SETUP_VERSION);
  try {
    io.writeText(path, String(doc), 0o600);
  } catch (e) {
    return fail('RUNTIME_CONFIG_UNSAFE', `cannot write omp's setupVersion into ${path}: ${(e as Error).message}`, {
      evidence: { path },
    });
  }
  return { ok: true, wrote: path, detail: `setup settled in ${path} (setupVersion ${OMP_SETUP_VERSION})` };
}

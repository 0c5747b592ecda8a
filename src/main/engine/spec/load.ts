import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fail, type Result } from '../../../shared/errors';
import { readRegularText, refusedFile } from '../read-file';
import { parseRigSpec } from './parse';
import { MAX_SPEC_BYTES, type RigSpec, type SpecDeps } from './types';

/** The live system: process.env, the real home folder, the real filesystem. */
export function liveSpecDeps(): SpecDeps {
  return {
    env: process.env,
    homeDir: os.homedir(),
    exists: (p) => fs.existsSync(p),
    isDirectory: (p) => {
      try {
        return fs.statSync(p).isDirectory();
      } catch {
        return false;
      }
    },
    // Never blocks (a FIFO), never reads past the limit (a device, a huge file): read-file.ts.
    readFile: (p) => readRegularText(p, MAX_SPEC_BYTES),
  };
}

/** Reads a spec file and parses it (cwds are checked against `deps`, the live fs by default). */
export function loadRigSpec(
  specPath: string,
  opts: { knownRuntimes: readonly string[]; knownHosts?: readonly string[]; deps?: SpecDeps },
): Result<{ spec: RigSpec }> {
  if (typeof specPath !== 'string' || specPath === '' || specPath.includes('\0')) {
    return fail('SPEC_NOT_FOUND', `invalid spec path ${JSON.stringify(String(specPath).slice(0, 80))}`, {
      hint: 'Pass the path of a rig spec YAML file.',
    });
  }
  const deps = opts.deps ?? liveSpecDeps();
  const absolute = path.resolve(specPath);
  let text: string;
  try {
    text = deps.readFile(absolute);
  } catch (e) {
    const refused = refusedFile(e, 'the spec');
    if (refused) return refused;
    const code = (e as { code?: unknown } | null)?.code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'is a folder, not a spec file'
          : code === 'EACCES' || code === 'EPERM'
            ? 'permission denied'
            : `cannot read the spec (${typeof code === 'string' ? code : e instanceof Error ? e.message : String(e)})`;
    return fail('SPEC_NOT_FOUND', `${specPath}: ${why}`, {
      hint: 'Check the path of the rig spec file.',
      evidence: { file: absolute, errno: typeof code === 'string' ? code : null },
    });
  }
  return parseRigSpec(text, specPath, {
    knownRuntimes: opts.knownRuntimes,
    deps,
    ...(opts.knownHosts ? { knownHosts: opts.knownHosts } : {}),
  });
}

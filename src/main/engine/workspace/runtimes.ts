import { dirname, join } from 'node:path';
import type { RuntimeFound } from '../../../shared/contract/workspace';
import type { Fs } from '../deps';
import type { Ports } from '../ports';
import { RUNTIMES } from '../runtimes';
import { scrubIdentity } from '../runtimes/env';
import { runtimeOnPath, whichOnPath } from '../runtimes/install';

/**
 * The agent CLIs on this machine, found the way `doctor` finds them (each adapter's binary on the
 * PATH seats start with), and a plain shell, which every machine has: the "New rig" form offers
 * the ones that are there and says how to install the others. Each says whether it keeps
 * conversations (an agent) or is a plain program.
 */
export function runtimesFound(ports: Pick<Ports, 'env' | 'fs'>): RuntimeFound[] {
  const path = scrubIdentity(ports.env).PATH;
  return RUNTIMES.flatMap((r): RuntimeFound[] => {
    const base = { runtime: r.id, conversations: r.conversations };
    if (r.binary) {
      const on = runtimeOnPath(r, path, ports.fs);
      const found = on.missing.length === 0 ? on.path : undefined;
      const hint = r.installHint;
      return [{ ...base, binary: r.binary, ...(found ? { path: found } : hint ? { hint } : {}) }];
    }
    // A runtime whose program is the spec's command offers the one a new rig's seat would run.
    if (!r.defaultCommand) return [];
    const found = whichOnPath(r.defaultCommand, path, ports.fs);
    return [{ ...base, binary: r.defaultCommand, ...(found ? { path: found } : {}) }];
  });
}

/**
 * The bundled example rig (examples/demo-rig.yaml), looked for above this module: a checkout and
 * a build have it at the repository's root, a packaged app may not, and then the window offers the
 * "New rig" form and a spec of the person's own instead.
 */
export function exampleSpec(fs: Pick<Fs, 'existsSync'>, from = __dirname): string | undefined {
  let dir = from;
  for (let i = 0; i < 8; i++) {
    const p = join(dir, 'examples', 'demo-rig.yaml');
    if (fs.existsSync(p)) return p;
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return undefined;
}

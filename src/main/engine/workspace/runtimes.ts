import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { RuntimeFound } from '../../../shared/contract/workspace';
import type { Engine } from '../engine';
import { AGENT_RUNTIMES } from '../runtimes';
import { scrubIdentity } from '../runtimes/env';
import { INSTALL_HINTS, runtimeOnPath, whichOnPath } from '../runtimes/install';

/**
 * The agent CLIs on this machine, found the way `doctor` finds them (each adapter's binary on the
 * PATH seats start with), and a plain shell, which every machine has: the "New rig" form offers
 * the ones that are there and says how to install the others.
 */
export function runtimesFound(engine: Engine): RuntimeFound[] {
  const path = scrubIdentity(engine.deps.env).PATH;
  const agents = AGENT_RUNTIMES.flatMap((r): RuntimeFound[] => {
    if (!r.binary) return [];
    const on = runtimeOnPath(r, path);
    const found = on.missing.length === 0 ? on.path : undefined;
    const hint = INSTALL_HINTS[r.id];
    return [{ runtime: r.id, binary: r.binary, ...(found ? { path: found } : hint ? { hint } : {}) }];
  });
  const bash = whichOnPath('bash', path);
  return [...agents, { runtime: 'shell', binary: 'bash', ...(bash ? { path: bash } : {}) }];
}

/**
 * The bundled example rig (examples/demo-rig.yaml), looked for above this module: a checkout and
 * a build have it at the repository's root, a packaged app may not, and then the window offers the
 * "New rig" form and a spec of the person's own instead.
 */
export function exampleSpec(from = __dirname): string | undefined {
  let dir = from;
  for (let i = 0; i < 8; i++) {
    const p = join(dir, 'examples', 'demo-rig.yaml');
    if (existsSync(p)) return p;
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return undefined;
}

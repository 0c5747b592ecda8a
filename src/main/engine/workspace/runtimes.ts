import type { RuntimeFound } from '../../../shared/contract/workspace';
import type { Engine } from '../engine';
import { AGENT_RUNTIMES } from '../runtimes';
import { scrubIdentity } from '../runtimes/env';
import { INSTALL_HINTS, whichOnPath } from '../services/resolve';

/**
 * The agent CLIs on this machine, found the way `doctor` finds them (each adapter's binary on the
 * PATH seats start with), and a plain shell, which every machine has: the "New rig" form offers
 * the ones that are there and says how to install the others.
 */
export function runtimesFound(engine: Engine): RuntimeFound[] {
  const path = scrubIdentity(engine.deps.env).PATH;
  const agents = AGENT_RUNTIMES.flatMap((r): RuntimeFound[] => {
    if (!r.binary) return [];
    const found = whichOnPath(r.binary, path);
    const hint = INSTALL_HINTS[r.id];
    return [{ runtime: r.id, binary: r.binary, ...(found ? { path: found } : hint ? { hint } : {}) }];
  });
  const bash = whichOnPath('bash', path);
  return [...agents, { runtime: 'shell', binary: 'bash', ...(bash ? { path: bash } : {}) }];
}

import type { FreshLookPorts } from '../activity/observe';
import type { Ports } from '../ports';
import type { LaunchPorts } from '../seats/ports';

/** What proving a resumed or forked conversation reads: fresh looks at the pane (its screen, its processes). */
export type VerifyPorts = FreshLookPorts;

/** What restore, fork, restart and fresh take: a launch, its proof, and a say before a pane is respawned. */
export type RestorePorts = LaunchPorts & VerifyPorts & Pick<Ports, 'beforeRespawn'>;

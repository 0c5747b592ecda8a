import { controlPathFor } from '../../src/main/engine/hosts/ssh';
import type { PsRow } from '../../src/shared/contract';
import type { HostAgents } from './remote-agents';
import type { RigWorld } from './rig';
import { closeMaster, type TestSshd } from './sshd';
import { waitFor } from './tmux';

/** Every seat's ps row, read through the CLI as a person would. */
export async function psRows(w: RigWorld): Promise<PsRow[]> {
  const ps = await w.cli(['ps', '--json']);
  if (!ps.json?.seats) throw new Error(`rigdesk ps failed: ${ps.stdout}${ps.stderr}`);
  return ps.json.seats as PsRow[];
}

/**
 * The host's tmux server killed, as a reboot ends it, and the seats' agents (all, or `seats`) gone
 * before anything looks: an agent still exiting after its terminal hung up still owns its
 * conversation (seen under load: Claude, OpenCode), and restore rightly refuses it then.
 */
export async function killHostTmux(w: RigWorld, sshd: TestSshd, seats?: readonly string[]): Promise<void> {
  const rows = (await psRows(w)).filter((r) => !seats || seats.includes(r.seat));
  const pids = rows.flatMap((r) => (r.pid ? [r.pid] : []));
  sshd.asRemote(['tmux', '-L', sshd.tmuxSocket, 'kill-server']);
  await waitFor(() => pids.every((p) => !sshd.existsHost(`/proc/${p}/cmdline`)), {
    timeoutMs: 30_000,
    what: `the host's agents (${pids.join(', ')}) gone with its tmux server`,
  });
}

/** Polls ps until every one of `seats` matches `want`; the screens on the host say why when it does not. */
export async function seenOnHost(
  w: RigWorld,
  agents: HostAgents,
  seats: string[],
  want: (r: PsRow) => boolean,
  what: string,
  timeoutMs: number,
): Promise<PsRow[]> {
  let last: PsRow[] = [];
  try {
    return await waitFor(
      async () => {
        last = (await psRows(w)).filter((r) => seats.includes(r.seat));
        return last.length === seats.length && last.every(want) ? last : undefined;
      },
      { timeoutMs, intervalMs: 250, what },
    );
  } catch (e) {
    throw new Error(
      `${(e as Error).message}; last: ${JSON.stringify(last)}${seats.map((s) => `\n--- ${s}:\n${agents.screen(s)}`).join('')}`,
    );
  }
}

/**
 * Ends a host journey: the ssh master to host `box`, the world, the agents and sshd; then, when the
 * agents ran, checks that every model call the host made came through the reverse forward.
 */
export async function endHostJourney(
  j: { w?: RigWorld; agents?: HostAgents; sshd?: TestSshd },
  agentsRan: boolean,
): Promise<void> {
  if (j.w) closeMaster(controlPathFor(j.w.home, 'box'));
  await j.w?.shutdown();
  await j.agents?.close();
  await j.sshd?.cleanup();
  if (j.agents && agentsRan) j.agents.expectThroughForward();
}

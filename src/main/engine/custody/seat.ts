import type { SeatCustody } from '../../../shared/contract';
import { judgeConversation } from './guard';
import type { Ports } from '../ports';
import { cwdOn } from './cwd';
import type { Roster, RosterPane } from '../roster/types';
import { sameConversations } from '../runtimes/family';
import type { SeatRow, SessionRow } from '../store';

/**
 * Who writes a seat's conversation, as `ps` reports it: the single-writer guard's own judgement
 * (docs/architecture.md invariants 1 and 2) on the roster `ps` already read and the live rows it
 * read once, with the seat's own pane allowed, exactly as a send to the seat would ask. So the row
 * says `elsewhere` or `unknown` exactly when a send or a resume would be refused for it.
 */
export function seatCustody(
  ports: Pick<Ports, 'fs' | 'seatHome'>,
  roster: Roster,
  o: { seat: SeatRow; live?: SessionRow; pane?: RosterPane },
  conversationId: string,
  liveRows: readonly SessionRow[],
): SeatCustody {
  const { seat, live, pane } = o;
  const own = pane ? [pane.panePid, ...pane.lineage.map((p) => p.pid), ...(pane.agent ? [pane.agent.pid] : [])] : [];
  const verdict = judgeConversation(
    roster,
    {
      runtime: seat.runtime,
      conversationId,
      cwd: cwdOn(ports.fs, seat),
      home: ports.seatHome(seat),
      allowPids: own,
      // The seat's own row is its own only while its pane is there; a vanished pane proves nothing.
      ...(pane && live ? { allowSessionId: live.id } : {}),
      host: seat.host,
    },
    liveRows.filter((r) => sameConversations(r.runtime, seat.runtime) && r.conversationId === conversationId),
  );
  if (verdict.kind === 'doubt') return { writer: 'unknown', why: verdict.failure.message };
  if (verdict.kind === 'owned') {
    const owner = verdict.owners[0]!;
    const elsewhere: SeatCustody = { writer: 'elsewhere', pid: owner.pid };
    if (owner.paneId) elsewhere.paneId = owner.paneId;
    if (owner.server) elsewhere.server = owner.server;
    if (seat.host !== 'local') elsewhere.host = seat.host;
    // The daemon's helper serves the same home as the daemon: to a person both are the daemon.
    if (owner.service) elsewhere.service = 'daemon';
    return elsewhere;
  }
  // Nobody else: the seat's own agent writes it while it runs in the seat's pane; else nobody does.
  return pane?.agent ? { writer: 'this_seat' } : { writer: 'none' };
}

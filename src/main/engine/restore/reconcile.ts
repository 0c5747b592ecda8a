import type { ReconcileReport } from '../../../shared/contract';
import type { Result } from '../../../shared/errors';
import { resolveStaleReservation } from '../custody/census';
import type { Ports } from '../ports';
import { sessionGone } from '../custody/gone';
import { paneOf, serverRunning } from '../roster/lookup';

/**
 * Reconcile on start (docs/architecture.md invariant 8): after a crash of the app, the CLI or the engine,
 * compare the store with tmux and the process table and write down what changed. It only ends
 * rows it can explain (their server was listed and their exact identity is not on it), settles
 * stale reservations by census, and marks restore runs whose holder died. Everything it cannot
 * explain is recorded as `reconcile.unexplained` and left alone: never deleted, never killed.
 */

export type { ReconcileReport };

export async function reconcile(
  ports: Pick<Ports, 'client' | 'ownKey' | 'proc' | 'roster' | 'selfPid' | 'store'>,
): Promise<Result<{ report: ReconcileReport }>> {
  const { store } = ports;
  const repos = ports.store.restore;
  const roster = await ports.roster();
  const report: ReconcileReport = { ended: [], reservations: [], interruptedRuns: [], unexplained: [] };
  const listed = (server: string) =>
    serverRunning(roster, server) !== undefined && !roster.problems.some((p) => p.server === server);

  for (const row of store.sessions.allLive()) {
    if (paneOf(roster, row)) continue;
    const seat = store.rigs.seat(row.seat);
    const where = { rig: seat?.rig ?? null, seat: row.seat };
    if (!listed(row.server)) {
      const detail = { sessionRow: row.id, server: row.server, why: 'its tmux server could not be listed' };
      report.unexplained.push({ what: 'session', detail });
      repos.event('reconcile.unexplained', where, detail);
      continue;
    }
    // The roster is a moment ago: a row created since then is not gone. Ask tmux now.
    if ((await sessionGone(ports, row)) !== 'gone') continue;
    store.db
      .transaction(() => {
        store.sessions.end(row.id, 'gone_at_reconcile');
        repos.event('reconcile.ended_gone', where, {
          sessionRow: row.id,
          server: row.server,
          serverPid: row.serverPid,
          sessionId: row.sessionId,
          paneId: row.paneId,
        });
      })
      .immediate();
    report.ended.push({ seat: row.seat, sessionId: row.sessionId, paneId: row.paneId });
  }

  for (const r of store.reservations.allActive()) {
    const settled = await resolveStaleReservation(ports, r, roster);
    report.reservations.push({ seat: r.seat, reservation: r.id, outcome: settled.ok ? settled.outcome : settled.code });
  }

  for (const run of repos.runs.running()) {
    if (run.holderPid !== ports.selfPid && ports.proc.read(run.holderPid)) continue; // still restoring
    if (run.holderPid === ports.selfPid) continue;
    if (repos.runs.interrupt(run.id)) {
      repos.event('reconcile.run_interrupted', { rig: run.rig }, { run: run.id, holderPid: run.holderPid });
      report.interruptedRuns.push(run.id);
    }
  }

  // Panes on our own server tagged as a seat's, with no live row naming them: someone's, not ours to judge.
  const bound = new Set(store.sessions.allLive().map((r) => `${r.server}\0${r.paneId}`));
  for (const p of roster.panes) {
    if (p.server !== ports.ownKey || !p.seatTag || bound.has(`${p.server}\0${p.paneId}`)) continue;
    const detail = { seatTag: p.seatTag, paneId: p.paneId, sessionId: p.sessionId, attempt: p.attemptTag };
    report.unexplained.push({ what: 'pane', detail });
    repos.event('reconcile.unexplained', { seat: p.seatTag }, detail);
  }
  repos.event(
    'reconcile.done',
    {},
    {
      ended: report.ended.length,
      reservations: report.reservations.length,
      interruptedRuns: report.interruptedRuns.length,
      unexplained: report.unexplained.length,
    },
  );
  return { ok: true, report };
}

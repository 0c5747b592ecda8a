import { PaneOutputWatch } from './control';
import { PanePipeWatch } from './pipe';
import { RemotePipeWatch } from './pipe-remote';

/** How one seat's pane output reaches the monitor. */
export type SeatWatch = PaneOutputWatch | PanePipeWatch | RemotePipeWatch;

/** Pids of the control clients among the watches, so a bench can count their CPU too. */
export function controlPids(watches: Iterable<SeatWatch>): number[] {
  return [...watches].flatMap((w) => (w instanceof PaneOutputWatch && w.pid !== undefined ? [w.pid] : []));
}

/** How a seat is watched (tests and diagnostics). */
export function watchKind(w: SeatWatch | undefined): 'pipe' | 'remote-pipe' | 'control' | undefined {
  if (w instanceof PanePipeWatch) return 'pipe';
  if (w instanceof RemotePipeWatch) return 'remote-pipe';
  return w instanceof PaneOutputWatch ? 'control' : undefined;
}

/** The fifos pane output is piped into, so a bench can find the `cat` writing each one. */
export function pipeFifos(watches: Iterable<SeatWatch>): string[] {
  return [...watches].flatMap((w) => (w instanceof PanePipeWatch ? [w.fifo] : []));
}

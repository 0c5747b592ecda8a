import type { Ports } from '../ports';
import type { LaunchContext } from '../runtimes';
import type { SeatRow } from '../store';

/** What a seat's argv is built from: its program, folder, args and home, and the rest a launch adds. */
export function launchContext(
  ports: Pick<Ports, 'newId' | 'seatHome'>,
  seat: SeatRow,
  binary: string,
  more: Pick<LaunchContext, 'env' | 'files'> = {},
): LaunchContext {
  return { binary, cwd: seat.cwd, args: seat.args, home: ports.seatHome(seat), newId: ports.newId, ...more };
}

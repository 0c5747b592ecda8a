import type { Fs } from '../deps';
import { isLocal } from '../hosts/types';

/** A folder's real path on this machine (links resolved), or the path as given when it cannot be read. */
export function realOrSame(fs: Pick<Fs, 'realpathSync'>, p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

/** A seat's folder as its host names it: resolved here for this machine, as given for another host. */
export function cwdOn(fs: Pick<Fs, 'realpathSync'>, seat: { cwd: string; host?: string }): string {
  return isLocal(seat.host) ? realOrSame(fs, seat.cwd) : seat.cwd;
}

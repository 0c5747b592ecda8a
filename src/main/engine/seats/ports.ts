import type { Ports } from '../ports';

/**
 * What a launch reads and writes: the store, a roster (taken when a check needs one), the fence's
 * tmux server and process table, the seat's home, host and environment, this machine's files.
 */
export type LaunchPorts = Pick<
  Ports,
  | 'store'
  | 'roster'
  | 'client'
  | 'ownOn'
  | 'ownKey'
  | 'proc'
  | 'procNow'
  | 'hosts'
  | 'seatHome'
  | 'io'
  | 'fs'
  | 'env'
  | 'userHome'
  | 'layout'
  | 'newId'
  | 'selfPid'
  | 'faults'
  | 'gitOn'
>;

/** What a stop reads and writes: the seat's session, its transcript (taking up), what stays in its home. */
export type StopPorts = Pick<Ports, 'store' | 'roster' | 'client' | 'clock' | 'hosts' | 'io' | 'fs' | 'seatHome'>;

import { openDb, type Db } from './db';
import { EventLog } from './events';
import { ConversationRepo, RigRepo } from './seats';
import { SessionRepo } from './sessions';
import { ReservationRepo } from './reservations';
import { HostRepo } from './hosts';
import { QueueRepo } from './queue-repo';
import { TicketRepo } from './tickets';
import { DeviceRepo } from './devices';
import { makeRestoreRepos, type RestoreRepos } from './restore-repos';
import { UsageSampleRepo } from './usage-samples';

export type { Db } from './db';
export type { EventRow, EventKind } from './events';
export type { Placements, SeatRow, SeatWorktree } from './seats';
export type { HostRow } from './hosts';
export type { DeviceRow, PairingRow } from './devices';
export type { WakeRow, WakeRepo, Holder } from './queue-repo';
export type { SessionRow } from './sessions';
export type { ReservationRow, ReservationPhase, LaunchPlan } from './reservations';

/** The engine's durable state: one SQLite file, repositories over it, and the event log. */
export class Store {
  readonly rigs: RigRepo;
  readonly sessions: SessionRepo;
  readonly reservations: ReservationRepo;
  readonly events: EventLog;
  readonly conversations: ConversationRepo;
  readonly hosts: HostRepo;
  readonly queue: QueueRepo;
  /** Snapshots, restore runs and decisions. */
  readonly restore: RestoreRepos;
  /** Senders' places in each seat's line (the delivery lease). */
  readonly tickets: TicketRepo;
  /** Paired devices and their pairing codes (hashes only). */
  readonly devices: DeviceRepo;
  /** Each conversation's usage over time, at most a row a minute. */
  readonly usageSamples: UsageSampleRepo;
  constructor(
    readonly db: Db,
    now: () => number,
  ) {
    this.rigs = new RigRepo(db, now);
    this.sessions = new SessionRepo(db, now);
    this.reservations = new ReservationRepo(db, now);
    this.events = new EventLog(db, now);
    this.conversations = new ConversationRepo(db, now);
    this.hosts = new HostRepo(db, now);
    this.queue = new QueueRepo(db, now, this.events);
    this.restore = makeRestoreRepos(db, now, this.events);
    this.tickets = new TicketRepo(db);
    this.devices = new DeviceRepo(db);
    this.usageSamples = new UsageSampleRepo(db);
  }
  static open(path: string, now: () => number = Date.now): Store {
    return new Store(openDb(path), now);
  }
  close(): void {
    this.db.close();
  }
}

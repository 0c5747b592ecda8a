import type { Ports } from '../ports';
import type { Roster } from '../roster/types';
import type { RosterSource } from './verify';

/**
 * The roster reads of one restore, shared by its launches' custody checks and its proofs' looks.
 *
 * tmux runs one server's commands one after another, so a read begun while launches' creates are
 * queued waits behind all of them, and a launch that finished meanwhile still needs a read begun
 * after it asked: each wave of launches paid two reads (one stuck behind the creates, serving
 * almost nobody, then the one it waited for), each a large part of a second of this process's
 * time with 200 agents to read. Here a launch that asks while others of this restore are between
 * their custody read and their end waits for them to end (at most `drainMs`), and every launch
 * waiting then shares one read, begun after each of them asked (docs/architecture.md invariant
 * 1: a custody check sees every launch that finished before it). Launches asking in one turn share
 * the read asked for in it, unless a launch ended since. A proof's look joins the launches' next
 * read rather than begin one of its own behind the creates.
 */
export interface RestoreReadsOptions {
  /** How old a read a proof may be given (verify.ts sharedRoster's age). */
  maxAgeMs: number;
  /** The longest a launch waits for the launches ahead of it to end before it reads anyway. */
  drainMs: number;
}

export const RESTORE_READS: RestoreReadsOptions = { maxAgeMs: 150, drainMs: 3000 };

/** One launch's share: its roster port (seats/fence.ts LaunchRoster) and its end. */
export interface LaunchReads {
  roster: () => Promise<Roster>;
  done: () => void;
}

export class RestoreReads {
  /** Launches given their custody read and not yet ended: their creates are on tmux's queue. */
  private creating = 0;
  private waiting: (() => void)[] = [];
  private timer?: NodeJS.Timeout;
  private latest?: { at: number; roster: Promise<Roster> };
  /** The read asked for in this turn of the event loop and not yet answered, with no launch ended since. */
  private joinable?: Promise<Roster>;

  constructor(
    private readonly ports: Pick<Ports, 'clock' | 'roster'>,
    private readonly opts: RestoreReadsOptions = RESTORE_READS,
  ) {}

  launch(): LaunchReads {
    let counted = false;
    let ended = false;
    return {
      roster: async () => {
        // A read asked for in this turn has not begun (Engine.sharedRoster): joining it is reading after asking.
        if (!this.joinable && this.creating > 0) await this.drained();
        if (!ended && !counted) (counted = true), (this.creating += 1);
        return this.joinable ?? this.read();
      },
      done: () => {
        ended = true;
        // A read asked for before this end may begin before it, whatever the port: later launches ask anew.
        this.joinable = undefined;
        if (!counted) return;
        counted = false;
        this.creating -= 1;
        if (this.creating === 0) this.release();
      },
    };
  }

  /**
   * The proofs' source: a read begun after `notBefore` and at most maxAgeMs old; while launches'
   * creates are on tmux's queue, the read begun once they end (at most drainMs), shared with the
   * launches waiting for it.
   */
  readonly forProof: RosterSource = async (notBefore = 0) => {
    const l = this.latest;
    if (l && l.at >= notBefore && this.ports.clock.now() - l.at <= this.opts.maxAgeMs) return l.roster;
    if (this.creating > 0) await this.drained();
    return this.joinable ?? this.read();
  };

  /** A read begun after now; callers asking in the same turn share it (Engine.sharedRoster). */
  private read(): Promise<Roster> {
    const roster = this.ports.roster();
    const entry = { at: this.ports.clock.now(), roster };
    // Joinable for the rest of this turn while unanswered, and never past a launch's end (done).
    this.joinable = roster;
    const unjoin = () => {
      if (this.joinable === roster) this.joinable = undefined;
    };
    setImmediate(unjoin);
    roster.then(unjoin, unjoin);
    this.latest = entry;
    // A failed read is not handed to the next caller: it asks again.
    roster.catch(() => {
      if (this.latest === entry) this.latest = undefined;
    });
    return roster;
  }

  private drained(): Promise<void> {
    this.timer ??= setTimeout(() => this.release(), this.opts.drainMs);
    return new Promise<void>((r) => this.waiting.push(r));
  }

  private release(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const go = this.waiting;
    this.waiting = [];
    for (const r of go) r();
  }
}

import type { PsRow } from '../../shared/contract';
import type { PromptItem, PushMessage } from '../../shared/contract/app';
import { dispatch } from '../engine/api';
import { onFocusRequest } from '../engine/api/app';
import { RestCadence } from '../engine/activity/cadence';
import type { Engine } from '../engine/engine';
import { promptsFor } from '../engine/prompts/list';
import { type EventRow, SEAT_STATE_KINDS } from '../engine/store/events';
import { Watching } from './watching';
import { watchOwnServer } from '../engine/services/stuck-server';

/**
 * How often a resting hub looks at Rigdesk's tmux server (window chip within 5 s of it sticking):
 * a line on the held client, so a look costs no process; a stuck server costs this, the held
 * client's 500 ms and the process probe's 1.5 s.
 */
const SERVER_WATCH_MS = 1_000;

/**
 * A seat whose row changes with no event to say so: an agent's tokens move while it works, and a
 * starting seat turns ready or stops starting by the clock alone. Rest polls keep the base pace while
 * one is there; a plain program at work has no tokens, and its next change writes an event.
 */
export function movesUnseen(row: Pick<PsRow, 'activity' | 'conversations'>): boolean {
  return row.activity === 'starting' || (row.activity === 'working' && row.conversations !== false);
}

export type PushListener = (msg: PushMessage) => void;

/** Event kinds that change a seat's row: each has the seats read at once. */
const STATE_NEWS: ReadonlySet<string> = new Set(SEAT_STATE_KINDS);

/**
 * What the engine tells open windows, whatever the transport: new event-log rows (polled every
 * 100 ms by `afterSeq`, so nothing is missed between polls), the seats' `ps` rows (activity and
 * needs_input come from there; polled at 1 s, or with an activity monitor's events when something
 * happened: a `seat.activity` row is read at once, so a needs_input reaches the window a poll after
 * its event; pushed only when they changed), the live prompts of the seats at needs_input (the
 * Decisions panel's live items) and focus requests from deep links. Polls run only while someone
 * listens.
 */
export class PushHub {
  private readonly listeners = new Set<PushListener>();
  private lastSeq: number;
  private eventsTimer?: NodeJS.Timeout;
  private seatsTimer?: NodeJS.Timeout;
  private seatsBusy = false;
  private latestSeats: PsRow[] = [];
  private latestPrompts: PromptItem[] = [];
  private promptsKey = '[]';
  /** The last seats push as sent: an unchanged roster is not pushed again. */
  private seatsKey = '';
  /** An event row arrived since the last seats poll (with activity events, the reason to poll). */
  private seatsDue = true;
  /** A seat.activity row arrived since the last seats poll began: poll again as soon as it ends. */
  private activityDue = false;
  private lastSeatsAt = -Infinity;
  /** With activity events: the wait between polls that no event asked for. */
  private readonly rest: RestCadence;
  private seatPolls = 0;
  private promptPolls = 0;
  private readonly unfocus: () => void;
  /** The seats each window shows focused (for the notification rule). */
  readonly watching = new Watching();

  constructor(
    private readonly engine: Engine,
    private readonly opts: {
      eventsMs?: number;
      seatsMs?: number;
      /**
       * An activity monitor writes every seat's activity change as an event row on this home
       * (`rigdesk serve`, the app): the seats are then polled when event rows arrive, while a seat
       * needs input, or every `restSeatsMs` (default 5 s) for what no event reports (tokens while a
       * seat works), instead of every `seatsMs`. While polls find nothing new and no seat works, the
       * wait grows to `restSeatsMaxMs` (default 15 s): a window left open on a quiet rig costs a
       * fifteenth of the `ps` runs.
       */
      activityEvents?: boolean;
      restSeatsMs?: number;
      restSeatsMaxMs?: number;
    } = {},
  ) {
    const last = engine.store.events.list({ newest: 1 }).at(-1);
    this.lastSeq = last?.seq ?? 0;
    this.rest = new RestCadence(opts.restSeatsMs ?? 5000, opts.restSeatsMaxMs);
    this.unfocus = onFocusRequest((seat) => this.broadcast({ push: 'focus', data: { seat } }));
  }

  subscribe(fn: PushListener): () => void {
    this.listeners.add(fn);
    if (this.listeners.size === 1) this.start();
    if (this.latestSeats.length) fn({ push: 'seats', data: { seats: this.latestSeats } });
    if (this.latestPrompts.length) fn({ push: 'prompts', data: { prompts: this.latestPrompts } });
    return () => {
      this.listeners.delete(fn);
      if (this.listeners.size === 0) this.stop();
    };
  }

  get seats(): PsRow[] {
    return this.latestSeats;
  }

  get prompts(): PromptItem[] {
    return this.latestPrompts;
  }

  /** Seats with an open restore decision: they wait for a person as much as a prompt does. */
  openDecisionSeats(): string[] {
    try {
      return this.engine.store.restore.decisions
        .list({})
        .filter((d) => d.state === 'open')
        .map((d) => d.seat);
    } catch {
      return []; // the store is closing
    }
  }

  focus(seat: string): void {
    this.broadcast({ push: 'focus', data: { seat } });
  }

  /** Polls once now (tests and the shell call it after a change they caused). */
  async refresh(): Promise<void> {
    this.pollEvents();
    await this.pollSeats();
  }

  close(): void {
    this.stop();
    this.listeners.clear();
    this.unfocus();
  }

  /** For tests and diagnostics: how many times the seats were polled (`ps` runs), and the prompts alone. */
  get stats(): { seatPolls: number; promptPolls: number } {
    return { seatPolls: this.seatPolls, promptPolls: this.promptPolls };
  }

  private start(): void {
    this.eventsTimer = setInterval(() => this.pollEvents(), this.opts.eventsMs ?? 100);
    this.seatsTimer = setInterval(() => {
      if (!this.seatsAtRest()) return void this.pollSeats();
      void this.watchServer();
      // A prompt's screen can settle after its needs_input event (and a second question follows
      // the first with no event): the waiting panes are looked at each tick, not the whole roster.
      if (this.latestSeats.some((s) => s.activity === 'needs_input')) void this.repollPrompts();
    }, this.opts.seatsMs ?? 1000);
    // A seat's changes read anew (its tree's watch saw a write settle) are news like an event row.
    this.unchanges = this.engine.ports.changes.onChange(() => {
      this.seatsDue = true;
      void this.pollSeats();
    });
    void this.pollSeats();
  }

  /** With activity events: nothing happened since the last poll and the rest period has not run out. */
  private seatsAtRest(): boolean {
    if (!this.opts.activityEvents || this.seatsDue) return false;
    return this.engine.now() - this.lastSeatsAt < this.rest.waitMs;
  }

  /** The prompts of the seats last seen at needs_input, read again from their screens alone. */
  private async repollPrompts(): Promise<void> {
    if (this.seatsBusy) return; // a seats poll reads the prompts too
    this.seatsBusy = true;
    this.promptPolls++;
    try {
      await this.pollPrompts(this.latestSeats);
    } finally {
      this.seatsBusy = false;
    }
  }

  private unchanges?: () => void;
  private serverCheckedAt = 0;
  private serverChecking = false;

  /**
   * At rest no ps runs for up to restSeatsMaxMs, and a tmux server that stops answering writes no
   * event: a bounded look every SERVER_WATCH_MS (the held client, else one short tmux client) finds
   * it, and the seats are read at once so the windows' connection chip names it within 5 s.
   */
  private async watchServer(): Promise<void> {
    if (this.serverChecking || this.listeners.size === 0) return;
    if (this.engine.now() - this.serverCheckedAt < SERVER_WATCH_MS) return;
    this.serverChecking = true;
    try {
      if (await watchOwnServer(this.engine)) {
        this.seatsDue = true;
        void this.pollSeats();
      }
    } catch {
      /* the next tick tries again */
    } finally {
      this.serverCheckedAt = this.engine.now();
      this.serverChecking = false;
    }
  }

  private stop(): void {
    this.unchanges?.();
    this.unchanges = undefined;
    clearInterval(this.eventsTimer);
    clearInterval(this.seatsTimer);
  }

  private pollEvents(): void {
    let rows: EventRow[];
    try {
      rows = this.engine.store.events.list({ afterSeq: this.lastSeq, limit: 500 });
    } catch {
      return; // the store is closing; the next poll (if any) retries
    }
    for (const e of rows) {
      this.lastSeq = e.seq;
      this.broadcast({ push: 'event', data: e });
    }
    if (rows.length === 0) return;
    this.seatsDue = true;
    this.rest.news();
    // With activity events, an event is the news: the seats are read now, not at the next tick, so
    // a seat's needs_input, stop or launch reaches the windows a poll after its event row
    // (bench/window.bench.ts, bench/views.bench.ts).
    if (this.opts.activityEvents && rows.some((e) => STATE_NEWS.has(e.kind))) {
      this.activityDue = true;
      void this.pollSeats();
    }
  }

  private async pollSeats(): Promise<void> {
    if (this.seatsBusy) return; // a slow roster never stacks up polls
    this.seatsBusy = true;
    // Cleared before the poll: an event row that lands meanwhile makes the next tick poll again.
    this.seatsDue = false;
    this.activityDue = false;
    this.lastSeatsAt = this.engine.now();
    this.seatPolls++;
    try {
      const r = await dispatch(this.engine, 'ps', {});
      if (r.ok) {
        this.latestSeats = r.seats;
        // Pushed only when something changed: every window re-renders its seats on a push, and
        // most seconds nothing has (a late subscriber gets the latest rows when it subscribes).
        const data = {
          seats: this.latestSeats,
          ...(r.hosts.length ? { hosts: r.hosts } : {}),
          ...(r.stuck ? { stuck: r.stuck } : {}),
        };
        const key = JSON.stringify(data);
        this.rest.looked(key !== this.seatsKey || r.stuck !== undefined || r.seats.some(movesUnseen));
        if (key !== this.seatsKey) {
          this.seatsKey = key;
          this.broadcast({ push: 'seats', data });
        }
        await this.pollPrompts(this.latestSeats);
      }
    } finally {
      this.seatsBusy = false;
    }
    // An activity change that arrived while this poll ran is read at once, not a tick later.
    if (this.activityDue && this.listeners.size > 0) void this.pollSeats();
  }

  /**
   * Seats at needs_input become live Decisions items from the rows just observed (one capture per
   * server, and only while something waits); pushed when they change, so a prompt shows with its
   * badge in the same poll.
   */
  private async pollPrompts(rows: PsRow[]): Promise<void> {
    let items: PromptItem[];
    try {
      items = await promptsFor(this.engine.ports, rows);
    } catch {
      return;
    }
    const key = JSON.stringify(items);
    if (key === this.promptsKey) return;
    this.promptsKey = key;
    this.latestPrompts = items;
    this.broadcast({ push: 'prompts', data: { prompts: items } });
  }

  private broadcast(msg: PushMessage): void {
    for (const fn of this.listeners) {
      try {
        fn(msg);
      } catch {
        /* one broken window must not stop the others */
      }
    }
  }
}

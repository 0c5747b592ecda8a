import type { QueueItem, WakeReport } from '../../../shared/contract/activity';
import { observeSeats, type ObservedSeat, type ObservePorts } from '../activity/observe';
import { heldNothingTyped, sendToSeat, type SendPorts } from '../delivery/send';
import type { Ports } from '../ports';
import type { Holder, SeatRow, SessionRow, WakeRepo, WakeRow } from '../store';
import { atFault } from '../faults';
import type { UsagePorts } from '../usage/live';
import { type BudgetHold, budgetHold, liveBudgetDeps } from '../usage/budget-live';
import { ladderDelay, PARK_RECHECK_MS, planWake, wakeDigest, wakeGate, wakeNotice, type WakeStep } from './wake-plan';

export type { WakeOutcome, WakeReport } from '../../../shared/contract/activity';

/** How a pass sees the seats it may wake; tests inject one to stand a seat at its usage limit. */
export type ObserveFn = (
  ports: ObservePorts & Pick<Ports, 'roster'>,
  seats: SeatRow[],
) => Promise<Map<string, ObservedSeat>>;

const liveObserve: ObserveFn = async (ports, seats) => observeSeats(ports, await ports.roster(), seats);

interface Due {
  seat: SeatRow;
  live: SessionRow;
  items: QueueItem[];
  digest: string;
  row: WakeRow | undefined;
  step: Extract<WakeStep, { kind: 'attempt' }>;
}

/**
 * One wake pass: for each running seat with open items, type a short notice when the seat is idle,
 * at most once per occupant (the seat's live session row) and set of unchanged items. Costs no
 * process spawn unless a wake is due: the roster is read only for seats that may be typed into.
 */
/** What a wake takes: a send's ports, and the usage book whose held minutes a budget check writes first. */
export type WakePorts = SendPorts & Partial<Pick<UsagePorts, 'usageBook'>>;

export async function queueTick(
  ports: WakePorts,
  opts: { seat?: string; observe?: ObserveFn } = {},
): Promise<WakeReport[]> {
  const wakes = ports.store.queue.wakes;
  const self: Holder = {
    pid: ports.selfPid,
    start: ports.proc.read(ports.selfPid)?.startTime ?? null,
  };
  const alive = (h: Holder | null) => {
    if (!h) return false;
    const p = ports.proc.read(h.pid);
    return p !== undefined && (h.start === null || p.startTime === h.start);
  };
  const open = new Map<string, QueueItem[]>();
  for (const it of ports.store.queue.list({ seat: opts.seat, states: ['open'] }))
    open.set(it.seat, [...(open.get(it.seat) ?? []), it]);
  const seats = new Set([...open.keys(), ...wakeSeats(ports, opts.seat)]);

  const reports: WakeReport[] = [];
  const due: Due[] = [];
  for (const name of seats) {
    const items = open.get(name) ?? [];
    const live = ports.store.sessions.live(name);
    const digest = items.length ? wakeDigest(items) : '';
    // A wake for another occupant or another set of items will never be typed: retire it, unless
    // a live waker is typing it right now (its own write settles it).
    for (const r of wakes.unfinished(name))
      if (!(live && r.sessionRow === live.id && r.digest === digest) && !alive(r.holder)) wakes.supersede(r.id);
    if (!items.length) continue;
    const ids = items.map((i) => i.id);
    const seat = ports.store.rigs.seat(name);
    if (!live || !seat) {
      reports.push({ seat: name, outcome: 'not_running', items: ids });
      continue;
    }
    const row = wakes.find(name, live.id, digest);
    const step = planWake(row, ports.clock.now(), alive(row?.holder ?? null));
    if (step.kind === 'attempt') due.push({ seat, live, items, digest, row, step });
    // planWake skips only a row it was given.
    else reports.push(skipped(name, ids, step.why, row!));
  }
  if (!due.length) return reports;
  // A reached budget parks a wake before anything is looked at or typed (the seat's own turn runs on).
  const budget = liveBudgetDeps(ports);
  const holds = new Map(due.map((d) => [d.seat.seat, budgetHold(budget, ports, d.seat, 'wake')]));
  const free = due.filter((d) => !holds.get(d.seat.seat)!.held);
  const observed = free.length
    ? await (opts.observe ?? liveObserve)(
        ports,
        free.map((d) => d.seat),
      )
    : new Map<string, ObservedSeat>();
  for (const d of due) {
    const hold = holds.get(d.seat.seat)!;
    reports.push(
      hold.held ? parkAtBudget(ports, wakes, d, hold) : await attempt(ports, wakes, self, d, observed.get(d.seat.seat)),
    );
  }
  return reports;
}

/**
 * Parks a wake at a reached budget: the row waits (parked, rechecked as at a usage limit) until the
 * budget is released or raised, with one event when it parks. Nothing is typed.
 */
function parkAtBudget(
  ports: Pick<Ports, 'clock' | 'store'>,
  wakes: WakeRepo,
  d: Due,
  hold: Extract<BudgetHold, { held: true }>,
): WakeReport {
  const ids = d.items.map((i) => i.id);
  const why = 'budget';
  const nextAt = ports.clock.now() + PARK_RECHECK_MS;
  const wasParked = d.row?.state === 'parked' && d.row.lastResult === why;
  const row = d.row
    ? wakes.release(d.row, { state: 'parked', lastResult: why, nextAt, attempts: 0 })
      ? d.row
      : undefined
    : wakes.insert(
        { seat: d.seat.seat, sessionRow: d.live.id, digest: d.digest, items: ids },
        { state: 'parked', attempts: 0, nextAt, lastResult: why },
      );
  if (!row) return { seat: d.seat.seat, outcome: 'in_flight', items: ids };
  if (!wasParked)
    ports.store.events.append(
      'queue.wake_held',
      { rig: d.seat.rig, seat: d.seat.seat },
      { token: row.token, why, parked: true, items: ids, nextAt, decision: hold.budget.decisionId, detail: hold.why },
    );
  return {
    seat: d.seat.seat,
    outcome: 'parked',
    items: ids,
    token: row.token,
    why,
    nextAt,
    ...(hold.budget.decisionId !== undefined ? { decision: hold.budget.decisionId } : {}),
  };
}

/** A seat this pass leaves alone, with what its wake row says. */
function skipped(
  seat: string,
  items: number[],
  why: Extract<WakeStep, { kind: 'skip' }>['why'],
  row: WakeRow,
): WakeReport {
  switch (why) {
    case 'not_due':
      return { seat, outcome: why, items, token: row.token, nextAt: row.nextAt };
    case 'already_woken':
    case 'in_flight':
      return { seat, outcome: why, items, token: row.token };
  }
}

function wakeSeats(ports: Pick<Ports, 'store'>, seat: string | undefined): string[] {
  return ports.store.queue.wakes.seatsWithUnfinished().filter((s) => seat === undefined || s === seat);
}

async function attempt(
  ports: SendPorts,
  wakes: WakeRepo,
  self: Holder,
  d: Due,
  o: ObservedSeat | undefined,
): Promise<WakeReport> {
  const where = { rig: d.seat.rig, seat: d.seat.seat };
  const ids = d.items.map((i) => i.id);
  const key = { seat: d.seat.seat, sessionRow: d.live.id, digest: d.digest, items: ids };
  const now = ports.clock.now();
  let row = d.row;
  if (row && d.step.checkScreen) {
    // An earlier try was cut short after it may have typed: the pane's screen and history say.
    const seen = await tokenOnScreen(ports, d.live, row.token);
    if (seen) {
      wakes.markSent(row.id, 'delivered:found_on_screen');
      ports.store.events.append('queue.wake', where, {
        token: row.token,
        items: ids,
        sessionRow: d.live.id,
        paneId: d.live.paneId,
        attempt: row.attempts,
        recovered: true,
      });
      return { seat: d.seat.seat, outcome: 'recovered', items: ids, token: row.token, attempt: row.attempts };
    }
    if (seen === undefined)
      return hold(
        ports,
        wakes,
        d,
        row,
        'failed:screen_unreadable',
        'the pane could not be read to see whether an earlier try typed',
      );
  }
  const gate = o ? wakeGate(o.activity) : ({ may: false, park: false, why: 'unobserved' } as const);
  if (!gate.may && gate.park) {
    const nextAt = now + PARK_RECHECK_MS;
    const wasParked = row?.state === 'parked';
    row = row
      ? wakes.release(row, { state: 'parked', lastResult: gate.why, nextAt, attempts: 0 })
        ? row
        : undefined
      : wakes.insert(key, { state: 'parked', attempts: 0, nextAt, lastResult: gate.why });
    if (!row) return { seat: d.seat.seat, outcome: 'in_flight', items: ids };
    // One event when it parks, none while it stays parked: a limit can last hours.
    if (!wasParked)
      ports.store.events.append('queue.wake_held', where, {
        token: row.token,
        why: gate.why,
        parked: true,
        items: ids,
        nextAt,
      });
    return { seat: d.seat.seat, outcome: 'parked', items: ids, token: row.token, why: gate.why, nextAt };
  }
  if (!gate.may) {
    if (!row) {
      row = wakes.insert(key, { state: 'pending', attempts: 0, nextAt: now, lastResult: 'new' });
      if (!row) return { seat: d.seat.seat, outcome: 'in_flight', items: ids };
    }
    return hold(ports, wakes, d, row, `held:${gate.why}`, 'the seat is not idle');
  }
  // Write the row (pending, this process typing) before the keystrokes; mark it sent after them.
  const taken = row
    ? wakes.take(row, self)
    : wakes.insert(key, { state: 'pending', attempts: 1, nextAt: now, lastResult: 'typing', holder: self });
  if (!taken) return { seat: d.seat.seat, outcome: 'in_flight', items: ids };
  await atFault(ports.faults, 'queue.after_wake_row');
  let sent: Awaited<ReturnType<typeof sendToSeat>>;
  try {
    // Through sendToSeat: custody, the per-seat lease and every hold apply to a wake as to a send.
    sent = await sendToSeat(ports, d.seat.seat, wakeNotice(d.seat.seat, ids.length, taken.token), {});
  } catch (e) {
    wakes.release(taken, { lastResult: 'failed:INTERNAL', nextAt: now + ladderDelay(taken.attempts) });
    throw e;
  }
  if (sent.ok) {
    await atFault(ports.faults, 'queue.after_wake_typed');
    wakes.markSent(taken.id, 'delivered');
    ports.store.events.append('queue.wake', where, {
      token: taken.token,
      items: ids,
      sessionRow: d.live.id,
      paneId: d.live.paneId,
      attempt: taken.attempts,
      afterPark: d.row?.state === 'parked',
    });
    return { seat: d.seat.seat, outcome: 'woken', items: ids, token: taken.token, attempt: taken.attempts };
  }
  // A held send typed nothing; any other failure may have pasted, so the next try looks first.
  const why = heldNothingTyped(sent.code) ? `held:${String(sent.evidence?.why ?? 'held')}` : `failed:${sent.code}`;
  return hold(ports, wakes, d, taken, why, sent.message, true);
}

/** Records a held try and schedules the next on the ladder. */
function hold(
  ports: Pick<Ports, 'clock' | 'store'>,
  wakes: WakeRepo,
  d: Due,
  row: WakeRow,
  why: string,
  detail: string,
  counted = false,
): WakeReport {
  const attempts = counted ? row.attempts : (row.state === 'parked' ? 0 : row.attempts) + 1;
  const nextAt = ports.clock.now() + ladderDelay(attempts);
  const ids = d.items.map((i) => i.id);
  if (!wakes.release(row, { state: 'pending', lastResult: why, nextAt, attempts }))
    return { seat: d.seat.seat, outcome: 'in_flight', items: ids };
  ports.store.events.append(
    'queue.wake_held',
    { rig: d.seat.rig, seat: d.seat.seat },
    { token: row.token, why, detail, attempt: attempts, nextAt, items: ids },
  );
  return { seat: d.seat.seat, outcome: 'held', items: ids, token: row.token, why, attempt: attempts, nextAt };
}

/** true: the token is on the pane's screen or in its history; false: it is not; undefined: unreadable. */
async function tokenOnScreen(
  ports: Pick<Ports, 'client'>,
  live: SessionRow,
  token: string,
): Promise<boolean | undefined> {
  const r = await ports.client(live.server).capture(live.paneId, 2000);
  return r.ok ? r.text.includes(token) : undefined;
}

/**
 * The long-lived engine's waker: one pass every `everyMs`, never overlapping itself, never keeping
 * the process alive on its own. Returns the function that stops it.
 */
export function startQueueWaker(
  ports: WakePorts,
  everyMs: number,
  onError: (e: unknown) => void = () => undefined,
): () => void {
  let busy = false;
  const tick = async () => {
    if (busy) return;
    busy = true;
    try {
      await queueTick(ports);
    } catch (e) {
      onError(e);
    } finally {
      busy = false;
    }
  };
  const timer = ports.clock.every(everyMs, () => void tick(), { unref: true });
  return () => timer.cancel();
}

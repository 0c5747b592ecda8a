import type { PsRow, WindowLayout } from '../../../shared/contract';
import type { Transport } from '../transport';
import { focusSeat, setTransport } from './actions';
import { setChangesTransport } from './changes';
import { DEFAULT_LAYOUT, dropUnknown, fillEmpty, visibleSlots } from './grid';
import { attentionOrder, attentionRank, stateWord } from './seat-state';
import { type WindowState, allSeats, openDecisionFor, useWindow } from './store';
import { tell } from './tell';

/** Events that change a rig's shape or its decisions: the topology and the decisions are read again. */
const RELOAD_ON = /^(rig\.|decision\.|seat\.fork$)/;
/** Events that are answers: the Decisions history is read again. */
const ANSWERS = /^(decision\.answered|seat\.prompt_answered|seat\.prompt_answer_refused)$/;
const MAX_EVENTS = 2000;
const SAVE_AFTER_MS = 250;

export async function reload(t: Transport): Promise<void> {
  const [topo, d] = await Promise.all([t.request('topology', {}), t.request('decisions', {})]);
  if (topo.ok) {
    const topology = { rigs: topo.rigs };
    const known = new Set(allSeats(topology));
    useWindow.setState((s) => ({ topology, loaded: true, layout: dropUnknown(s.layout, (x) => known.has(x)) }));
  }
  if (d.ok) useWindow.setState({ decisions: d.decisions });
}

/** The agent CLIs found on this machine and the example rig: read once, for the first-run paths. */
export async function loadRuntimes(t: Transport): Promise<void> {
  const r = await t.request('workspace.runtimes', {});
  if (r.ok) useWindow.setState({ runtimes: r.runtimes, ...(r.example ? { example: r.example } : {}) });
}

/** A state key per seat: when it changes, the time since its last change starts again. */
const stateKey = (r: PsRow) => `${r.state}|${r.activity}|${r.needsInput ?? ''}`;

function onSeats(rows: PsRow[]): void {
  const now = Date.now();
  useWindow.setState((s) => {
    const stateSeen = { ...s.stateSeen };
    const seenAt = { ...s.seenAt };
    const turnEnded = { ...s.turnEnded };
    for (const r of rows) {
      const was = s.seats[r.seat];
      if (was && r.turnEndedAt !== undefined && r.turnEndedAt !== was.turnEndedAt) turnEnded[r.seat] = now;
      const key = stateKey(r);
      const before = stateSeen[r.seat];
      if (before?.key === key) continue;
      stateSeen[r.seat] = { key, at: now };
      // The first state a window sees is not news: it is what the person sees on opening it.
      if (!before) seenAt[r.seat] = now;
    }
    return { seats: keepUnchanged(s.seats, rows), stateSeen, seenAt, turnEnded };
  });
}

/** Each row's text as last pushed, to tell an unchanged row without comparing it field by field. */
const rowText = new WeakMap<PsRow, string>();
const textOf = (r: PsRow) => {
  let t = rowText.get(r);
  if (t === undefined) rowText.set(r, (t = JSON.stringify(r)));
  return t;
};

/**
 * The pushed rows by seat, each unchanged one kept as the object the window already holds: every
 * push carries every seat, and a view that follows one seat (a rail row, a topology node) then
 * draws again only when its own row changed, not on every push (200 nodes redrawn per push before).
 */
function keepUnchanged(was: Record<string, PsRow>, rows: PsRow[]): Record<string, PsRow> {
  const out: Record<string, PsRow> = {};
  for (const r of rows) {
    const old = was[r.seat];
    out[r.seat] = old && textOf(old) === textOf(r) ? old : r;
  }
  return out;
}

/** Seats on screen in a visible window are seen as they change: nothing of theirs is unread. */
function markSeen(): void {
  const s = useWindow.getState();
  if (!s.visible) return;
  const shown = visibleSlots(s.layout).filter((x): x is string => !!x);
  const news = (seat: string) => Math.max(s.stateSeen[seat]?.at ?? 0, s.turnEnded[seat] ?? 0);
  const stale = shown.filter((seat) => news(seat) > (s.seenAt[seat] ?? 0));
  if (stale.length === 0) return;
  const seenAt = { ...s.seenAt };
  for (const seat of stale) seenAt[seat] = news(seat);
  useWindow.setState({ seenAt });
}

/** Tells the host which seat's pane has the focus and whether this window is visible. */
function reportAttention(t: Transport): () => void {
  let last = '';
  const send = () => {
    const s = useWindow.getState();
    const seat = visibleSlots(s.layout)[s.layout.focus] ?? null;
    const key = `${seat}|${s.visible}`;
    if (key === last) return;
    last = key;
    void t.request('window.attention', { seat, visible: s.visible });
  };
  const onVisibility = () => useWindow.setState({ visible: document.visibilityState === 'visible' });
  document.addEventListener('visibilitychange', onVisibility);
  onVisibility();
  send();
  const off = useWindow.subscribe(send);
  const offStatus = t.onStatus((st) => {
    if (st === 'open') {
      last = '';
      send();
    }
  });
  return () => {
    off();
    offStatus();
    document.removeEventListener('visibilitychange', onVisibility);
  };
}

/** Every seat, what needs the person first (the rail's attention order, nothing unread yet). */
function seatsByAttention(s: WindowState): string[] {
  const word = (seat: string) => stateWord(s.seats[seat], !!openDecisionFor(s.decisions, seat));
  return attentionOrder(allSeats(s.topology), (seat) => attentionRank(word(seat), false));
}

/**
 * The layout is read once from the engine's home and written back (debounced) whenever it changes.
 * One never saved is filled once the seats are known (the first screen); that fill is not saved,
 * so every new window fills by what needs the person then, until the person changes the layout.
 */
function persistLayout(t: Transport): () => void {
  let ready = false;
  let fresh = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let saved: WindowLayout | undefined;
  // After the frame that paints the rows' states: the rail tells first, the terminals follow.
  const fillFirstScreen = (s: WindowState) => {
    if (!fresh || !s.loaded || Object.keys(s.seats).length === 0) return;
    fresh = false;
    const at = s.layout;
    requestAnimationFrame(() => setTimeout(() => fill(at), 0));
  };
  const fill = (at: WindowLayout) => {
    const s = useWindow.getState();
    // A change of the person's in between is theirs: it is not filled around.
    if (s.layout !== at) return;
    saved = fillEmpty(s.layout, seatsByAttention(s));
    if (saved !== s.layout) useWindow.setState({ layout: saved });
  };
  void t.request('workspace.layout', {}).then((r) => {
    if (r.ok && r.layout) useWindow.setState({ layout: r.layout });
    fresh = r.ok && !r.layout;
    saved = useWindow.getState().layout;
    ready = true;
    followHash();
    fillFirstScreen(useWindow.getState());
  });
  const off = useWindow.subscribe((s) => {
    fillFirstScreen(s);
    // The fill is the layout as saved, not a change to write.
    if (!ready || s.layout === saved) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      fresh = false;
      saved = useWindow.getState().layout;
      void t.request('workspace.saveLayout', { layout: saved });
    }, SAVE_AFTER_MS);
  });
  return () => {
    clearTimeout(timer);
    off();
  };
}

/**
 * `#/seat/<member@rig>` focuses that seat's pane and `#/decisions` opens the Decisions panel: a
 * browser window's own deep links (the desktop app's come as `focus` pushes).
 */
function followHash(): void {
  const m = /^#\/seat\/(.+)$/.exec(location.hash);
  if (m) {
    try {
      focusSeat(decodeURIComponent(m[1]!));
    } catch {
      /* not a seat link */
    }
  } else if (location.hash === '#/decisions')
    useWindow.setState((s) => ({ layout: { ...s.layout, panel: 'decisions' } }));
}

/** Wires a transport into the window's state: pushes in, the layout and the attention report out. */
export function connect(t: Transport): () => void {
  setTransport(t);
  setChangesTransport(t);
  useWindow.setState({ layout: DEFAULT_LAYOUT });
  const offStatus = t.onStatus((status) => useWindow.setState({ status }));
  const offPush = t.onPush((m) => {
    if (m.push === 'seats') {
      onSeats(m.data.seats);
      useWindow.setState({ hosts: m.data.hosts ?? [], stuck: m.data.stuck });
    } else if (m.push === 'prompts') useWindow.setState({ prompts: m.data.prompts });
    else if (m.push === 'focus') focusSeat(m.data.seat);
    else if (m.push === 'event') {
      const e = m.data;
      useWindow.setState((s) => ({
        events: [...s.events.slice(-(MAX_EVENTS - 1)), e],
        ...(ANSWERS.test(e.kind) ? { historyTick: s.historyTick + 1 } : {}),
      }));
      if (RELOAD_ON.test(e.kind)) void reload(t);
    }
  });
  const offSeen = useWindow.subscribe(markSeen);
  window.addEventListener('hashchange', followHash);
  const offAttention = reportAttention(t);
  const offLayout = persistLayout(t);
  // In the desktop app (the preload's bridge) the shell notifies natively: never twice.
  const offTell = tell({ notify: t.kind === 'ws' });
  void reload(t);
  void loadRuntimes(t);
  return () => {
    offStatus();
    offPush();
    offSeen();
    offAttention();
    offLayout();
    offTell();
    window.removeEventListener('hashchange', followHash);
  };
}

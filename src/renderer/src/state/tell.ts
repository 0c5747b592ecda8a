import { focusSeat } from './actions';
import { type SeatFacts, faviconUrl, freshWaits, needingSeats, noticeFor, pageTitle } from './attention';
import { visibleSlots } from './grid';
import { type WindowState, useWindow } from './store';

/**
 * Applies attention.ts's rules to a browser window: the title and the favicon follow the count,
 * and (where the person allowed it) a Web Notification is raised for what newly waits. The desktop
 * app's shell notifies natively, so there `notify` is false and only the title and icon change.
 */

/** New waits this close together are one notification, and the prompts push (sent right after the seats push) can still fill in what is asked. */
const SETTLE_MS = 300;
const MUTE_KEY = 'rigdesk.notifications';

export type NotifyState = 'unsupported' | 'default' | 'denied' | 'on' | 'off';

export function notifyState(): NotifyState {
  if (typeof Notification === 'undefined') return 'unsupported';
  if (Notification.permission === 'denied') return 'denied';
  if (Notification.permission !== 'granted') return 'default';
  return localStorage.getItem(MUTE_KEY) === 'off' ? 'off' : 'on';
}

/**
 * The bell: asks the browser once (from the person's click), then turns this window's
 * notifications on and off. `shown` is what the bell showed when clicked: that is what the person
 * meant, even if the browser's permission changed since.
 */
export async function toggleNotifications(shown: NotifyState): Promise<NotifyState> {
  const st = shown === 'default' ? 'default' : notifyState();
  if (st === 'default') {
    await Notification.requestPermission();
    localStorage.removeItem(MUTE_KEY);
  } else if (st === 'on') localStorage.setItem(MUTE_KEY, 'off');
  else if (st === 'off') localStorage.removeItem(MUTE_KEY);
  return notifyState();
}

/** The seat whose pane has the focus in a visible window: the person is looking at its prompt. */
const watched = (s: WindowState) =>
  s.visible && document.visibilityState === 'visible' ? visibleSlots(s.layout)[s.layout.focus] : undefined;

const needing = (s: WindowState) => needingSeats(s.topology, s.seats, s.decisions);

function setFavicon(href: string): void {
  let link = document.querySelector<HTMLLinkElement>('link[rel="icon"]');
  if (!link) {
    link = document.createElement('link');
    link.rel = 'icon';
    link.type = 'image/svg+xml';
    document.head.appendChild(link);
  }
  link.href = href;
}

function show(seats: readonly string[], facts: SeatFacts): void {
  const n = noticeFor(seats, facts);
  if (!n || notifyState() !== 'on') return;
  try {
    const note = new Notification(n.title, { body: n.body, tag: n.tag });
    note.onclick = () => {
      window.focus();
      focusSeat(n.seat);
      note.close();
    };
  } catch {
    /* a browser that offers the API but refuses the constructor (some mobile ones) shows nothing */
  }
}

export function tell(opts: { notify: boolean }): () => void {
  let shown = -1;
  let waiting: Set<string> | undefined;
  let started = false;
  const pending = new Set<string>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let last: unknown[] = [];

  const fire = () => {
    timer = undefined;
    const s = useWindow.getState();
    const still = new Set(needing(s));
    const seat = watched(s);
    const list = [...pending].filter((x) => still.has(x) && x !== seat);
    pending.clear();
    show(list, s);
  };

  const onChange = (s: WindowState) => {
    const key = [s.topology, s.seats, s.decisions, s.layout, s.visible, s.loaded];
    if (key.every((k, i) => k === last[i])) return;
    last = key;
    const now = needing(s);
    if (now.length !== shown) {
      shown = now.length;
      document.title = pageTitle(shown);
      setFavicon(faviconUrl(shown));
    }
    if (!opts.notify || !s.loaded || Object.keys(s.seats).length === 0) return;
    if (!started) {
      // The first look settles (topology, decisions and seats arrive apart) before anything is news.
      started = true;
      setTimeout(() => (waiting = new Set(needing(useWindow.getState()))), SETTLE_MS);
      return;
    }
    if (!waiting) return;
    const next = freshWaits(waiting, now, watched(s));
    waiting = next.waiting;
    for (const x of next.fresh) pending.add(x);
    if (pending.size > 0 && !timer) timer = setTimeout(fire, SETTLE_MS);
  };

  onChange(useWindow.getState());
  const off = useWindow.subscribe(onChange);
  return () => {
    off();
    clearTimeout(timer);
  };
}

import type { DecisionChoice } from '../../shared/contract';
import { create } from 'zustand';
import type { HostHealthRow, PromptItem, PsRow, Topology } from '../../shared/contract';
import type { Transport } from './transport';

export type Route = { page: 'topology' } | { page: 'seat'; seat: string } | { page: 'decisions' };

export interface DecisionItem {
  id: number;
  seat: string;
  rig: string;
  reason: string;
  choices: DecisionChoice[];
  evidence?: Record<string, unknown>;
  conversationId?: string | null;
  state?: string;
}

interface AppState {
  transport?: Transport;
  status: 'connecting' | 'open' | 'closed';
  topology: Topology;
  seats: Record<string, PsRow>;
  /** Remote hosts' health, pushed with the seats (empty when every seat is local). */
  hosts: HostHealthRow[];
  decisions: DecisionItem[] | 'unavailable';
  /** Seats waiting for a person right now (pushed by the host with the seats). */
  prompts: PromptItem[];
  route: Route;
  lastError?: string;
  setRoute(r: Route): void;
}

export const useApp = create<AppState>((set) => ({
  status: 'connecting',
  topology: { rigs: [] },
  seats: {},
  hosts: [],
  decisions: [],
  prompts: [],
  route: routeFromHash(typeof location === 'undefined' ? '' : location.hash),
  setRoute: (route) => {
    set({ route });
    const h = hashFor(route);
    if (typeof location !== 'undefined' && location.hash !== h)
      history.replaceState(null, '', `${location.pathname}${location.search}${h}`);
  },
}));

export function routeFromHash(hash: string): Route {
  const m = /^#\/seat\/(.+)$/.exec(hash);
  if (m) {
    try {
      return { page: 'seat', seat: decodeURIComponent(m[1]!) };
    } catch {
      return { page: 'topology' };
    }
  }
  if (hash === '#/decisions') return { page: 'decisions' };
  return { page: 'topology' };
}

export function hashFor(r: Route): string {
  return r.page === 'seat' ? `#/seat/${encodeURIComponent(r.seat)}` : r.page === 'decisions' ? '#/decisions' : '#/';
}

/** What a seat's badge says: ps state first (a stopped seat has no activity), then activity. */
export function badgeOf(row: PsRow | undefined): { label: string; tone: string } {
  if (!row) return { label: 'unknown', tone: 'unknown' };
  if (row.state === 'stopped') return { label: 'stopped', tone: 'stopped' };
  if (row.state === 'gone') return { label: 'detached', tone: 'detached' };
  if (row.state === 'unknown') return { label: 'unknown', tone: 'unknown' };
  if (row.activity === 'needs_input')
    return { label: `needs input${row.needsInput ? `: ${row.needsInput}` : ''}`, tone: 'needs_input' };
  return { label: row.activity, tone: row.activity };
}

/** Loads topology and decisions; `decisions` may not exist on an older engine, which reads as none. */
export async function reload(t: Transport): Promise<void> {
  const topo = await t.request('topology', {});
  if (topo.ok) useApp.setState({ topology: { rigs: topo.rigs } });
  else useApp.setState({ lastError: topo.message });
  const d = await t.request('decisions', {});
  useApp.setState({
    decisions: d.ok ? d.decisions : d.code === 'BAD_USAGE' && /unknown method/.test(d.message) ? 'unavailable' : [],
  });
}

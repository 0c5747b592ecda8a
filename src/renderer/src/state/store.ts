import { create } from 'zustand';
import type {
  ClientAnswer,
  EventRow,
  HostHealthRow,
  PromptItem,
  PsRow,
  RuntimeFound,
  TmuxStuck,
  Topology,
  WindowLayout,
} from '../../../shared/contract';
import type { Failure } from '../../../shared/errors';
import { DEFAULT_LAYOUT } from './grid';
import type { StateWord } from './seat-state';

/** A restore decision as the engine answers `decisions` (its type comes from the contract). */
export type Decision = ClientAnswer<'decisions'>['decisions'][number];

/** What the window says back after an action: done, or a refusal shown as data (code, message, hint). */
export type Note =
  | { id: number; kind: 'done'; text: string }
  | { id: number; kind: 'refusal'; what: string; failure: Failure };

/** The dialogs an action can open; one at a time. */
export type Dialog =
  | { kind: 'confirm'; title: string; body: string; confirm: string; run: () => Promise<unknown> }
  | { kind: 'fresh'; seat: string }
  | { kind: 'fork'; seat: string }
  | { kind: 'send'; seat: string }
  | { kind: 'queue'; seat: string }
  | { kind: 'up'; path?: string }
  | { kind: 'newRig' }
  | { kind: 'changes'; seat: string }
  | { kind: 'devices' };

export interface WindowState {
  status: 'connecting' | 'open' | 'closed';
  topology: Topology;
  /** False until the first topology answer: an empty rig list before it is not "no rig yet". */
  loaded: boolean;
  seats: Record<string, PsRow>;
  hosts: HostHealthRow[];
  /** Rigdesk's tmux server is stuck (the connection chip names it), from the latest seats push. */
  stuck?: TmuxStuck;
  prompts: PromptItem[];
  decisions: Decision[];
  layout: WindowLayout;
  filter?: StateWord;
  /**
   * Per seat: when the person last had it on screen. A seat whose state changed after that is
   * unread (it changed, or worked and printed, while nobody looked).
   */
  seenAt: Record<string, number>;
  /** Per seat: when this window saw its last turn end (a new `turnEndedAt`); unread until seenAt passes it. */
  turnEnded: Record<string, number>;
  /** When this window first saw each seat's current state (until ps rows carry stateSince). */
  stateSeen: Record<string, { key: string; at: number }>;
  /** Live events, newest last, bounded: the timeline of the focused seat grows from them. */
  events: EventRow[];
  notes: Note[];
  dialog?: Dialog;
  palette: boolean;
  help: boolean;
  find: boolean;
  /** The card of the Decisions panel that the approve / deny keys answer. */
  focusedDecision?: string;
  /** Bumped when an answer is recorded: the Decisions history reloads. */
  historyTick: number;
  /** Bumped to move the keyboard into the focused pane's terminal. */
  focusTick: number;
  /** False while the window is hidden (another tab, minimized). */
  visible: boolean;
  /** The agent CLIs on this machine and the bundled example rig, for the first-run paths. */
  runtimes: RuntimeFound[];
  example?: string;
  /** The rig the timeline and the restore review show (the first rig when unset or gone). */
  viewRig?: string;
}

export const useWindow = create<WindowState>(() => ({
  status: 'connecting',
  topology: { rigs: [] },
  loaded: false,
  seats: {},
  hosts: [],
  prompts: [],
  decisions: [],
  layout: DEFAULT_LAYOUT,
  seenAt: {},
  turnEnded: {},
  stateSeen: {},
  events: [],
  notes: [],
  palette: false,
  help: false,
  find: false,
  historyTick: 0,
  focusTick: 0,
  visible: true,
  runtimes: [],
}));

let noteId = 1;
const MAX_NOTES = 4;

export function noteDone(text: string): void {
  useWindow.setState((s) => ({ notes: [...s.notes, { id: noteId++, kind: 'done' as const, text }].slice(-MAX_NOTES) }));
}

export function noteRefusal(what: string, failure: Failure): void {
  useWindow.setState((s) => ({
    notes: [...s.notes, { id: noteId++, kind: 'refusal' as const, what, failure }].slice(-MAX_NOTES),
  }));
}

export function dismissNote(id: number): void {
  useWindow.setState((s) => ({ notes: s.notes.filter((n) => n.id !== id) }));
}

/** Every seat the topology records, in spec order (rig, pod, member). */
export function allSeats(t: Topology): string[] {
  return t.rigs.flatMap((r) => r.pods.flatMap((p) => p.seats.map((s) => s.seat)));
}

export function openDecisionFor(decisions: readonly Decision[], seat: string): Decision | undefined {
  return decisions.find((d) => d.seat === seat && (!d.state || d.state === 'open'));
}

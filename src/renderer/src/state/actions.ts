import {
  type CentreView,
  type ClientMethod,
  type ClientParams,
  type ClientResult,
  type DecisionChoice,
  type Grid,
  type PromptChoice,
  type PromptItem,
  VIEWS,
} from '../../../shared/contract';
import type { Transport } from '../transport';
import { clearSlot, focusSlot, openSeat, pinSeat, setGrid, slotOf, togglePin, visibleSlots } from './grid';
import { type Decision, noteDone, noteRefusal, useWindow } from './store';

/**
 * Every action the window offers, through the same engine requests as the CLI: a refusal is shown
 * as the engine gave it (code, message, hint) and nothing else happens.
 */
let transport: Transport | undefined;
export function setTransport(t: Transport): void {
  transport = t;
}

export async function call<M extends ClientMethod>(
  method: M,
  params: ClientParams<M>,
  what: string,
  opts: { quiet?: boolean } = {},
): Promise<ClientResult<M> | undefined> {
  if (!transport) return undefined;
  const r = await transport.request(method, params);
  // A dialog shows its own refusal in place; elsewhere it is a note that stays until dismissed.
  if (!r.ok && !opts.quiet) noteRefusal(what, r);
  return r;
}

/** The reason every answer from the window carries, so the event log says where it came from. */
export const WINDOW_REASON = 'answered from the Rigdesk window';

const shellQuote = (a: string) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`);

// ---- seats ------------------------------------------------------------------------------------

export async function launch(seat: string, fresh = false): Promise<void> {
  const r = await call(
    'launch',
    { seat, ...(fresh ? { fresh: true } : {}) },
    `launch${fresh ? ' --fresh' : ''} ${seat}`,
  );
  if (r?.ok) noteDone(`${seat}: launched${fresh ? ' on a new conversation' : ''}`);
}

export function askStop(seat: string): void {
  useWindow.setState({
    dialog: {
      kind: 'confirm',
      title: `Stop ${seat}?`,
      body: 'Its tmux session is ended by exact cleanup and the stop is recorded as intentional. The conversation stays on disk; Launch resumes it.',
      confirm: 'Stop',
      run: async () => {
        const r = await call('stop', { seat }, `stop ${seat}`);
        if (r?.ok) noteDone(`${seat}: stopped`);
        return r;
      },
    },
  });
}

export async function restart(seat: string): Promise<void> {
  noteDone(`${seat}: restarting on the same conversation…`);
  const r = await call('restart', { seat, keepConversation: true }, `restart ${seat} --keep-conversation`);
  if (r?.ok) noteDone(`${seat}: restarted on the same conversation`);
}

export const askFresh = (seat: string) => useWindow.setState({ dialog: { kind: 'fresh', seat } });
export const askFork = (seat: string) => useWindow.setState({ dialog: { kind: 'fork', seat } });
export const askSend = (seat: string) => useWindow.setState({ dialog: { kind: 'send', seat } });
export const askQueue = (seat: string) => useWindow.setState({ dialog: { kind: 'queue', seat } });
export const askUp = () => useWindow.setState({ dialog: { kind: 'up' } });
export const askNewRig = () => useWindow.setState({ dialog: { kind: 'newRig' } });

export function askDown(rig: string): void {
  useWindow.setState({
    dialog: {
      kind: 'confirm',
      title: `Take ${rig} down?`,
      body: 'A snapshot is taken first, then every seat of the rig is stopped. `restore` brings it back.',
      confirm: 'Take down',
      run: async () => {
        const r = await call('down', { rig }, `down ${rig}`);
        if (r?.ok) noteDone(`${rig}: taken down`);
        return r;
      },
    },
  });
}

/** Copies `rigdesk attach`'s command; where the clipboard is refused, the note shows it to copy by hand. */
export async function copyAttach(seat: string): Promise<void> {
  const r = await call('attach', { seat }, `attach ${seat}`);
  if (!r?.ok) return;
  const line = r.argv.map((a: string) => shellQuote(a)).join(' ');
  const ok = await writeClipboard(line);
  noteDone(ok ? `copied: ${line}` : `attach with: ${line}`);
}

async function writeClipboard(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    document.body.appendChild(area);
    area.select();
    const ok = document.execCommand('copy');
    area.remove();
    return ok;
  }
}

// ---- decisions --------------------------------------------------------------------------------

const ANSWERED: Record<PromptChoice, string> = {
  approve: 'approved',
  allow_always: 'allowed always',
  deny: 'denied',
  deny_with_message: 'denied, with your message',
  option: 'answered',
  other: 'answered in your words',
};

export async function answerPrompt(
  p: PromptItem,
  choice: PromptChoice,
  message?: string,
  option?: number,
): Promise<boolean> {
  const r = await call(
    'prompts.answer',
    {
      seat: p.seat,
      choice,
      reason: WINDOW_REASON,
      by: 'window',
      ...(p.fingerprint ? { fingerprint: p.fingerprint } : {}),
      ...(message !== undefined ? { message } : {}),
      ...(option !== undefined ? { option } : {}),
    },
    `${choice.replace(/_/g, ' ')} ${p.seat}`,
  );
  if (r?.ok) noteDone(`${p.seat}: ${ANSWERED[choice]}`);
  return r?.ok === true;
}

export async function decide(d: Decision, choice: DecisionChoice, reason: string): Promise<boolean> {
  const r = await call('decide', { id: d.id, choice, reason }, `decide ${d.id} ${choice}`);
  if (r?.ok) noteDone(`${d.seat}: ${choice.replace(/_/g, ' ')}`);
  return r?.ok === true;
}

/** The card the approve / deny keys answer: the one with the focus, else the focused seat's, else the first. */
export function focusedPrompt(): PromptItem | undefined {
  const s = useWindow.getState();
  const seat = visibleSlots(s.layout)[s.layout.focus];
  const answerable = s.prompts.filter((p) => p.choices.length > 0);
  return (
    answerable.find((p) => p.seat === s.focusedDecision) ?? answerable.find((p) => p.seat === seat) ?? answerable[0]
  );
}

export async function answerFocused(choice: 'approve' | 'deny'): Promise<void> {
  const p = focusedPrompt();
  if (!p) return noteDone('no prompt waits for an answer');
  if (!p.choices.includes(choice)) return noteDone(`${p.seat}: ${p.note ?? `${choice} is not offered here`}`);
  await answerPrompt(p, choice);
}

// ---- the grid ---------------------------------------------------------------------------------

const layoutOf = () => useWindow.getState().layout;
const setLayout = (l: ReturnType<typeof layoutOf>) => useWindow.setState({ layout: l });

/**
 * Focuses a seat's pane, opening it in the focused slot when it is not visible (`fill`: in an
 * empty slot first, as a click in the rail does).
 */
export function focusSeat(seat: string, opts: { fill?: boolean } = {}): void {
  setLayout(openSeat(layoutOf(), seat, opts));
  useWindow.setState((s) => ({ focusTick: s.focusTick + 1 }));
}

export const pin = (seat: string) => setLayout(pinSeat(layoutOf(), seat));
export const togglePinAt = (slot: number) => setLayout(togglePin(layoutOf(), slot));
export const pinFocused = () => togglePinAt(layoutOf().focus);
export const closeSlot = (slot: number) => setLayout(clearSlot(layoutOf(), slot));
export const layout = (g: Grid) => setLayout(setGrid(layoutOf(), g));
export const magnify = () => setLayout({ ...layoutOf(), magnified: !layoutOf().magnified });
export const toggleRail = () => setLayout({ ...layoutOf(), rail: !layoutOf().rail });

export function focusSlotN(n: number): void {
  setLayout(focusSlot(layoutOf(), n - 1));
  useWindow.setState((s) => ({ focusTick: s.focusTick + 1 }));
}

/** The centre's view: the grid, the topology, the rig timeline, the restore review or usage (kept in the layout). */
export const showView = (view: CentreView) => setLayout({ ...layoutOf(), view });
export function nextView(): void {
  const at = VIEWS.indexOf(layoutOf().view ?? 'grid');
  showView(VIEWS[(at + 1) % VIEWS.length]!);
}

/**
 * Opens a seat where its terminal is: focused in the grid (an empty slot first), with the grid
 * shown (a rail row opens its terminal whichever view the centre shows).
 */
export function openInGrid(seat: string): void {
  focusSeat(seat, { fill: true });
  showView('grid');
}

export function showPanel(panel: 'decisions' | 'details'): void {
  const l = layoutOf();
  setLayout({ ...l, panel: l.panel === panel ? 'none' : panel });
}

/** The seat that has waited longest for the person: the oldest needs-input state, prompts first. */
export function waitingLongest(): string | undefined {
  const s = useWindow.getState();
  const waiting = Object.values(s.seats).filter((r) => r.state === 'running' && r.activity === 'needs_input');
  const at = (seat: string, stateSince?: number) => stateSince ?? s.stateSeen[seat]?.at ?? Number.MAX_SAFE_INTEGER;
  const first = waiting.sort((a, b) => at(a.seat, a.stateSince) - at(b.seat, b.stateSince))[0];
  if (first) return first.seat;
  return s.decisions.find((d) => !d.state || d.state === 'open')?.seat;
}

export function jump(): void {
  const seat = waitingLongest();
  if (!seat) {
    noteDone('nothing waits for you');
    return;
  }
  focusSeat(seat);
  useWindow.setState({ focusedDecision: seat });
}

export const isVisible = (seat: string) => slotOf(layoutOf(), seat) >= 0;

/** Queues work for a seat; a seat with no live writer gets it for its next run. */
export async function noteQueued(seat: string, text: string): Promise<boolean> {
  const running = useWindow.getState().seats[seat]?.state === 'running';
  const r = await call(
    'queue.add',
    { seat, text, by: 'window', ...(running ? {} : { forNextResume: true }) },
    `queue work for ${seat}`,
  );
  if (r?.ok) noteDone(`${seat}: work queued`);
  return r?.ok === true;
}

import type { PromptItem, PsRow } from '../../../shared/contract';

/**
 * One word per seat, the same for the rail's rows (`data-state`), the top strip's counts
 * (`data-count`) and the palette's search: what the person needs to know first. Every seat has
 * exactly one, so the counts add up to the number of seats.
 */
export const STATE_WORDS = ['needs_input', 'exited', 'starting', 'working', 'idle', 'unknown', 'stopped'] as const;
export type StateWord = (typeof STATE_WORDS)[number];

export const STATE_LABEL: Readonly<Record<StateWord, string>> = {
  needs_input: 'needs you',
  exited: 'exited',
  starting: 'starting',
  working: 'working',
  idle: 'idle',
  unknown: 'unknown',
  stopped: 'stopped',
};

/** The strip's count labels: "exited" covers seats whose session vanished (failed) too. */
export const COUNT_LABEL: Readonly<Record<StateWord, string>> = { ...STATE_LABEL, exited: 'exited or failed' };

/**
 * A stopped seat whose restore decision is open waits for the person as much as a prompt does, so
 * it reads needs_input (the reason says which decision).
 */
export function stateWord(row: PsRow | undefined, decisionOpen = false): StateWord {
  if (decisionOpen && row?.state !== 'running') return 'needs_input';
  if (!row) return 'unknown';
  if (row.state === 'stopped') return 'stopped';
  if (row.state === 'gone') return 'exited';
  if (row.state === 'unknown') return 'unknown';
  return row.activity;
}

/** "permission: Bash", "usage limit", "decision: transcript missing"; undefined when nothing waits. */
export function waitReason(
  row: PsRow | undefined,
  prompt: PromptItem | undefined,
  decisionReason: string | undefined,
): string | undefined {
  if (row?.activity === 'needs_input' && row.state === 'running') {
    const why = (row.needsInput ?? prompt?.reason ?? 'input').replace(/_/g, ' ');
    return prompt?.tool ? `${why}: ${prompt.tool}` : why;
  }
  if (decisionReason) return `decision: ${decisionReason.replace(/_/g, ' ')}`;
  if (row?.reason === 'host_unreachable') return 'host unreachable';
  if (row?.activity === 'unknown' && row.activityWhy) return row.activityWhy;
  return undefined;
}

/** Who writes the seat's conversation, in the rail's words. */
export function custodyText(row: PsRow | undefined): string | undefined {
  const c = row?.custody;
  if (!c) return row?.state === 'running' && row.conversationId ? 'writer: this seat' : undefined;
  if (c.writer === 'this_seat') return 'writer: this seat';
  if (c.writer === 'none') return undefined;
  if (c.writer === 'unknown') return `writer unknown${c.why ? ` (${c.why})` : ''}`;
  if (c.service === 'daemon') return `live elsewhere: a daemon${c.host ? ` on ${c.host}` : ''}`;
  if (c.paneId) return `live elsewhere: pane ${c.paneId}${c.server ? ` on server ${c.server}` : ''}`;
  if (c.pid !== undefined) return `live elsewhere: pid ${c.pid}${c.host ? ` on ${c.host}` : ''}`;
  return 'live elsewhere';
}

/** The attention order: what needs you first, then what changed since you looked, then the rest. */
export function attentionRank(word: StateWord, unread: boolean): number {
  if (word === 'needs_input') return 0;
  if (word === 'exited') return 1;
  if (unread) return 2;
  return { starting: 3, working: 3, idle: 4, unknown: 5, stopped: 6 }[word];
}

/** Stable: equal ranks keep the spec's order, so rows move only when their rank does. */
export function attentionOrder<T>(items: readonly T[], rank: (t: T) => number): T[] {
  return items
    .map((t, i) => ({ t, i, r: rank(t) }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .map((x) => x.t);
}

/** "just now", "15 s", "4 min", "3 h", "2 d": how long a seat has been in its state (seconds by 15). */
export function since(ms: number | undefined, now: number): string {
  if (ms === undefined) return '';
  const s = Math.max(0, Math.round((now - ms) / 1000));
  // Quarter-minute steps: a young label changes 4 times in its first minute, not 12 (each change
  // is a paint of the rail), and a minute at most after that.
  if (s < 15) return 'just now';
  if (s < 60) return `${Math.floor(s / 15) * 15} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h`;
  return `${Math.floor(s / 86_400)} d`;
}

/** What an empty grid slot says of its seat: a waiting restore decision first, else its state. */
export function notRunningLine(seat: string, label: string | undefined, decisionReason?: string): string {
  if (decisionReason !== undefined)
    return `${seat} needs you: a restore decision waits (${decisionReason.replace(/_/g, ' ')}); see Decisions.`;
  return `${seat} is ${label ?? 'not reported yet'}.`;
}

/** Whether a decision's evidence says anything (an empty object is not shown as a box of braces). */
export function hasEvidence(e: unknown): boolean {
  if (e === undefined || e === null) return false;
  return typeof e !== 'object' || Object.keys(e).length > 0;
}

import type { PromptItem, PsRow, Topology } from '../../../shared/contract';
import { type Decision, allSeats, openDecisionFor } from './store';
import { stateWord, waitReason } from './seat-state';

/**
 * What a browser window tells when it is not looked at, pure: the page title's count, the
 * favicon's badge, and which seats a notification is owed for. The effect in tell.ts applies it.
 */

export const APP_TITLE = 'Rigdesk';

/** The seats that need the person, in spec order: the same rule as the strip's "needs you" count. */
export function needingSeats(
  topology: Topology,
  seats: Readonly<Record<string, PsRow>>,
  decisions: readonly Decision[],
): string[] {
  return allSeats(topology).filter((s) => stateWord(seats[s], !!openDecisionFor(decisions, s)) === 'needs_input');
}

/** "(2) Rigdesk", or plain "Rigdesk" when nothing waits. */
export function pageTitle(count: number): string {
  return count > 0 ? `(${count}) ${APP_TITLE}` : APP_TITLE;
}

/**
 * The favicon as an SVG data URL (the window's CSP allows data: images): the plain mark, and
 * with a count a red badge over it ("9+" above nine: a tab's icon has room for two characters).
 */
export function faviconUrl(count: number): string {
  const mark =
    '<rect x="2" y="2" width="60" height="60" rx="14" fill="#1f2937"/>' +
    '<text x="32" y="46" font-family="sans-serif" font-size="40" font-weight="700" fill="#e5e7eb" text-anchor="middle">R</text>';
  const label = count > 9 ? '9+' : String(count);
  const badge =
    count > 0
      ? '<circle cx="40" cy="24" r="24" fill="#dc2626"/>' +
        `<text x="40" y="37" font-family="sans-serif" font-size="${label.length > 1 ? 28 : 38}" font-weight="700" fill="#fff" text-anchor="middle">${label}</text>`
      : '';
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">${mark}${badge}</svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

/**
 * Which waiting seats are news: those that were not waiting at the last look. `watched` (the
 * seat whose pane has the focus in a visible window) is never news, yet it counts as waiting, so
 * looking away later from the same wait raises nothing (the Electron notifier's rule).
 */
export function freshWaits(
  before: ReadonlySet<string> | undefined,
  now: readonly string[],
  watched: string | undefined,
): { waiting: Set<string>; fresh: string[] } {
  const waiting = new Set(now);
  // The first look is what the person sees on opening the window: not news.
  if (!before) return { waiting, fresh: [] };
  return { waiting, fresh: now.filter((s) => !before.has(s) && s !== watched) };
}

/** The line of a prompt that says what it asks: the tool call of a read prompt block, else a question. */
export function askedLine(prompt: PromptItem | undefined): string | undefined {
  if (!prompt) return undefined;
  const clean = prompt.screen.map((l) => l.replace(/^[\s│┃|╭╰─●•⏺❯>]+|[\s│┃|╮╯─]+$/g, '')).filter((l) => l !== '');
  // Without a fingerprint the screen is only the pane's last lines: pick a question, never noise.
  const line = prompt.fingerprint ? clean[0] : clean.find((l) => l.endsWith('?'));
  return line && line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

export interface Notice {
  title: string;
  body: string;
  /** The seat a click focuses. */
  seat: string;
  /** One notification per seat (or one for a burst): a newer one replaces it. */
  tag: string;
}

export interface SeatFacts {
  seats: Readonly<Record<string, PsRow>>;
  prompts: readonly PromptItem[];
  decisions: readonly Decision[];
}

/** One notification for what is new: the seat's name, its reason and what it asks; a burst says how many. */
export function noticeFor(fresh: readonly string[], f: SeatFacts): Notice | undefined {
  const first = fresh[0];
  if (!first) return undefined;
  if (fresh.length > 1) {
    const names = fresh.slice(0, 3).join(', ') + (fresh.length > 3 ? ', …' : '');
    return { title: `${fresh.length} seats need you`, body: names, seat: first, tag: 'rigdesk-burst' };
  }
  const prompt = f.prompts.find((p) => p.seat === first);
  const reason = waitReason(f.seats[first], prompt, openDecisionFor(f.decisions, first)?.reason) ?? 'input';
  const asked = askedLine(prompt);
  return { title: first, body: asked ? `${reason}\n${asked}` : reason, seat: first, tag: `rigdesk-seat-${first}` };
}

import { describe, expect, it } from 'vitest';
import {
  askedLine,
  faviconUrl,
  freshWaits,
  needingSeats,
  noticeFor,
  pageTitle,
} from '../../src/renderer/src/state/attention';
import { DEFAULT_LAYOUT, fillEmpty, visibleSlots } from '../../src/renderer/src/state/grid';
import type { Decision } from '../../src/renderer/src/state/store';
import type { PromptItem, Topology } from '../../src/shared/contract';
import { psRowOf } from '../support/ps-row';

const row = psRowOf;

const topology = (members: string[]): Topology => ({
  rigs: [
    {
      name: 'r',
      pods: [{ id: 'p', seats: members.map((m) => ({ seat: `${m}@r`, member: m, runtime: 'claude-code', cwd: '/' })) }],
      edges: [],
    },
  ],
});

const openDecision = (seat: string): Decision => ({
  id: 1,
  seat,
  rig: 'r',
  kind: 'restore',
  reason: 'transcript_missing',
  runtime: 'claude-code',
  conversationId: null,
  snapshotId: null,
  choices: ['fresh', 'leave_stopped'],
  evidence: {},
  createdAt: 0,
  state: 'open',
  answer: null,
  answerReason: null,
  answeredAt: null,
  outcome: null,
});

const prompt = (seat: string, over: Partial<PromptItem> = {}): PromptItem => ({
  seat,
  rig: 'r',
  runtime: 'claude-code',
  reason: 'permission',
  tool: 'Bash',
  choices: ['approve', 'deny'],
  screen: ['', '● Bash(touch approved.txt)', '  Do you want to proceed?', '❯ 1. Yes'],
  fingerprint: '0123456789abcdef',
  ...over,
});

/** What the browser window tells, pure: the title's count, the badge, which waits are news. */
describe('the browser window tells', () => {
  it('counts the seats that need the person: at needs_input or with an open restore decision, each once', () => {
    const seats = {
      'a@r': row('a@r', { activity: 'needs_input', needsInput: 'permission' }),
      'b@r': row('b@r'),
      'c@r': row('c@r', { state: 'stopped', activity: 'unknown' }),
      'd@r': row('d@r', { activity: 'working' }),
    };
    expect(needingSeats(topology(['a', 'b', 'c', 'd']), seats, [openDecision('c@r')])).toEqual(['a@r', 'c@r']);
    expect(needingSeats(topology(['a', 'b', 'c', 'd']), seats, [])).toEqual(['a@r']);
  });

  it('the title carries the count; plain "Rigdesk" when nothing waits', () => {
    expect(pageTitle(2)).toBe('(2) Rigdesk');
    expect(pageTitle(0)).toBe('Rigdesk');
  });

  it('the favicon is the plain mark at zero and carries a badge with the count, "9+" above nine', () => {
    const svg = (n: number) => decodeURIComponent(faviconUrl(n).replace('data:image/svg+xml,', ''));
    expect(faviconUrl(0)).toMatch(/^data:image\/svg\+xml,/);
    expect(svg(0)).not.toContain('<circle');
    expect(svg(3)).toContain('<circle');
    expect(svg(3)).toMatch(/>3<\/text>/);
    expect(svg(12)).toMatch(/>9\+<\/text>/);
  });

  it('a wait is news once: not at the first look, not while it lasts, not for the watched pane, again after it ended', () => {
    expect(freshWaits(undefined, ['a@r'], undefined)).toEqual({ waiting: new Set(['a@r']), fresh: [] });
    let w = freshWaits(new Set(), ['a@r'], undefined);
    expect(w.fresh).toEqual(['a@r']);
    w = freshWaits(w.waiting, ['a@r'], undefined);
    expect(w.fresh).toEqual([]);
    // The seat whose pane has the focus in a visible window is not news, and looking away from
    // the same wait later raises nothing.
    w = freshWaits(w.waiting, ['a@r', 'b@r'], 'b@r');
    expect(w.fresh).toEqual([]);
    w = freshWaits(w.waiting, ['a@r', 'b@r'], undefined);
    expect(w.fresh).toEqual([]);
    // Answered, then waiting again: news again.
    w = freshWaits(w.waiting, ['b@r'], undefined);
    w = freshWaits(w.waiting, ['a@r', 'b@r'], undefined);
    expect(w.fresh).toEqual(['a@r']);
  });

  it("one seat's notification: its name, its reason, and the first line of what it asks", () => {
    const seats = { 'a@r': row('a@r', { activity: 'needs_input', needsInput: 'permission' }) };
    expect(noticeFor(['a@r'], { seats, prompts: [prompt('a@r')], decisions: [] })).toEqual({
      title: 'a@r',
      body: 'permission: Bash\nBash(touch approved.txt)',
      seat: 'a@r',
      tag: 'rigdesk-seat-a@r',
    });
    // Before the prompts push (or with none) the reason alone.
    expect(noticeFor(['a@r'], { seats, prompts: [], decisions: [] })?.body).toBe('permission');
    const limit = { 'a@r': row('a@r', { activity: 'needs_input', needsInput: 'usage_limit' }) };
    expect(noticeFor(['a@r'], { seats: limit, prompts: [], decisions: [] })?.body).toBe('usage limit');
    expect(noticeFor([], { seats, prompts: [], decisions: [] })).toBeUndefined();
  });

  it('what a prompt asks: the tool call of a read prompt block, else a question on screen, never noise', () => {
    expect(askedLine(prompt('a@r'))).toBe('Bash(touch approved.txt)');
    const tail = ['$ make', 'building…', '│ Which database should I use? │', '  1. Postgres'];
    expect(askedLine(prompt('a@r', { fingerprint: undefined, screen: tail }))).toBe('Which database should I use?');
    expect(askedLine(prompt('a@r', { fingerprint: undefined, screen: ['$ make', 'done'] }))).toBeUndefined();
    expect(askedLine(prompt('a@r', { screen: [`● Bash(${'x'.repeat(300)})`] }))?.length).toBe(120);
  });

  it('a burst of ten new waits is one notification that says ten', () => {
    const names = Array.from({ length: 10 }, (_, i) => `s${i}@r`);
    const seats = Object.fromEntries(
      names.map((s) => [s, row(s, { activity: 'needs_input', needsInput: 'question' })]),
    );
    const n = noticeFor(names, { seats, prompts: [], decisions: [] });
    expect(n).toMatchObject({ title: '10 seats need you', seat: 's0@r', tag: 'rigdesk-burst' });
    expect(n?.body).toBe('s0@r, s1@r, s2@r, …');
  });
});

describe('the first screen', () => {
  it('empty slots take the seats in the order given; a seat already shown keeps its slot and is not doubled', () => {
    const l = fillEmpty({ ...DEFAULT_LAYOUT }, ['n@r', 'a@r', 'b@r', 'c@r', 'd@r']);
    expect(visibleSlots(l)).toEqual(['n@r', 'a@r', 'b@r', 'c@r']);
    const kept = fillEmpty({ ...DEFAULT_LAYOUT, slots: [null, 'b@r'], pinned: [false, true] }, ['n@r', 'a@r', 'b@r']);
    expect(visibleSlots(kept)).toEqual(['n@r', 'b@r', 'a@r', undefined]);
    expect(kept.pinned[1]).toBe(true);
    const full = { ...DEFAULT_LAYOUT, slots: ['a@r', 'b@r', 'c@r', 'd@r'] };
    expect(fillEmpty(full, ['n@r'])).toBe(full);
  });
});

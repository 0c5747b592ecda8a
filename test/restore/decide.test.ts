import { describe, expect, it } from 'vitest';
import { choicesFor, decideSeat, rigOutcome, type SeatFacts } from '../../src/main/engine/restore/decide';

/** The restore decision table, one test per row (design.md invariant 7); no tmux, no files. */

const X = '11111111-2222-3333-4444-555555555555';
const base: SeatFacts = {
  seat: 'lead@crew',
  runtime: 'claude-code',
  runtimeKnown: true,
  canResume: true,
  hasConversations: true,
  restorePolicy: 'resume_if_possible',
  conversationId: X,
  stoppedOnPurpose: false,
  everRan: true,
  running: 'not_running',
  transcript: { state: 'present', path: `/h/projects/-w/${X}.jsonl` },
  live: { state: 'free' },
};
const f = (over: Partial<SeatFacts>): SeatFacts => ({ ...base, ...over });

describe('restore decision table', () => {
  it('transcript present, free, resumable: resume the exact conversation', () => {
    expect(decideSeat(base)).toMatchObject({ action: 'resume', conversationId: X });
  });
  it('no conversation recorded for a seat that ran before: a decision, never a silent fresh start', () => {
    expect(decideSeat(f({ conversationId: null }))).toMatchObject({
      action: 'awaiting_decision',
      reason: 'conversation_unrecorded',
      conversationId: null,
    });
  });
  it('no conversation recorded for a seat that never ran: fresh (nothing to lose)', () => {
    expect(decideSeat(f({ conversationId: null, everRan: false }))).toMatchObject({ action: 'fresh' });
  });
  it('transcript missing: awaiting_decision with where it looked', () => {
    expect(decideSeat(f({ transcript: { state: 'missing', looked: '/h' } }))).toMatchObject({
      action: 'awaiting_decision',
      reason: 'transcript_missing',
      conversationId: X,
    });
  });
  it('transcript present but the runtime cannot resume: awaiting_decision, not fresh', () => {
    expect(decideSeat(f({ canResume: false }))).toMatchObject({
      action: 'awaiting_decision',
      reason: 'runtime_cannot_resume',
    });
  });
  it('policy fresh: fresh, even with a transcript present', () => {
    expect(decideSeat(f({ restorePolicy: 'fresh' }))).toMatchObject({
      action: 'fresh',
      why: expect.stringMatching(/policy is fresh/),
    });
  });
  it('policy never: skipped, nothing launched and no decision', () => {
    expect(decideSeat(f({ restorePolicy: 'never' }))).toMatchObject({ action: 'skipped_policy' });
  });
  it('stopped on purpose: skipped_stopped, whatever else is true', () => {
    expect(decideSeat(f({ stoppedOnPurpose: true, transcript: { state: 'missing', looked: '/h' } }))).toMatchObject({
      action: 'skipped_stopped',
    });
  });
  it('live elsewhere: refused with CONVERSATION_LIVE_ELSEWHERE and the owner evidence', () => {
    const evidence = { owners: [{ pid: 42, paneId: '%3' }] };
    expect(decideSeat(f({ live: { state: 'owned_elsewhere', message: 'open in pid 42', evidence } }))).toMatchObject({
      action: 'refused',
      code: 'CONVERSATION_LIVE_ELSEWHERE',
      evidence,
    });
  });
  it('live elsewhere wins over a missing transcript (custody first)', () => {
    expect(
      decideSeat(
        f({
          transcript: { state: 'missing', looked: '/h' },
          live: { state: 'owned_elsewhere', message: 'm', evidence: {} },
        }),
      ),
    ).toMatchObject({ action: 'refused', code: 'CONVERSATION_LIVE_ELSEWHERE' });
  });
  it('custody evidence unreadable: refused EVIDENCE_UNREADABLE (fails closed, never resume or fresh)', () => {
    expect(
      decideSeat(
        f({
          live: { state: 'unprovable', code: 'EVIDENCE_UNREADABLE', message: 'sessions/ unreadable', evidence: {} },
        }),
      ),
    ).toMatchObject({ action: 'refused', code: 'EVIDENCE_UNREADABLE' });
  });
  it('owner unknown (a Pi process in the same folder): refused CONVERSATION_OWNER_UNKNOWN', () => {
    expect(
      decideSeat(
        f({
          runtime: 'pi',
          live: { state: 'unprovable', code: 'CONVERSATION_OWNER_UNKNOWN', message: 'pi in cwd', evidence: {} },
        }),
      ),
    ).toMatchObject({ action: 'refused', code: 'CONVERSATION_OWNER_UNKNOWN' });
  });
  it('transcript evidence unreadable: awaiting_decision (fails closed, no launch)', () => {
    expect(decideSeat(f({ transcript: { state: 'unreadable', error: 'EACCES' } }))).toMatchObject({
      action: 'awaiting_decision',
      reason: 'evidence_unreadable',
    });
  });
  it("no transcript path known for the runtime: resume, and the runtime's own report decides", () => {
    expect(decideSeat(f({ transcript: { state: 'unknown' } }))).toMatchObject({ action: 'resume', conversationId: X });
  });
  it('its own session still runs: verify it, never launch a second', () => {
    expect(decideSeat(f({ running: 'running', stoppedOnPurpose: true }))).toMatchObject({ action: 'verify_running' });
  });
  it('cannot tell whether its own session runs: refused (fails closed)', () => {
    expect(decideSeat(f({ running: 'unknown' }))).toMatchObject({ action: 'refused', code: 'EVIDENCE_UNREADABLE' });
  });
  it('a runtime with no conversations (shell): fresh', () => {
    expect(
      decideSeat(f({ runtime: 'shell', hasConversations: false, canResume: false, conversationId: null })),
    ).toMatchObject({ action: 'fresh' });
  });
  it('an unknown runtime: refused RUNTIME_UNKNOWN', () => {
    expect(decideSeat(f({ runtimeKnown: false }))).toMatchObject({ action: 'refused', code: 'RUNTIME_UNKNOWN' });
  });
});

describe('rig outcome', () => {
  it('all restored (resumed, fresh, running) is fully_restored; skipped seats do not degrade it', () => {
    expect(rigOutcome(['resumed', 'fresh', 'running', 'skipped_stopped', 'skipped_policy'])).toBe('fully_restored');
  });
  it('some restored is partially_restored', () => {
    expect(rigOutcome(['resumed', 'awaiting_decision'])).toBe('partially_restored');
    expect(rigOutcome(['resumed', 'refused'])).toBe('partially_restored');
  });
  it('none restored is failed', () => {
    expect(rigOutcome(['failed', 'awaiting_decision', 'skipped_stopped'])).toBe('failed');
  });
  it('a seat up at a dialog (attention_required) is not restored, but never makes the rig failed', () => {
    expect(rigOutcome(['resumed', 'attention_required'])).toBe('partially_restored');
    expect(rigOutcome(['attention_required', 'attention_required'])).toBe('partially_restored');
    expect(rigOutcome(['attention_required', 'failed'])).toBe('partially_restored');
  });
  it('nothing to restore is fully_restored', () => {
    expect(rigOutcome(['skipped_stopped'])).toBe('fully_restored');
    expect(rigOutcome([])).toBe('fully_restored');
  });
});

describe('decision choices', () => {
  it('offer resume only when there is an id a runtime can resume', () => {
    expect(choicesFor('transcript_missing', X, true)).toEqual(['resume', 'fresh', 'leave_stopped']);
    expect(choicesFor('conversation_unrecorded', null, true)).toEqual(['fresh', 'leave_stopped']);
    expect(choicesFor('runtime_cannot_resume', X, false)).toEqual(['fresh', 'leave_stopped']);
  });
});

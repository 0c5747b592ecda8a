/**
 * Gemini holds no lock and keeps no file open: argv is its only evidence. A Gemini whose argv names
 * the conversation owns it; a Gemini in the same folder and home whose argv names none (a bare
 * `gemini`, `--resume latest`) may be writing it, and that doubt refuses.
 */
import { describe, expect, it } from 'vitest';
import { checkConversationFree } from '../../../src/main/engine/custody/guard';
import type { Roster, RosterAgent } from '../../../src/main/engine/roster/types';

const X = '65abc67d-5f95-4122-a01e-6ef385c5cef5';
const agent = (o: Partial<RosterAgent> = {}): RosterAgent => ({
  runtime: 'gemini',
  pid: 700,
  startTime: '9001',
  argv: ['node', '/p/node_modules/.bin/gemini'],
  cwd: '/w/work',
  home: '/h/gm',
  ...o,
});
const roster = (o: Partial<Roster> = {}): Roster => ({
  takenAt: 1,
  servers: [],
  panes: [],
  agents: [],
  claims: [],
  problems: [],
  ...o,
});
const q = { runtime: 'gemini', conversationId: X, cwd: '/w/work', home: '/h/gm' };

describe('gemini custody', () => {
  it('a live Gemini whose argv names X (headless or in a pane) owns X: CONVERSATION_LIVE_ELSEWHERE', () => {
    const a = agent({
      argv: ['node', '/p/node_modules/.bin/gemini', '--resume', X, '-p', 'hi'],
      conversationId: X,
      conversationSource: 'argv',
    });
    const r = checkConversationFree(
      roster({
        agents: [a],
        claims: [{ runtime: 'gemini', conversationId: X, pid: 700, source: 'argv', home: '/h/gm' }],
      }),
      q,
    );
    expect(r).toMatchObject({
      ok: false,
      code: 'CONVERSATION_LIVE_ELSEWHERE',
      evidence: { owners: [{ pid: 700, headless: true, source: 'argv' }] },
    });
  });

  it('a live Gemini in the same folder and home that names no conversation is doubt: CONVERSATION_OWNER_UNKNOWN', () => {
    const r = checkConversationFree(roster({ agents: [agent()] }), q);
    expect(r).toMatchObject({
      ok: false,
      code: 'CONVERSATION_OWNER_UNKNOWN',
      evidence: { candidates: [{ pid: 700, cwd: '/w/work' }] },
    });
  });

  it("no doubt from a Gemini in another folder, another home, on another named conversation, or the seat's own", () => {
    for (const a of [
      agent({ cwd: '/w/other' }),
      agent({ home: '/h/person' }),
      agent({ conversationId: '0e0e0e0e-1111-4222-8333-444455556666' }),
    ]) {
      expect(checkConversationFree(roster({ agents: [a] }), q).ok).toBe(true);
    }
    expect(checkConversationFree(roster({ agents: [agent()] }), { ...q, allowPids: [700] }).ok).toBe(true);
  });
});

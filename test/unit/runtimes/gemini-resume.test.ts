/**
 * A Gemini resume's progress, read from the transcript's records in the order Gemini 0.61.0 wrote
 * them when a conversation was resumed in the minute it began (measured: the resume's new record
 * landed in the conversation's own file; a kill before the resume mark left it unresumable).
 */
import { describe, expect, it } from 'vitest';
import { geminiTakingUp } from '../../../src/main/engine/runtimes/gemini-resume';

const ID = '797a26a8-778c-4b48-a1cf-e7a141c6987b';
const header = (t: string) =>
  JSON.stringify({ sessionId: ID, projectHash: 'e9f1', startTime: t, lastUpdated: t, kind: 'main' });
const context = JSON.stringify({ $set: { messages: [{ id: 'ctx', type: 'user', content: '<session_context>' }] } });
const user = JSON.stringify({ id: 'u1', timestamp: 't', type: 'user', content: [{ text: 'hello' }] });
const reply = JSON.stringify({ id: 'g1', timestamp: 't', type: 'gemini', content: 'ACK hello' });
const touched = JSON.stringify({ $set: { lastUpdated: 't' } });
const mark = JSON.stringify({ $set: { sessionId: ID } });
const full = JSON.stringify({ $set: { messages: [{ id: 'u1' }, { id: 'g1' }] } });
const file = (...lines: string[]) => `${lines.join('\n')}\n`;

describe("geminiTakingUp: a resume's new record in the conversation's file, not yet taken up", () => {
  const began = [header('a'), context, user, touched, reply, touched];

  it('a conversation as it began is not being taken up (its header is its first line)', () => {
    expect(geminiTakingUp(file(...began))).toBe(false);
    expect(geminiTakingUp(file(header('a')))).toBe(false);
  });

  it("a resume's header and empty messages after it, with no resume mark: taking up", () => {
    expect(geminiTakingUp(file(...began, header('b')))).toBe(true);
    expect(geminiTakingUp(file(...began, header('b'), context))).toBe(true);
  });

  it('the resume mark after that header ends it, with or without the full messages yet', () => {
    expect(geminiTakingUp(file(...began, header('b'), context, mark))).toBe(false);
    expect(geminiTakingUp(file(...began, header('b'), context, mark, full, user))).toBe(false);
  });

  it('a second resume in the same minute is taking up again until its own mark', () => {
    const once = [...began, header('b'), context, mark, full];
    expect(geminiTakingUp(file(...once, header('c'), context))).toBe(true);
    expect(geminiTakingUp(file(...once, header('c'), context, mark))).toBe(false);
  });

  it('a line being written is skipped, and a resume in a later minute leaves this file alone', () => {
    expect(geminiTakingUp(file(...began, header('b'), context, '{"$set":{"sessionI'))).toBe(true);
    // In a later minute the new record is a file of its own; this one only gets the mark.
    expect(geminiTakingUp(file(...began, mark, full))).toBe(false);
    expect(geminiTakingUp('')).toBe(false);
  });
});

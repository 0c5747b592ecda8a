/**
 * What the taking-up tests share: a Gemini conversation's records as Gemini writes them, around a
 * resume (its own start, a resume's new empty record, the mark that the resume was taken up), and
 * a clock the test steps: each poll's sleep moves it on by the poll's length and calls `onPoll`.
 */
import { type Clock, systemClock } from '../../src/main/engine/deps';

export const ID = '0b7e2f10-4c1d-4e6a-9f3b-2a5c8d9e1f00';
const line = (r: object) => `${JSON.stringify(r)}\n`;
export const header = line({ sessionId: ID, projectHash: 'p', startTime: 't', lastUpdated: 't', kind: 'main' });
export const messages = line({ id: 'u1', type: 'user', content: [{ text: 'hello' }] });
export const emptied = line({ $set: { messages: [] } });
export const mark = line({ $set: { sessionId: ID } });
/** The transcript's name in the chats folder (the minute and the id's first 8 characters). */
export const transcriptName = `session-2026-12-03T18-32-${ID.slice(0, 8)}.jsonl`;

export function steppedClock(onPoll?: (n: number) => void): { clock: Clock; polls: () => number } {
  let now = 1_000_000;
  let n = 0;
  const clock: Clock = {
    ...systemClock,
    now: () => now,
    sleep: async (ms) => {
      now += ms;
      onPoll?.(++n);
    },
  };
  return { clock, polls: () => n };
}

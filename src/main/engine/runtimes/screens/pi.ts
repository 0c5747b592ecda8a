import { lastIndexMatching, type ScreenReading, type ScreenText } from '../types';

/**
 * Pi's screen (observed on 0.73.1): the editor is the text between the last two `────` rules;
 * a turn shows `⠏ Working...` above it. Idle has no text of its own: it is the editor without the
 * working line. Pi never asks permission. A 429 prints `Error: 429 …` lines and returns to idle.
 */
export const PI_SCREEN = {
  rule: /^─{8,}\s*$/,
  working: /^\s*\S? ?Working\.\.\./,
  usageLimit: /Error: (Retry failed after \d+ attempts: )?429\b/,
} as const;

export function readPiScreen({ plain }: ScreenText): ScreenReading {
  const b = lastIndexMatching(plain, PI_SCREEN.rule);
  const a = b > 0 ? lastIndexMatching(plain.slice(0, b), PI_SCREEN.rule) : -1;
  if (a < 0) return {};
  const draft = plain
    .slice(a + 1, b)
    .join('\n')
    .trim();
  const above = plain.slice(0, a).filter((l) => l.trim() !== '');
  const working = above.slice(-3).some((l) => PI_SCREEN.working.test(l));
  const reading: ScreenReading = {
    activity: working ? 'working' : 'idle',
    draft,
    matched: [working ? 'Working...' : 'editor, no working line'],
  };
  if (!working && above.slice(-3).some((l) => PI_SCREEN.usageLimit.test(l))) {
    reading.needsInput = 'usage_limit';
    reading.matched = ['Error: 429'];
  }
  return reading;
}

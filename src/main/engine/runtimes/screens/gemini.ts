import { lastIndexMatching, startsDim, type ScreenReading, type ScreenText } from '../types';

/**
 * Gemini CLI's screen (observed on 0.61.0, 160x45). The pane title, which Gemini sets by OSC on every
 * state change, is the primary signal: `◇  Ready (<dir>)`, `✦  Working… (<dir>)`,
 * `✋  Action Required (<dir>)`. The screen backs it up: ` ⠴ Thinking... (esc to cancel, 3s)` while
 * a turn runs, the input box ` >   Type your message or @path/to/file` (placeholder drawn grey)
 * under a `────` rule when idle, and a tool confirmation box (`Allow execution of [Shell]?`,
 * `● 1. Allow once`) that hides the input box.
 *
 * A 429 is NOT visible: Gemini retries behind the same `Thinking...` spinner and `Working…` title for
 * minutes (errorVerbosity `full` did not show its retry phrase for a 429 either). A turn that
 * works draws something after the prompt (`✦ ` reply text, a `│ ⊷ Shell` tool box); so a spinner
 * that has run `silentAfterS` with nothing drawn since the prompt is not claimed as working: the
 * reading leaves activity unknown and says why. The retry phrases Gemini does draw (other failures)
 * read as unknown too, with the phrase as the reason. The one place a 429 showed was local telemetry
 * (`telemetry.target: local` + `outfile`: a `gemini_cli.api_error` with `status_code: 429` per
 * attempt), but that file grew ~450 KB in a minute of one seat, so it is not switched on.
 */
export const GEMINI_SCREEN = {
  titleIdle: /^\s*◇\s+Ready\b/,
  titleWorking: /^\s*✦\s+Working/,
  titleAction: /^\s*✋\s+Action Required\b/,
  working: /\(esc to cancel, [^)]*\)/,
  retrying: /Trying to reach \S+ \(Attempt \d+\/\d+\)|This is taking a bit longer, we're still on it\./,
  rule: /^\s*─{8,}\s*$/,
  input: /^\s*> /,
  placeholder: /^Type your message or @path\/to\/file\s*$/,
  footer: /^\s*workspace \(\/directory\)|^\s*Shift\+Tab to accept edits|^\s*\? for shortcuts/,
  permission: /Allow execution of|Apply this change\?|Allow (?:execution|modification)|Do you want to proceed\?/,
  allowOnce: /^\s*│?\s*(●)?\s*1\.\s+(Allow once|Yes, allow once)/,
  usageLimit:
    /\[API Error: [^\]]*(?:429|RESOURCE_EXHAUSTED|Resource has been exhausted|[Qq]uota)|Usage limit reached|You have exhausted your (?:daily )?quota/,
  userLine: /^\s*> \S/,
  /** `(esc to cancel, 3s)`, `(esc to cancel, 4m 53s)`, `(esc to cancel, 1h 2m 3s)`: elapsed. */
  elapsed: /\(esc to cancel, (?:(\d+)h ?)?(?:(\d+)m ?)?(?:(\d+)s)?\)/,
  /** What a turn that is getting somewhere draws after the prompt: reply text, a tool box. */
  progress: /^\s*✦ \S|^\s*│\s*(?:⊷|✓|\?|x|✗)\s/,
  silentAfterS: 30,
} as const;

/** Seconds on the spinner, if it shows them. */
function spinnerSeconds(text: string): number | undefined {
  const m = GEMINI_SCREEN.elapsed.exec(text);
  if (!m || (m[1] === undefined && m[2] === undefined && m[3] === undefined)) return undefined;
  return Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
}

function inputBox(plain: readonly string[], styled: readonly string[]): { at: number; draft: string } | undefined {
  const rule = lastIndexMatching(plain, GEMINI_SCREEN.rule);
  if (rule < 0) return undefined;
  for (let i = rule + 1; i < plain.length; i++) {
    if (!GEMINI_SCREEN.input.test(plain[i]!)) continue;
    const first = plain[i]!.replace(GEMINI_SCREEN.input, '').trim();
    // The placeholder is drawn grey after the cursor; a person's text is not.
    if (!first || GEMINI_SCREEN.placeholder.test(first)) return { at: i, draft: '' };
    const rest: string[] = [];
    for (let j = i + 1; j < plain.length && plain[j]!.trim() !== '' && !GEMINI_SCREEN.footer.test(plain[j]!); j++)
      rest.push(plain[j]!.trim());
    const dim = startsDim(styled[i] ?? '', '> ');
    return { at: i, draft: dim ? '' : [first, ...rest].join('\n') };
  }
  return undefined;
}

export function readGeminiScreen({ plain, styled, title }: ScreenText): ScreenReading {
  const text = plain.join('\n');
  const t = title ?? '';
  const prompt = readGeminiPrompt(plain);
  if (GEMINI_SCREEN.titleAction.test(t))
    return { needsInput: prompt ? 'permission' : 'question', matched: ['title ✋ Action Required'] };
  // Without a title (a pane that has not set one yet), the box itself, which hides the input box.
  if (prompt && !t && inputBox(plain, styled) === undefined)
    return { needsInput: 'permission', matched: ['Allow execution of …?'] };
  const retry = GEMINI_SCREEN.retrying.exec(text);
  if (retry) return { matched: [`model unreachable, Gemini is retrying behind its spinner: ${retry[0]}`] };
  const box = inputBox(plain, styled);
  const spinner = GEMINI_SCREEN.working.test(text);
  let activity: 'working' | 'idle' | undefined;
  let why: string;
  if (GEMINI_SCREEN.titleWorking.test(t)) [activity, why] = ['working', 'title ✦ Working…'];
  else if (GEMINI_SCREEN.titleIdle.test(t))
    [activity, why] = spinner ? ['working', 'Thinking... (esc to cancel'] : ['idle', 'title ◇ Ready'];
  else if (spinner) [activity, why] = ['working', 'Thinking... (esc to cancel'];
  else if (box) [activity, why] = ['idle', 'input box, no spinner'];
  else return {};
  if (activity === 'working' && spinner) {
    const secs = spinnerSeconds(text);
    // Above the input box's rule: a draft typed into the box is not the prompt the turn answers.
    const rule = lastIndexMatching(plain, GEMINI_SCREEN.rule);
    const above = rule >= 0 ? plain.slice(0, rule) : plain;
    const lastUser = lastIndexMatching(above, GEMINI_SCREEN.userLine);
    const drawn = lastUser >= 0 && above.slice(lastUser + 1).some((l) => GEMINI_SCREEN.progress.test(l));
    if (secs !== undefined && secs >= GEMINI_SCREEN.silentAfterS && lastUser >= 0 && !drawn) {
      return {
        matched: [
          `spinner for ${secs}s with nothing drawn since the prompt: a rate limit (429) Gemini retries silently cannot be told from a slow model`,
        ],
      };
    }
  }
  const reading: ScreenReading = { activity, matched: [why] };
  if (box) reading.draft = box.draft;
  if (activity === 'idle') {
    // Only what came after the last prompt the person sent counts: an old error is history.
    const lastUser = lastIndexMatching(plain.slice(0, box?.at ?? plain.length), GEMINI_SCREEN.userLine);
    const since = plain.slice(Math.max(0, lastUser), box?.at ?? plain.length).join('\n');
    const limit = GEMINI_SCREEN.usageLimit.exec(since);
    if (limit) {
      reading.needsInput = 'usage_limit';
      reading.matched = [limit[0]];
    }
  }
  return reading;
}

/**
 * Gemini's tool confirmation box as the person sees it: from the `? <Tool>  <args>` line to the
 * last option; Enter takes the highlighted option (`●`), which must be `1. Allow once`.
 */
export function readGeminiPrompt(
  plain: readonly string[],
): { lines: string[]; asked: string[]; approveReady: boolean } | undefined {
  const ask = lastIndexMatching(plain, GEMINI_SCREEN.permission);
  if (ask < 0) return undefined;
  const head = lastIndexMatching(plain.slice(0, ask), /^\s*│\s*\?\s+\S/);
  const start = head >= 0 ? head : Math.max(0, ask - 6);
  let end = ask;
  for (let i = ask + 1; i < plain.length && i <= ask + 8; i++) if (/^\s*│?\s*●?\s*\d+\.\s/.test(plain[i]!)) end = i;
  if (end === ask) return undefined; // options not drawn yet
  const options = plain.slice(ask + 1, end + 1).filter((l) => /\d+\.\s/.test(l));
  const approveReady = options.some((l) => /●\s*1\.\s/.test(l));
  const tidy = (ls: readonly string[]) => ls.map((l) => l.trimEnd());
  return {
    lines: tidy(plain.slice(start, end + 1)),
    asked: tidy(plain.slice(start, ask + 1)).filter((l) => l.trim() !== ''),
    approveReady,
  };
}

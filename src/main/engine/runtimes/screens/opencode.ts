import { lastIndexMatching, type ScreenReading, type ScreenText } from '../types';

/**
 * OpenCode's screen (observed on 1.18.33; pinned by test/agents/opencode-real.test.ts). The input box is
 * a run of `┃` lines closed below by a `╹▀▀▀…` rule; its last line names the agent and model
 * (`Build · Fake Model Fake`), the lines above it are the editor (a dim `Ask anything…` placeholder
 * when empty). The footer under the rule says `esc interrupt` while a turn runs (a 429 retry too,
 * with `Rate limit reached … [retrying in …]` beside it) and `ctrl+p commands` without it when
 * idle. A permission prompt replaces the box with `△ Permission required` and
 * `Allow once   Allow always   Reject`. Wide panes draw a sidebar right of the box; the rule's
 * width says where the box ends.
 */
export const OPENCODE_SCREEN = {
  boxBottom: /^\s*╹▀{8,}/,
  boxLine: /^\s*┃/,
  working: /esc interrupt/,
  idle: /ctrl\+p commands/,
  usageLimit: /Rate limit reached|\[retrying in [^\]]*attempt #\d+\]/,
  permission: /△ Permission required/,
  permissionOptions: /Allow once\s+Allow always\s+Reject/,
  placeholder: /^Ask anything… "/,
} as const;

/** The permission prompt block: from its header to the options line. */
export function opencodePromptBlock(plain: readonly string[]): { start: number; end: number } | undefined {
  const start = lastIndexMatching(plain, OPENCODE_SCREEN.permission);
  if (start < 0) return undefined;
  for (let i = start + 1; i < plain.length && i <= start + 40; i++)
    if (OPENCODE_SCREEN.permissionOptions.test(plain[i]!)) return { start, end: i };
  return undefined;
}

/** A prompt line without its `┃` bar and without what a sidebar draws to its right. */
function promptText(line: string): string {
  return line
    .replace(/^\s*┃\s*/, '')
    .replace(/\s{3,}\S.*$/, '')
    .trimEnd();
}

/**
 * What Rigdesk shows of a permission prompt and fingerprints: the asked-about lines (`# Shell
 * command`, `$ echo …`), without the options line. Approve is Enter on the first option (Allow
 * once), which is where the prompt opens; the selection is drawn only as colour, so whether a
 * person moved it is read from the styled line (see opencodeApproveReady).
 */
export function readOpencodePrompt(
  plain: readonly string[],
  styled: readonly string[] = [],
): { lines: string[]; asked: string[]; approveReady: boolean; why?: string } | undefined {
  const block = opencodePromptBlock(plain);
  if (!block) return undefined;
  // The options line keeps its three choices; only the key hints after them go.
  const options = plain[block.end]!.replace(/^\s*┃\s*/, '')
    .replace(/\s{3,}ctrl\+f.*$/, '')
    .trimEnd();
  const lines = [...plain.slice(block.start, block.end).map(promptText), options];
  const asked = lines.slice(0, -1).filter((l) => l.trim() !== '');
  const ready = opencodeApproveReady(styled[block.end]);
  return {
    lines,
    asked,
    approveReady: ready,
    ...(ready ? {} : { why: 'the highlighted option is not "Allow once" (it was moved in the terminal)' }),
  };
}

/**
 * Whether the highlighted option is "Allow once". OpenCode draws the selected option with a
 * background of its own; the others share the prompt's background. With no styled line to read,
 * Enter is assumed to land where the prompt opened (Allow once).
 */
export function opencodeApproveReady(styledOptions: string | undefined): boolean {
  if (!styledOptions) return true;
  const bgBefore = (label: string): string | undefined => {
    const i = styledOptions.indexOf(label);
    if (i < 0) return undefined;
    const codes = [...styledOptions.slice(0, i).matchAll(/\x1b\[([0-9;:]*)m/g)].map((m) => m[1]!);
    let bg: string | undefined;
    for (const c of codes) {
      const parts = c.split(';');
      for (let k = 0; k < parts.length; k++) {
        if (parts[k] === '48') {
          bg = parts.slice(k, k + (parts[k + 1] === '5' ? 3 : 5)).join(';');
          k += parts[k + 1] === '5' ? 2 : 4;
        } else if (parts[k] === '0' || parts[k] === '' || parts[k] === '49') bg = undefined;
      }
    }
    return bg;
  };
  const once = bgBefore('Allow once');
  const always = bgBefore('Allow always');
  const reject = bgBefore('Reject');
  // The highlighted one differs from the other two; when all three match nothing is highlighted.
  if (once === always && always === reject) return true;
  return once !== always && once !== reject;
}

export function readOpencodeScreen({ plain }: ScreenText): ScreenReading {
  if (opencodePromptBlock(plain)) return { needsInput: 'permission', matched: ['△ Permission required'] };
  const bottom = lastIndexMatching(plain, OPENCODE_SCREEN.boxBottom);
  if (bottom < 0) return {};
  const footer = plain
    .slice(bottom + 1)
    .filter((l) => l.trim() !== '')
    .join('\n');
  const working = OPENCODE_SCREEN.working.test(footer);
  if (!working && !OPENCODE_SCREEN.idle.test(footer)) return {};
  const reading: ScreenReading = {
    activity: working ? 'working' : 'idle',
    matched: [working ? 'esc interrupt' : 'ctrl+p commands, no esc interrupt'],
  };
  // OpenCode retries a 429 for as long as the server's Retry-After says (an hour), showing why in
  // the footer: the turn runs, but only a person (or the limit's end) moves it on.
  const limit = footer.match(OPENCODE_SCREEN.usageLimit);
  if (limit) {
    reading.needsInput = 'usage_limit';
    reading.matched = [limit[0]];
  }
  const draft = readDraft(plain, bottom);
  if (draft !== undefined) reading.draft = draft;
  return reading;
}

/** The editor's text: the box lines above the agent/model line, cut at the box's right edge. */
function readDraft(plain: readonly string[], bottom: number): string | undefined {
  let top = bottom;
  while (top > 0 && OPENCODE_SCREEN.boxLine.test(plain[top - 1]!)) top--;
  const box = plain.slice(top, bottom);
  if (box.length < 2) return undefined;
  const width = plain[bottom]!.lastIndexOf('▀') + 1;
  const inner = box.slice(0, -1).map((l) =>
    l
      .slice(0, width)
      .replace(/^\s*┃ {0,2}/, '')
      .trimEnd(),
  );
  const first = inner.findIndex((l) => l.trim() !== '');
  if (first < 0) return '';
  // The placeholder (`Ask anything… "Fix a TODO in the codebase"`, with its own ellipsis and quotes)
  // is not something a person types.
  if (OPENCODE_SCREEN.placeholder.test(inner[first]!)) return '';
  return inner.slice(first).join('\n').trim();
}

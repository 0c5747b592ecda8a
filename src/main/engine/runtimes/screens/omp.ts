import { lastIndexMatching, type PromptRead, type ScreenReading, type ScreenText } from '../types';

/**
 * omp's screen (observed on 18.2.3; pinned by test/agents/omp-real.test.ts). The composer's top
 * border is a status line, ` π > ⬢ <model> > <dir> ▶────…128K─`, and the editor hangs below it
 * from `╰─ ` (continuation lines indented under it). While a turn runs the brand `π` becomes a
 * braille spinner and a whole-unit turn timer (` ⠙ 3s > ⬢ …`), with `⎋ Working…` above. A tool
 * call that needs approval replaces the composer with a box: `╭─ Allow tool: bash ─…`, the call
 * (`│ Command: …`), `│  ❯ Approve` / `│    Deny` and `│ up/down navigate  enter select  esc cancel`.
 * A 429 shows `Error: 429 …` above the spinner while omp keeps retrying. omp's tools run inside
 * its own process (no child for `sleep`), so the screen, not the process tree, says it works.
 *
 * The pane title mirrors the state (`π > <title>`, `π <spinner> <title>`, `π ! <title>` when it
 * waits on the person): read only when the screen shows neither composer nor box (an overlay),
 * and only to hold a send (working, waiting), never to call the seat idle.
 */
export const OMP_SCREEN = {
  status: /^\s*(\S+)(?:\s+(\d+[smh]))?\s+>\s.*─\s*$/,
  spinner: /^[\u2801-\u28ff]$/,
  editor: /^╰─(?: (.*))?$/,
  working: /^\s*⎋ Working…/,
  usageLimit: /^\s*Error: 429\b/,
  permission: /^╭─ Allow tool: (\S+)/,
  approve: /^│\s+(❯)?\s*Approve\s*│?\s*$/,
  deny: /^│\s+(❯)?\s*Deny\s*│?\s*$/,
  footer: /up\/down navigate\s+enter select\s+esc cancel/,
  title: /^π (\S) /,
} as const;

/** The permission box: its header line and its footer line. */
function promptBlock(plain: readonly string[]): { start: number; end: number } | undefined {
  const start = lastIndexMatching(plain, OMP_SCREEN.permission);
  if (start < 0) return undefined;
  for (let i = start + 1; i < plain.length && i <= start + 60; i++)
    if (OMP_SCREEN.footer.test(plain[i]!)) return { start, end: i };
  return undefined;
}

/** A box line without its borders. */
const inner = (line: string): string =>
  line
    .replace(/^(?:│|╭─)\s?/, '')
    .replace(/\s*│\s*$/, '')
    .replace(/─+╮?\s*$/, '')
    .trimEnd();

/**
 * What Rigdesk shows of the approval box and fingerprints: the header and the asked-about lines
 * (`Command: …`), without the options. Enter takes the option under `❯`, Approve when the box opens.
 */
export function readOmpPrompt(plain: readonly string[]): PromptRead | undefined {
  const block = promptBlock(plain);
  if (!block) return undefined;
  const body = plain.slice(block.start, block.end + 1);
  const approve = body.find((l) => OMP_SCREEN.approve.test(l));
  const optionAt = body.findIndex((l) => OMP_SCREEN.approve.test(l) || OMP_SCREEN.deny.test(l));
  const lines = body.map(inner).filter((l, i) => l !== '' || i === 0);
  const asked = body
    .slice(0, optionAt < 0 ? body.length - 1 : optionAt)
    .map(inner)
    .filter((l) => l.trim() !== '');
  const ready = approve !== undefined && OMP_SCREEN.approve.exec(approve)?.[1] === '❯';
  return {
    lines,
    asked,
    approveReady: ready,
    ...(ready ? {} : { why: 'the selected option is not "Approve" (it was moved in the terminal)' }),
  };
}

export function readOmpScreen({ plain, title }: ScreenText): ScreenReading {
  if (promptBlock(plain)) return { needsInput: 'permission', matched: ['Allow tool:'] };
  const at = lastIndexMatching(plain, OMP_SCREEN.status);
  const editorAt = at < 0 ? -1 : plain.findIndex((l, i) => i > at && OMP_SCREEN.editor.test(l));
  if (at < 0 || editorAt !== at + 1) return fromTitle(title);
  const m = OMP_SCREEN.status.exec(plain[at]!)!;
  const working = OMP_SCREEN.spinner.test(m[1]!) && m[2] !== undefined;
  const reading: ScreenReading = {
    activity: working ? 'working' : 'idle',
    draft: readDraft(plain, editorAt),
    matched: [working ? `${m[1]} ${m[2]} (spinner and turn timer)` : `${m[1]} > (status line, no spinner)`],
  };
  const above = plain
    .slice(0, at)
    .filter((l) => l.trim() !== '' && !OMP_SCREEN.working.test(l) && !/^\s{20,}\S/.test(l))
    .slice(-3);
  const limit = above.find((l) => OMP_SCREEN.usageLimit.test(l));
  if (limit) {
    reading.needsInput = 'usage_limit';
    reading.matched = [limit.trim()];
  }
  return reading;
}

/** The editor's text: after `╰─ ` and on the indented lines below it. */
function readDraft(plain: readonly string[], at: number): string {
  const first = OMP_SCREEN.editor.exec(plain[at]!)?.[1] ?? '';
  const rest = plain.slice(at + 1).map((l) => l.replace(/^ {3}/, ''));
  return [first, ...rest].join('\n').trim();
}

/** Only what holds a send: a spinner (working) or `!` (waiting on the person) in the pane title. */
function fromTitle(title: string | undefined): ScreenReading {
  const g = title ? OMP_SCREEN.title.exec(title)?.[1] : undefined;
  if (g === '!') return { needsInput: 'question', matched: ['π ! (pane title)'] };
  if (g !== undefined && (OMP_SCREEN.spinner.test(g) || g === ':'))
    return { activity: 'working', matched: [`π ${g} (pane title)`] };
  return {};
}

/**
 * tmux takes a command two ways: as argv from a one-shot `tmux` process, or as a line of text that
 * tmux's own command parser reads (a control-mode client's stdin). These turn the engine's argv into
 * either form so that tmux ends up with exactly the same arguments; no shell ever reads them.
 *
 * The one rule both share: an argument that is exactly `;` separates commands. Every other argument
 * is literal, also one that ends in `;` (which tmux's argv reader would otherwise cut off and take as
 * a separator).
 */

/**
 * Arguments tmux's parser reads as they are: no quote, `$`, `~`, `#`, `;`, `{`, `}`, `=` or space,
 * and a `%` first only in a pane id (`%if` and the like open a condition, any other `%word` fails).
 */
const BARE = /^(?:%\d+|[A-Za-z0-9_@:,./+-][A-Za-z0-9_%@:,./+-]*)$/;
const COMMAND_NAME = /^[a-z][a-z-]*$/;
/** What needs an escape inside double quotes: `\`, `"`, `$` (variables), `~` (home), control bytes. */
const DQ_SPECIAL = /[\\"$~\x00-\x1f\x7f]/g;

/**
 * A one-shot `tmux` that runs the command list its stdin holds, as a line of `controlLine`: how a
 * command whose arguments must not be in any process's argv (a seat's env) goes without a held
 * client. tmux reads the line with the same parser as a control client's.
 */
export const SOURCE_STDIN: readonly string[] = ['source-file', '-'];

export type ControlLine = { ok: true; line: string } | { ok: false; why: string };

/** One command list as a single line for tmux's parser (control mode reads one line per list). */
export function controlLine(args: readonly string[]): ControlLine {
  if (args.length === 0) return { ok: false, why: 'no tmux command was given' };
  const out: string[] = [];
  let atCommand = true;
  for (const a of args) {
    if (a.includes('\0')) return { ok: false, why: 'an argument holds a NUL byte, which tmux cannot take' };
    if (a === ';') {
      out.push(';');
      atCommand = true;
      continue;
    }
    // A command name stays bare so tmux looks it up; anything else odd there is quoted and tmux
    // answers "unknown command", as the one-shot would.
    out.push(atCommand && COMMAND_NAME.test(a) ? a : quoteArg(a));
    atCommand = false;
  }
  if (atCommand) return { ok: false, why: 'the tmux command list ends in a separator' };
  return { ok: true, line: out.join(' ') };
}

/** One argument, quoted for tmux's parser so that it reads back byte for byte. */
export function quoteArg(a: string): string {
  if (BARE.test(a)) return a;
  // Double quotes with escapes take everything, also a newline (which must not end the line) and
  // a leading `~` or `$`; octal escapes keep control bytes out of the line itself.
  return `"${a.replace(DQ_SPECIAL, (ch) => (ch === '\\' || ch === '"' || ch === '$' ? `\\${ch}` : octal(ch)))}"`;
}

function octal(ch: string): string {
  return `\\${ch.charCodeAt(0).toString(8).padStart(3, '0')}`;
}

/**
 * The argv a one-shot `tmux` gets for the same list: tmux's argv reader takes an argument ending
 * in `;` as "this argument, then a separator", and `\;` at the end as a literal `;`. So a trailing
 * `;` that is meant literally is written as `\;` (and `\;` as `\\;`), and tmux reads back the
 * argument the engine meant.
 */
export function oneShotArgs(args: readonly string[]): string[] {
  return args.map((a) => (a !== ';' && a.endsWith(';') ? `${a.slice(0, -1)}\\;` : a));
}

/**
 * A value tmux reads as a format (new-session's and respawn-pane's `-c`, new-session's `-s`),
 * written so that the format gives back the value itself: `#(...)` would run a shell command and
 * `#{...}` be replaced. tmux 3.3a (format_expand1) reads `##` as one `#`, but copies a run of `#`
 * that ends in `[` unchanged (a style kept for later), so every run of `#` is doubled except one
 * followed by `[`, which comes out as written. Checked against tmux folder by folder in
 * test/engine/hostile-input.test.ts. The other flags that take data (`-e`, set-option values, a
 * pane's argv) are not formats.
 */
export function formatLiteral(value: string): string {
  return value.replace(/(#+)(\[?)/g, (_, run: string, bracket: string) => (bracket ? run : run + run) + bracket);
}

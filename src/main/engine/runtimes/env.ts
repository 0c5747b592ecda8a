/**
 * Seats never inherit the launching agent's identity: when Rigdesk itself runs inside Claude Code
 * or Codex, their session markers would otherwise leak into every seat and confuse the CLI there.
 * Config variables (CLAUDE_CONFIG_DIR, CODEX_HOME, ...) are not markers and pass through.
 */
export const IDENTITY_VAR_RE =
  /^(CLAUDECODE|CLAUDE_CODE_(ENTRYPOINT|SSE_PORT|SESSION[A-Z0-9_]*|AGENT[A-Z0-9_]*)|CODEX_(THREAD|SESSION|SANDBOX|INTERNAL|MANAGED)[A-Z0-9_]*|TMUX|TMUX_PANE|RIGDESK_TOKEN)$/;

/**
 * A seat is an interactive terminal. Markers of a CI run in the environment that started Rigdesk
 * would make Ink-based CLIs take it for a pipe: Gemini CLI with CI=true runs headless, finds no
 * prompt on stdin and exits. The detection they share (is-in-ci) counts CI, CONTINUOUS_INTEGRATION
 * and any CI_* variable.
 */
export const CI_MARKER_RE = /^(CI|CONTINUOUS_INTEGRATION|CI_[A-Za-z0-9_]*)$/;

export function isIdentityVar(name: string): boolean {
  return IDENTITY_VAR_RE.test(name) || CI_MARKER_RE.test(name);
}

export function scrubIdentity(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) if (!isIdentityVar(k)) out[k] = v;
  return out;
}

/**
 * The pane's program: a small POSIX sh wrapper (argv, never a string we build from user input)
 * that drops identity markers the tmux server may carry in its global environment, runs the agent
 * with the seat's variables, reports how it ended, and leaves a shell so the output stays
 * readable. `exited` activity is exactly "the agent is gone and this shell is in front".
 *
 * The markers are found with shell builtins only (`export -p`, `case`): an `env | sed | grep`
 * pipeline started three programs per pane, about 40 ms of CPU each launch on a 2-core VM, and a
 * 200-seat bring-up spent as long again with tmux's server waiting for a CPU behind them. Only a
 * name that is a valid variable name and a marker is ever unset; a line of a multi-line value that
 * looks like `NAME=...` can only unset a marker (as `env`'s output could). Character lists are
 * spelled out: a range like [A-Z] follows the locale's collation in some shells.
 */
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_';
const NAME_CHARS = `abcdefghijklmnopqrstuvwxyz${UPPER}`;
export const PANE_WRAPPER = [
  '_rigdesk_all=$(export -p)',
  'IFS="\n"',
  'set -f',
  'for _rigdesk_l in $_rigdesk_all; do',
  '  _rigdesk_n=${_rigdesk_l#export }; _rigdesk_n=${_rigdesk_n#declare -x }; _rigdesk_n=${_rigdesk_n%%=*}',
  '  case $_rigdesk_n in',
  `    ""|[0123456789]*|*[!${NAME_CHARS}]*) ;;`,
  '    CLAUDECODE|CLAUDE_CODE_ENTRYPOINT|CLAUDE_CODE_SSE_PORT|RIGDESK_TOKEN|CI|CONTINUOUS_INTEGRATION|CI_*) unset "$_rigdesk_n" ;;',
  `    *[!${UPPER}]*) ;;`,
  '    CLAUDE_CODE_SESSION*|CLAUDE_CODE_AGENT*|CODEX_THREAD*|CODEX_SESSION*|CODEX_SANDBOX*|CODEX_INTERNAL*|CODEX_MANAGED*) unset "$_rigdesk_n" ;;',
  '  esac',
  'done',
  'set +f',
  'unset IFS _rigdesk_all _rigdesk_l _rigdesk_n',
  '"$@"',
  'rc=$?',
  'printf "\\n[rigdesk] %s exited with status %s\\n" "$(basename "$1")" "$rc"',
  'exec "${SHELL:-/bin/sh}"',
].join('\n');

export function wrapForPane(agentArgv: string[]): string[] {
  return ['/bin/sh', '-c', PANE_WRAPPER, 'rigdesk-seat', ...agentArgv];
}

import { basename, flagValue, type RuntimeAdapter } from './types';
import { opencode, opencodeSessionFromArgv } from './opencode';
import { OPENCODE_LAYOUT } from './opencode-sessions';
import { prepareOmoSeat } from './omo-settings';

/**
 * omo, oh-my-opencode (observed: oh-my-opencode 4.19.4 on opencode-ai 1.18.33; facts pinned by
 * test/agents/omo-real.test.ts). It is an OpenCode plugin, an installer and a headless `omo run`,
 * with no TUI of its own: an omo seat runs `opencode` itself, with the plugin installed into the
 * seat's own OpenCode config before launch (omo-settings.ts), and its sessions are OpenCode's, in
 * the same opencode.db. So its argv, screens, prompt keys, missing-session words and transcript
 * are OpenCode's; its conversations are OpenCode's too (family.ts): custody of a session is one
 * question whether an `opencode` or an `omo` names it.
 *
 * What is omo's own is `omo run`: `node …/omo run [--session-id ses_…] "…"`, which hands over to a
 * second node wrapper and then `bun …/oh-my-opencode/dist/cli/index.js run …`, all three carrying
 * the arguments, and starts `opencode serve --port 4096` under them, which writes the session. The
 * run's own argv names the session it resumes (`--session-id`); its server names nothing and is
 * doubted like any OpenCode whose session is unknown.
 */

/** The script node or bun runs for omo: the npm bin links, the platform wrapper, the CLI itself. */
const OMO_SCRIPT =
  /(?:^|\/)(?:omo|oh-my-opencode|oh-my-openagent|lazycodex(?:-ai)?)$|\/oh-my-opencode(?:-[a-z0-9-]+)?\/bin\/oh-my-opencode\.js$|\/oh-my-opencode\/dist\/cli(?:-node)?\/index\.js$/;

/** The omo CLI's own arguments (after its script), or undefined when argv is not the omo CLI. */
export function omoArgs(argv: readonly string[]): string[] | undefined {
  const a0 = basename(argv[0] ?? '');
  if (OMO_SCRIPT.test(a0)) return argv.slice(1);
  if (a0 !== 'node' && a0 !== 'bun' && a0 !== 'nodejs') return undefined;
  const i = argv.findIndex((a, k) => k > 0 && !a.startsWith('-'));
  return i > 0 && OMO_SCRIPT.test(argv[i]!) ? argv.slice(i + 1) : undefined;
}

/** `omo run …`: the only omo command that writes a conversation. */
export function omoRunArgs(argv: readonly string[]): string[] | undefined {
  const args = omoArgs(argv);
  return args?.[0] === 'run' ? args.slice(1) : undefined;
}

/** The session `omo run --session-id ses_…` resumes (`-` options end at `--`). */
export function omoRunSession(argv: readonly string[]): string | undefined {
  const args = omoRunArgs(argv);
  if (!args) return undefined;
  const end = args.indexOf('--');
  const v = flagValue(end < 0 ? args : args.slice(0, end), '--session-id');
  return v && OPENCODE_LAYOUT.sessionId.test(v) ? v : undefined;
}

// Its processes are OpenCode's, whose live claims the OpenCode adapter reads for the same data dir.
const { liveClaims: _openCodeClaims, ...openCodeRest } = opencode;

export const omo: RuntimeAdapter = {
  ...openCodeRest,
  id: 'omo',
  displayName: 'omo (oh-my-opencode)',
  installHint: 'npm install -g opencode-ai oh-my-opencode',
  whyNoFork:
    " yet (its sessions are OpenCode's: a fresh session's id is not on its command line, and `--fork` is unchecked)",
  // The seat's program is OpenCode's; omo's own CLI must be there too (its package holds the plugin).
  binary: 'opencode',
  needs: ['omo'],
  matches: (p) => omoRunArgs(p.argv) !== undefined,
  conversationFromArgv: (argv) => (omoArgs(argv) ? omoRunSession(argv) : opencodeSessionFromArgv(argv)),
  seatEnv(input) {
    const out = opencode.seatEnv?.(input) ?? {};
    // omo's plugin sends anonymous usage to PostHog unless told not to (either switch works).
    if (input.env.OMO_SEND_ANONYMOUS_TELEMETRY === undefined) out.OMO_SEND_ANONYMOUS_TELEMETRY = '0';
    if (input.env.OMO_DISABLE_POSTHOG === undefined) out.OMO_DISABLE_POSTHOG = '1';
    return out;
  },
  prepareCheckName: (seat) => `omo plugin (${seat})`,
  prepareSeat(input, { write }) {
    const r = prepareOmoSeat({
      seatEnv: input.seatEnv,
      env: input.env,
      dryRun: !write,
      ...(input.io ? { io: input.io } : {}),
      ...(input.programPath ? { programPath: input.programPath } : {}),
    });
    return r.ok ? { ok: true, detail: r.detail } : r;
  },
};

/** A small argv parser: positionals, `--flag`, `--key value`, `--key=value`, and `--` to stop. */
export interface ParsedArgs {
  command?: string;
  positionals: string[];
  flags: Record<string, string | true>;
}

const VALUE_FLAGS = new Set([
  'rig',
  'lines',
  'port',
  'seat',
  'limit',
  'file',
  'wait-for-idle',
  'reason',
  'as',
  'note',
  'by',
  'since',
  'message',
  'into',
  'name',
  'listen',
  'tls-cert',
  'tls-key',
  'public-url',
]);

export function parseArgs(argv: readonly string[]): ParsedArgs {
  const out: ParsedArgs = { positionals: [], flags: {} };
  let rest = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!rest && a === '--') {
      rest = true;
      continue;
    }
    if (!rest && a.startsWith('--') && a.length > 2) {
      const eq = a.indexOf('=');
      if (eq > 0) out.flags[a.slice(2, eq)] = a.slice(eq + 1);
      else if (VALUE_FLAGS.has(a.slice(2)) && i + 1 < argv.length) out.flags[a.slice(2)] = argv[++i]!;
      else out.flags[a.slice(2)] = true;
      continue;
    }
    if (!rest && a === '-h') {
      out.flags.help = true;
      continue;
    }
    if (out.command === undefined) out.command = a;
    else out.positionals.push(a);
  }
  return out;
}

export const USAGE_HEAD =
  'rigdesk: run a team of coding agents in tmux, one writer per conversation\n\nUsage: rigdesk <command> [options] [--json]\n';
export const USAGE_TAIL = `  serve [--port P]             run the engine and keep it running (the CLI then talks to it),
                               and host the window in a browser at the URL it prints
        [--listen ADDR:PORT [--tls-cert F --tls-key F] [--public-url U]]
                               and for paired devices at that address (rigdesk devices pair)

Every command takes --json. Exit codes: 0 ok, 1 refused or failed, 2 bad usage.
Commands that launch, end or wait for agents print their progress on stderr when it is a terminal
(each seat's launch, bind, stop, as the engine records it); --progress always, --no-progress never.
Environment: RIGDESK_HOME (default ~/.rigdesk), RIGDESK_TMUX_SOCKET (default: tmux -L rigdesk).`;

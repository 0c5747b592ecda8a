import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { claudeTranscriptFile } from '../../src/main/engine/runtimes/claude-code';

/**
 * A resumable STAND-IN for Claude Code (test only): a script named `claude` that behaves like the
 * real CLI where restore looks. `--session-id X` creates X's transcript where Claude keeps it;
 * `--resume X` prints Claude's own "No conversation found with session ID: X" and exits 1 when the
 * transcript is gone (or `$CLAUDE_CONFIG_DIR/missing-X` exists, to make the runtime's report
 * disagree with the files), else it stays up with argv naming X (argv[0] `claude`, as the roster
 * expects). `--resume X --fork-session --session-id N` copies X to N and leaves X alone. With
 * `$CLAUDE_CONFIG_DIR/trust-dialog` present it first prints Claude's folder-trust question and stays there;
 * `$CLAUDE_CONFIG_DIR/slow-draw` holding N makes it draw nothing for N seconds first (a loaded machine).
 *
 * `hold`: what stays up. `node` (the default) is a node process, as Claude's is; `shell` is the
 * script's own bash blocked reading a FIFO nobody writes, for benches of hundreds of seats, where a
 * node start each (about 137 ms of CPU on a 2-core VM) would be most of what they measure.
 * `idleScreen`: draw Claude's input box and idle footer once started, as the real one shows when a
 * resume lands; without it the screen shows neither idle nor working (the resume proof's slow path).
 */
export function writeClaudeStandIn(
  dir: string,
  { hold = 'node', idleScreen = false }: { hold?: 'node' | 'shell'; idleScreen?: boolean } = {},
): string {
  mkdirSync(dir, { recursive: true });
  const p = join(dir, 'claude');
  const fifo = join(dir, 'hold.fifo');
  if (hold === 'shell' && !existsSync(fifo)) execFileSync('mkfifo', [fifo]);
  const rule = '─'.repeat(40);
  // Something on screen as the real one draws (restore's quiet spell counts from the first drawing).
  const idle = idleScreen
    ? `printf '%s\\n❯ \\n%s\\n  ? for shortcuts\\n' '${rule}' '${rule}'\n`
    : `printf 'claude (stand-in)\\n'\n`;
  const stay =
    hold === 'shell'
      ? `HOLD='${fifo}' exec -a claude /bin/bash -c 'exec 3<>"$HOLD"; read -r -u 3' claude "$@"`
      : `exec -a claude "${process.execPath}" -e 'setInterval(() => {}, 60000)' -- "$@"`;
  writeFileSync(
    p,
    `#!/bin/bash
dir="$CLAUDE_CONFIG_DIR/projects/$(pwd -P | sed 's/[^a-zA-Z0-9]/-/g')"
mkdir -p "$dir"
case "$1" in
  --session-id) echo '{"type":"standin"}' >> "$dir/$2.jsonl" ;;
  --resume)
    if [ ! -f "$dir/$2.jsonl" ] || [ -f "$CLAUDE_CONFIG_DIR/missing-$2" ]; then
      echo "No conversation found with session ID: $2"; exit 1
    fi
    if [ "$3" = --fork-session ] && [ "$4" = --session-id ]; then
      cp "$dir/$2.jsonl" "$dir/$5.jsonl"; echo '{"type":"standin-forked"}' >> "$dir/$5.jsonl"
    else
      echo '{"type":"standin-resumed"}' >> "$dir/$2.jsonl"
    fi ;;
esac
if [ -f "$CLAUDE_CONFIG_DIR/slow-draw" ]; then sleep "$(cat "$CLAUDE_CONFIG_DIR/slow-draw")"; fi
if [ -f "$CLAUDE_CONFIG_DIR/trust-dialog" ]; then
  printf ' Quick safety check: Is this a project you created or one you trust?\n ❯ 1. Yes, I trust this folder\n   2. No, exit\n'
fi
${idle}${stay}
`,
  );
  chmodSync(p, 0o755);
  return p;
}

export function standInTranscript(configDir: string, cwd: string, id: string): string {
  return claudeTranscriptFile(configDir, cwd, id);
}

/** A rig of claude stand-in seats (each with its own config dir) plus optional shell seats. */
export function standInRigYaml(
  rig: string,
  bin: string,
  root: string,
  claudeSeats: string[],
  shellSeats: string[] = [],
): string {
  return `${[
    `name: ${rig}`,
    'pods:',
    '  - id: team',
    '    members:',
    ...claudeSeats.map(
      (m) =>
        `      - { id: ${m}, runtime: claude-code, cwd: ./work, command: ${bin}, env: { CLAUDE_CONFIG_DIR: ${join(root, `cfg-${m}`)} } }`,
    ),
    ...shellSeats.map(
      (m) => `      - { id: ${m}, runtime: shell, cwd: ./work, command: bash, args: ["--noprofile", "--norc"] }`,
    ),
  ].join('\n')}\n`;
}

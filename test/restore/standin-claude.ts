import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { claudeTranscriptFile } from '../../src/main/engine/runtimes/claude-code';

/**
 * A resumable STAND-IN for Claude Code (test only): a script named `claude` that behaves like the
 * real CLI where restore looks. `--session-id X` creates X's transcript where Claude keeps it;
 * `--resume X` prints Claude's own "No conversation found with session ID: X" and exits 1 when the
 * transcript is gone (or `$CLAUDE_CONFIG_DIR/missing-X` exists, to make the runtime's report
 * disagree with the files), else it stays up with argv naming X (argv[0] `claude`, as the roster
 * expects). `--resume X --fork-session --session-id N` copies X to N and leaves X alone. With
 * `$CLAUDE_CONFIG_DIR/trust-dialog` present it first prints Claude's folder-trust question and stays there.
 */
export function writeClaudeStandIn(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const p = join(dir, 'claude');
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
if [ -f "$CLAUDE_CONFIG_DIR/trust-dialog" ]; then
  printf ' Quick safety check: Is this a project you created or one you trust?\n ❯ 1. Yes, I trust this folder\n   2. No, exit\n'
fi
exec -a claude "${process.execPath}" -e 'setInterval(() => {}, 60000)' -- "$@"
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

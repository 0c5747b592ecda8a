import { join } from 'node:path';
import { claudeTranscriptFile } from '../../src/main/engine/runtimes/claude-code';
import type { TestSshd } from './sshd';

/**
 * A STAND-IN for Claude Code on the host of the host tests (the real CLI's journeys over ssh are
 * test/hosts/real-agents.test.ts): a POSIX sh script named `claude`, run by the host's user, that
 * behaves like the real CLI where restore looks, as test/restore/standin-claude.ts does locally.
 * `--session-id X` creates X's transcript where Claude keeps it; `--resume X` prints Claude's own
 * "No conversation found with session ID: X" and exits 1 when it is gone (or
 * `$CLAUDE_CONFIG_DIR/missing-X` exists, to make its report disagree with the files), else appends to it;
 * `--resume X --fork-session --session-id NEW` instead copies X's lines into NEW's new transcript
 * (plus a `standin-forked` line) and leaves X's file byte-for-byte as it was, as Claude's fork does.
 * Then it prints a line (as the real one draws; restore's quiet spell counts from the first
 * drawing) and waits with its argv naming its conversation (the roster knows Claude by its `claude`
 * script and argv; with --fork-session the argv names NEW, never X);
 * a hang-up from its tmux server ends it and its sleep, so nothing of it outlives the test.
 */
export function installRemoteClaudeStandIn(sshd: TestSshd): { bin: string; configDir: string } {
  const bin = sshd.installProgram(
    'claude',
    `#!/bin/sh
dir="$CLAUDE_CONFIG_DIR/projects/$(pwd -P | sed 's/[^a-zA-Z0-9]/-/g')"
mkdir -p "$dir"
case "$1" in
  --session-id) echo '{"type":"standin"}' >> "$dir/$2.jsonl" ;;
  --resume)
    if [ ! -f "$dir/$2.jsonl" ] || [ -f "$CLAUDE_CONFIG_DIR/missing-$2" ]; then echo "No conversation found with session ID: $2"; exit 1; fi
    if [ "$3" = --fork-session ] && [ "$4" = --session-id ]; then
      if [ -e "$dir/$5.jsonl" ]; then echo "Session ID $5 is already in use."; exit 1; fi
      cat "$dir/$2.jsonl" > "$dir/$5.jsonl"; echo '{"type":"standin-forked"}' >> "$dir/$5.jsonl"
    else
      echo '{"type":"standin-resumed"}' >> "$dir/$2.jsonl"
    fi ;;
esac
echo 'claude (stand-in)'
sleep 600 &
trap 'kill $! 2>/dev/null; exit 0' HUP TERM INT
wait
`,
  );
  return { bin, configDir: join(sshd.remoteDir, 'cfg') };
}

/** The transcript's path on the host (read it with sshd.readHost / existsHost). */
export function remoteTranscript(sshd: TestSshd, configDir: string, id: string): string {
  return claudeTranscriptFile(configDir, sshd.remoteDir, id);
}

/** Rigdesk's tmux server on the host goes away (a reboot of that host), ended by its socket, never by name. */
export function rebootRemoteTmux(sshd: TestSshd): void {
  sshd.asRemote(['tmux', '-L', sshd.tmuxSocket, 'kill-server']);
}

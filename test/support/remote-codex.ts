import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CODEX_LAYOUT, findCodexRollout } from '../../src/main/engine/runtimes/codex';
import type { TestSshd } from './sshd';

/**
 * A STAND-IN for the Codex CLI on the host of the host tests (the real CLI's journeys over ssh are
 * test/hosts/real-agents.test.ts): a POSIX sh script named `codex`, run by the host's user, that
 * behaves like Codex 0.171 where Rigdesk looks (../shared/docs/agent-clis.md, CODEX_LAYOUT):
 * - `codex` starts a new thread: a fresh uuid, its rollout at
 *   `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<ts>-<id>.jsonl`;
 * - `codex resume X` prints Codex's own "ERROR: No saved session found with ID X. …" and exits 1
 *   when X's rollout is absent (or `$CODEX_HOME/missing-X` exists, to make its report disagree with
 *   the files), else appends to it;
 * - `codex fork X` makes a new thread whose rollout starts with X's lines (X left byte-for-byte).
 * In every case it then holds the thread's writer lock, an exclusive flock on
 * `$CODEX_HOME/thread-writer-locks/<id>.lock` (waiting for it when another process holds it, and
 * appending to a resumed rollout only once it has it), for as long as it lives: the flock holder is
 * its child, so /proc/locks names a process under the `codex` script, as it names Codex's own.
 * The holder's child follows the script's pid (`tail --pid`), so a hang-up or TERM that ends the
 * script ends the lock within a fifth of a second and nothing of it outlives the test.
 */
export function installRemoteCodexStandIn(sshd: TestSshd): { bin: string; home: string } {
  const bin = sshd.installProgram(
    'codex',
    `#!/bin/sh
: "\${CODEX_HOME:?STAND-IN codex needs CODEX_HOME}"
locks="$CODEX_HOME/${CODEX_LAYOUT.locksDir}"
mkdir -p "$locks"
rollout() { for f in "$CODEX_HOME"/${CODEX_LAYOUT.sessionsDir}/*/*/*/rollout-*-"$1".jsonl; do [ -f "$f" ] && { echo "$f"; return 0; }; done; return 1; }
thread() {
  id=$(cat /proc/sys/kernel/random/uuid); d="$CODEX_HOME/${CODEX_LAYOUT.sessionsDir}/$(date -u +%Y/%m/%d)"; mkdir -p "$d"
  file="$d/rollout-$(date -u +%Y-%m-%dT%H-%M-%S)-$id.jsonl"
}
line='{"type":"event_msg","payload":{"type":"standin-started"}}'
case "$1" in
  resume|fork)
    if ! src=$(rollout "$2") || [ -f "$CODEX_HOME/missing-$2" ]; then
      echo 'ERROR: No saved session found with ID '"$2"'. Run \`codex resume\` without an ID to choose from existing sessions.'; exit 1
    fi
    if [ "$1" = resume ]; then id=$2; file=$src; line='{"type":"event_msg","payload":{"type":"standin-resumed"}}'
    else thread; cat "$src" > "$file"; line='{"type":"event_msg","payload":{"type":"standin-forked"}}'; fi ;;
  *) thread; printf '{"type":"session_meta","payload":{"id":"%s"}}\\n' "$id" > "$file" ;;
esac
echo "STAND-IN codex on thread $id"
flock -x "$locks/$id${CODEX_LAYOUT.lockSuffix}" sh -c 'echo "$1" >> "$2"; exec tail --pid="$3" -s 0.2 -f /dev/null' sh "$line" "$file" $$ &
trap 'kill $! 2>/dev/null; exit 0' HUP TERM INT
wait
`,
  );
  return { bin, home: join(sshd.remoteDir, 'codex-home') };
}

/** A thread's rollout on the host (its path there), found by Rigdesk's own rule over the host's files. */
export function remoteRollout(sshd: TestSshd, home: string, id: string): string | undefined {
  const io = {
    listDir: (p: string) => {
      try {
        return readdirSync(sshd.hostPath(p));
      } catch {
        return [];
      }
    },
  };
  return findCodexRollout(home, id, io as unknown as Parameters<typeof findCodexRollout>[2]);
}

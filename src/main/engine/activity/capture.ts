import { stripSgr, type ScreenText } from '../runtimes/types';
import type { TmuxClient } from '../tmux/client';

import { randomBytes } from 'node:crypto';

/**
 * Captures many panes of one server in ONE tmux spawn: a command list of `capture-pane -e` and a
 * marker line per pane. Polling costs one process per server, not one per seat.
 */
export async function capturePanes(client: TmuxClient, paneIds: readonly string[]): Promise<Map<string, ScreenText>> {
  const out = new Map<string, ScreenText>();
  if (paneIds.length === 0) return out;
  // tmux escapes control characters in display-message output, so the marker is printable and
  // carries a nonce no screen would show by chance.
  const MARK = `RIGDESK-PANE-END-${randomBytes(6).toString('hex')}:`;
  const args: string[] = [];
  for (const id of paneIds) {
    if (args.length) args.push(';');
    // -N keeps trailing spaces off; -J is not used so lines stay screen lines.
    args.push('capture-pane', '-p', '-e', '-t', id, ';', 'display-message', '-p', '-t', id, `${MARK}#{pane_id}`);
  }
  const r = await client.run(args);
  // A pane that vanished makes tmux stop at that command; what came before it still counts.
  let current: string[] = [];
  for (const line of r.stdout.split('\n')) {
    if (line.startsWith(MARK)) {
      const id = line.slice(MARK.length);
      while (current.length && stripSgr(current[current.length - 1]!).trim() === '') current.pop();
      out.set(id, { styled: current, plain: current.map(stripSgr) });
      current = [];
    } else {
      current.push(line);
    }
  }
  return out;
}

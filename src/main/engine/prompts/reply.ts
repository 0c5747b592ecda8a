import { fail, type Result } from '../../../shared/errors';
import { capturePanes } from '../activity/capture';
import type { Ports } from '../ports';
import { runtimeById } from '../runtimes';
import { firstIndexFrom, lastIndexMatching, type ReplyMarks } from '../runtimes/types';

/** How many lines of a reply the Decisions view shows: enough to know what the turn came to. */
export const REPLY_LINES = 6;

const RULE = /^\s*─{8,}/;
const STATUS = /^\s*(Worked for \d|─|✻ )/;

/**
 * The first lines of the agent's last reply on screen: after the person's last message, from the
 * reply's first line, up to the input box (the next message line or the box's rule).
 */
export function replyLines(plain: readonly string[], marks: ReplyMarks, max = REPLY_LINES): string[] {
  const last = lastIndexMatching(plain, marks.reply);
  if (last < 0) return [];
  const asked = lastIndexMatching(plain.slice(0, last), marks.user);
  const start = firstIndexFrom(plain, marks.reply, asked + 1);
  const out: string[] = [];
  for (let i = start; i < plain.length && out.length < max; i++) {
    const l = plain[i]!;
    if (marks.user.test(l) || RULE.test(l)) break;
    if (l.trim() !== '' && !STATUS.test(l)) out.push(l.trimEnd());
  }
  return out;
}

/** A seat's last reply as its pane shows it now; nothing for a runtime whose screen is not read so. */
export async function lastReply(
  ports: Pick<Ports, 'client' | 'store'>,
  seat: string,
): Promise<Result<{ seat: string; lines: string[] }>> {
  const row = ports.store.rigs.seat(seat);
  if (!row) return fail('SEAT_NOT_FOUND', `no seat ${seat}`);
  const live = ports.store.sessions.live(seat);
  if (!live) return fail('SEAT_NOT_RUNNING', `${seat} is not running`, { hint: `rigdesk launch ${seat}` });
  const marks = runtimeById(row.runtime)?.replyMarks;
  if (!marks) return { ok: true, seat, lines: [] };
  const screen = (await capturePanes(ports.client(live.server), [live.paneId])).get(live.paneId);
  return { ok: true, seat, lines: screen ? replyLines(screen.plain, marks) : [] };
}

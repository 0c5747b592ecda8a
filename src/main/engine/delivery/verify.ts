import { capturePanes } from '../activity/capture';
import type { Ports } from '../ports';
import { runtimeById } from '../runtimes';
import type { SeatRow } from '../store';

const squash = (s: string) => s.replace(/\s+/g, '');

/**
 * After Enter: the text must have left the input box (no draft that holds it) and show on screen
 * or the agent must have started a turn. An agent may drop an Enter (Codex when it comes too soon,
 * Claude under load); one more Enter is sent when the text still sits in its input box. The window
 * is 15 s: a Node agent that has just resumed a long conversation on a busy machine was seen to take
 * more than 8 s to draw the submitted text, and a wait costs only when the text truly is stuck.
 */
export async function verifySubmitted(
  ports: Pick<Ports, 'client' | 'clock'>,
  seat: SeatRow,
  server: string,
  paneId: string,
  text: string,
  timeoutMs = 15_000,
): Promise<{ ok: true } | { ok: false; why: string }> {
  const adapter = runtimeById(seat.runtime);
  const probe = text.split('\n')[0]!.trim().slice(0, 40);
  const until = ports.clock.now() + timeoutMs;
  let retried = false;
  for (;;) {
    const screen = (await capturePanes(ports.client(server), [paneId])).get(paneId);
    if (screen) {
      const reading = adapter?.readScreen?.(screen);
      const stillDrafted =
        reading?.draft !== undefined && reading.draft !== '' && reading.draft.includes(probe.slice(0, 20));
      // Read with a narrow pane's wrapping taken out: the probe may span two lines there.
      const shown = squash(screen.plain.join('')).includes(squash(probe));
      if (!stillDrafted && (shown || reading?.activity === 'working')) return { ok: true };
      // Codex drops an Enter that comes too soon, and Claude was seen to drop one under load:
      // text still sitting in the input box after 1.5 s gets one more Enter.
      if (stillDrafted && !retried && adapter?.readScreen && ports.clock.now() > until - timeoutMs + 1500) {
        retried = true;
        await ports.client(server).sendKeys(paneId, ['Enter']);
      }
    }
    if (ports.clock.now() >= until) return { ok: false, why: 'the text was not seen submitted on screen' };
    await ports.clock.sleep(200);
  }
}

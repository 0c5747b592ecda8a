import type { PsRow } from '../../shared/contract';
import type { ElectronApi } from './types';

/**
 * One notification per transition into needs_input (not per poll while it stays there); its
 * click focuses the window on that seat. Seats already waiting when the app starts notify too,
 * since the person has not seen them yet. A seat whose pane has the focus in a visible window
 * (`watched`) is not notified: the person is looking at the prompt already, and a notification
 * would only pull them away from it.
 */
export class NeedsInputNotifier {
  private waiting = new Set<string>();
  constructor(
    private readonly api: Pick<ElectronApi, 'createNotification' | 'notificationsSupported'>,
    private readonly focusSeat: (seat: string) => void,
    private readonly watched: (seat: string) => boolean = () => false,
  ) {}

  update(seats: readonly Pick<PsRow, 'seat' | 'activity' | 'needsInput'>[]): string[] {
    const now = new Set(seats.filter((s) => s.activity === 'needs_input').map((s) => s.seat));
    const fresh = seats.filter(
      (s) => s.activity === 'needs_input' && !this.waiting.has(s.seat) && !this.watched(s.seat),
    );
    this.waiting = now;
    if (!this.api.notificationsSupported()) return [];
    for (const s of fresh) {
      const n = this.api.createNotification({
        title: `${s.seat} needs you`,
        body: s.needsInput ? `Waiting for ${s.needsInput.replace(/_/g, ' ')}.` : 'Waiting for input.',
      });
      n.on('click', () => this.focusSeat(s.seat));
      n.show();
    }
    return fresh.map((s) => s.seat);
  }
}

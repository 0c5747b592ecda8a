import type { PsRow } from '../../shared/contract';
import type { TrayLike } from './types';

export interface TrayImages {
  idle: string;
  attention: string;
}

/**
 * Pure: what the tray shows for a set of seats. Its count is what needs the person: seats at
 * needs_input and seats whose restore decision waits (`decisions`: those seats), each once, the
 * same rule as the window's "needs you" count.
 */
export function trayState(
  seats: readonly Pick<PsRow, 'seat' | 'activity'>[],
  images: TrayImages,
  decisions: readonly string[] = [],
): { image: string; tooltip: string; count: number } {
  const names = new Set([...seats.filter((s) => s.activity === 'needs_input').map((s) => s.seat), ...decisions]);
  const waiting = [...names].map((seat) => ({ seat }));
  const count = waiting.length;
  return {
    count,
    image: count > 0 ? images.attention : images.idle,
    tooltip:
      count === 0
        ? `Rigdesk: ${seats.length} seat(s), none need you`
        : `Rigdesk: ${count} seat(s) need input (${waiting
            .slice(0, 3)
            .map((s) => s.seat)
            .join(', ')}${count > 3 ? ', …' : ''})`,
  };
}

/** Updates the tray only when what it shows changes (a tray update is an IPC to the desktop shell). */
export class TrayController {
  private last = '';
  private state: ReturnType<typeof trayState> | undefined;
  constructor(
    private readonly tray: TrayLike,
    private readonly images: TrayImages,
  ) {}
  update(seats: readonly Pick<PsRow, 'seat' | 'activity'>[], decisions: readonly string[] = []): void {
    const s = trayState(seats, this.images, decisions);
    this.state = s;
    const key = `${s.image}\n${s.tooltip}`;
    if (key === this.last) return;
    this.last = key;
    this.tray.setImage(s.image);
    this.tray.setToolTip(s.tooltip);
  }
  /** What the tray shows now (Electron's Tray has no getter; the packaged e2e reads this). */
  shown(): ReturnType<typeof trayState> | undefined {
    return this.state;
  }
}

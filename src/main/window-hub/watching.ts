/** What one window says it shows: the seat whose pane has the focus, and whether the window is visible. */
export interface WatchState {
  seat: string | null;
  visible: boolean;
}

/**
 * Which seats a person is looking at, per window connection (each window reports its own with
 * `window.attention`; a closed connection is forgotten). A seat counts as watched when its pane
 * has the focus in a window that is visible, so its needs-input notification would only repeat
 * what is on screen.
 */
export class Watching {
  private readonly by = new Map<object, WatchState>();

  set(owner: object, state: WatchState): void {
    this.by.set(owner, { seat: state.seat, visible: state.visible });
  }

  delete(owner: object): void {
    this.by.delete(owner);
  }

  get size(): number {
    return this.by.size;
  }

  isWatched(seat: string): boolean {
    for (const s of this.by.values()) if (s.visible && s.seat === seat) return true;
    return false;
  }
}

import { create } from 'zustand';

/**
 * One clock for every "time in this state" label, ticking every 5 s: the labels change together in
 * one frame, not each on a timer of its own. A label subscribes to its own text (not to `now`), so
 * a tick re-renders only the labels whose words changed; a seat idle for 40 min repaints once a
 * minute, not every tick. While the window is hidden the clock stops (nothing to paint) and
 * catches up the moment it is shown again.
 */
export const CLOCK_MS = 5000;
export const useClock = create(() => ({ now: Date.now() }));

function runClock(): void {
  let timer: ReturnType<typeof setInterval> | undefined;
  const tick = () => useClock.setState({ now: Date.now() });
  const follow = () => {
    clearInterval(timer);
    timer = undefined;
    if (document.hidden) return;
    tick();
    timer = setInterval(tick, CLOCK_MS);
  };
  document.addEventListener('visibilitychange', follow);
  follow();
}

if (typeof window !== 'undefined' && typeof document !== 'undefined') runClock();

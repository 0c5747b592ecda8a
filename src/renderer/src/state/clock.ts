import { create } from 'zustand';

/**
 * One clock for every "time in this state" label, ticking every 5 s: the labels change together in
 * one frame, not each on a timer of its own, and a quiet window paints a few labels every 5 s.
 */
export const CLOCK_MS = 5000;
export const useClock = create(() => ({ now: Date.now() }));
if (typeof window !== 'undefined') setInterval(() => useClock.setState({ now: Date.now() }), CLOCK_MS);

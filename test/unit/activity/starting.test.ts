import { describe, expect, it } from 'vitest';
import { decideActivity, evidencedActivity, type Evidence } from '../../../src/main/engine/activity/decide';

/** Issue 32: `starting` is bounded by the runtime's start time and ends at the first sign of ready. */
describe('the start window (pure)', () => {
  const launchedAt = 1_000_000;
  const start = { launchedAt, startMs: 30_000, readySeen: false };
  const at = (ms: number) => launchedAt + ms;
  const working = (now: number): Evidence => ({
    source: 'process',
    at: now,
    activity: 'working',
    detail: 'foreground bash',
  });

  it('a seat with nothing known, or working, inside its start time is starting; the evidence is kept beneath', () => {
    const none = decideActivity({ session: 'present', evidence: [], now: at(1000), start });
    expect(none.activity).toBe('starting');
    expect(none.beneath).toBe('unknown');
    const busy = decideActivity({ session: 'present', evidence: [working(at(1000))], now: at(1000), start });
    expect(busy.activity).toBe('starting');
    expect(evidencedActivity(busy)).toBe('working');
    expect(busy.basis[0]).toMatchObject({ source: 'launch' });
  });

  it('no seat stays starting: past its start time an unknown seat is unknown, a busy one working', () => {
    expect(decideActivity({ session: 'present', evidence: [], now: at(30_000), start }).activity).toBe('unknown');
    expect(
      decideActivity({ session: 'present', evidence: [working(at(30_000))], now: at(30_000), start }).activity,
    ).toBe('working');
  });

  it('ready ends it at once: idle, a prompt for a person, or a launch already seen ready', () => {
    const idle: Evidence = { source: 'screen', at: at(2000), activity: 'idle' };
    expect(decideActivity({ session: 'present', evidence: [idle], now: at(2000), start }).activity).toBe('idle');
    const ask: Evidence = { source: 'screen', at: at(2000), needsInput: 'permission' };
    expect(decideActivity({ session: 'present', evidence: [ask], now: at(2000), start }).needsInput).toBe('permission');
    const seen = { ...start, readySeen: true };
    expect(
      decideActivity({ session: 'present', evidence: [working(at(2000))], now: at(2000), start: seen }).activity,
    ).toBe('working');
  });

  it('a turn that a screen, transcript or hook shows is working, even inside the start time', () => {
    const screen: Evidence = { source: 'screen', at: at(1000), activity: 'working' };
    expect(decideActivity({ session: 'present', evidence: [screen], now: at(1000), start }).activity).toBe('working');
  });

  it('a seat not present is never starting', () => {
    expect(decideActivity({ session: 'exited', evidence: [], now: at(10), start }).activity).toBe('unknown');
  });
});

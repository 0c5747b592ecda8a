import { describe, expect, it } from 'vitest';
import { DEFAULT_SOAK } from '../../bench/soak/options';
import { runSoak } from '../../bench/soak/run';
import { chromiumMissing } from '../app/chromium';
import { requireCli } from '../journeys/support';

/**
 * Issue 32's soak, short: the same code as bench/soak (real CLI, real tmux on a private socket, real
 * `rigdesk serve`, a real Claude Code and Codex seat against the fake model server, the window in
 * Chromium) for a minute, with the tmux server killed and the engine restarted (SIGTERM, then a new
 * one) twice each in it. Every action must be answered (ok or a stable code), nothing the soak
 * started may still run after it ended everything, and the event log must hold every action that
 * is recorded.
 */
describe('soak, short (issue 32)', () => {
  requireCli('claude-code', 'codex');
  it.skipIf(chromiumMissing())(
    'a minute of random actions through tmux kills and engine restarts: all answered, nothing left, all recorded',
    async () => {
      const figures = await runSoak({
        ...DEFAULT_SOAK,
        durationMs: 60_000,
        shellSeats: 8,
        killTmuxEveryMs: 25_000,
        restartEngineEveryMs: 25_000,
        restartEngineOffsetMs: 12_000,
        actionTimeoutMs: 60_000,
        maxInFlight: 4,
      });
      const summary = JSON.stringify({
        byKind: figures.byKind,
        codes: figures.codes,
        disruptions: figures.disruptions,
      });
      console.info(`soak, short: ${summary}; event log ${JSON.stringify(figures.eventLog)}`);
      expect(figures.actions, summary).toBeGreaterThan(20);
      expect(figures.unansweredDetail, summary).toEqual([]);
      expect(figures.disruptions.filter((d) => d.kind === 'kill-tmux').length).toBeGreaterThanOrEqual(1);
      expect(figures.disruptions.filter((d) => d.kind === 'restart-engine').length).toBeGreaterThanOrEqual(1);
      expect(
        figures.disruptions.filter((d) => !d.ok),
        summary,
      ).toEqual([]);
      expect(figures.leftBehind.processes).toEqual([]);
      expect(figures.eventLog.missing, `${figures.eventLog.recorded}/${figures.eventLog.expected}`).toEqual([]);
      expect(figures.eventLog.expected).toBeGreaterThan(10);
    },
    150_000,
  );
});

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { machineFacts } from '../machine';
import { soakOptionsFromEnv } from './options';
import { runSoak } from './run';

/**
 * Issue 32's soak (bench/README.md): 20 shell seats, a real Claude Code and a real Codex seat
 * (fake model server), the window in Chromium; 20 minutes of a random action every 200 ms, the tmux
 * server killed and the engine restarted every 5 minutes. Figures to bench/results/soak-<stamp>.json.
 */
it('soak: every action answered, nothing left behind, every recorded action in the event log', async () => {
  const opts = soakOptionsFromEnv();
  const machine = machineFacts();
  const at = new Date().toISOString();
  const figures = await runSoak(opts, (l) => console.info(l));
  const result = { bench: 'soak', at, machine, ...figures };
  const text = `${JSON.stringify(result, null, 2)}\n`;
  console.info(text);
  const dir = join(__dirname, '..', 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `soak-${at.replace(/[:.]/g, '-').replace(/-\d+Z$/, 'Z')}.json`), text);
  expect(figures.unansweredDetail).toEqual([]);
  expect(figures.leftBehind.processes).toEqual([]);
  expect(figures.eventLog.missing).toEqual([]);
  expect(figures.disruptions.filter((d) => !d.ok)).toEqual([]);
}, 0);

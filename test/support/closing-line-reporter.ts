import type { Reporter, TestModule } from 'vitest/node';

/** CI reads a plain closing line; vitest's own summary is not one it understands. */
export default class ClosingLineReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const mod of testModules) {
      let failedHere = 0;
      for (const t of mod.children.allTests()) {
        const s = t.result().state;
        if (s === 'passed') passed++;
        else if (s === 'failed') failedHere++;
        else skipped++;
      }
      // A file that failed outside any test (its beforeAll, its import) counts as one failure:
      // its tests never ran, and the line must not read "0 failed".
      failed += mod.state() === 'failed' ? Math.max(failedHere, 1) : failedHere;
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}

import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { CSP } from '../../src/server/static';
import { RENDERER_ORIGIN, WINDOW_CSP } from '../../src/main/shell/renderer-protocol';
import { REPO } from '../support/rig';

/**
 * Checks that flag a required feature for review (a preload, a protocol handler) are answered
 * where the feature is, with the tool's own `eng-disable` annotation after a "Reviewed" comment
 * saying why. This list is every annotation the sources may carry: a new one fails until reviewed.
 */
const REVIEWED: { check: string; file: string; count: number }[] = [
  { check: 'PRELOAD_JS_CHECK', file: 'src/main/index.ts', count: 1 },
  { check: 'PROTOCOL_HANDLER_JS_CHECK', file: 'src/main/shell/app.ts', count: 2 },
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : /\.(ts|tsx|js|html)$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

it('electronegativity finds nothing above informational in the app sources', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rd-eneg-'));
  const csv = join(dir, 'findings.csv');
  try {
    await new Promise<void>((res, rej) =>
      // The tool fetches translations at start; the preload keeps it on 127.0.0.1 (it carries on).
      execFile(
        process.execPath,
        [
          '-r',
          join(REPO, 'test', 'support', 'loopback-only.cjs'),
          join(REPO, 'node_modules', '@doyensec', 'electronegativity', 'dist', 'index.js'),
          '-e',
          '45.5.0',
          '-i',
          join(REPO, 'src'),
          '-o',
          csv,
        ],
        { cwd: REPO, timeout: 240_000 },
        (e) => (e ? rej(e) : res()),
      ),
    );
    // The tool writes code samples into its CSV unquoted (commas, line breaks), so rows are found by
    // their start: `CHECK_ID,SEVERITY,CONFIDENCE,FILE,` at the beginning of a line.
    const text = readFileSync(csv, 'utf8');
    // Fields may be quoted (1.10.3 quotes severity, confidence and file).
    expect(text.split('\n')[0]).toMatch(/^issue, severity, confidence, filename/);
    const rows = [
      ...text.matchAll(/^([A-Z_]+_CHECK),"?(INFORMATIONAL|LOW|MEDIUM|HIGH)"?,"?([A-Z]+)"?,"?([^,"\n]+)"?,/gm),
    ].map(([, check, severity, confidence, file]) => ({
      check: check!,
      severity: severity!,
      confidence: confidence!,
      file: file!.replace(`${REPO}/`, ''),
    }));
    // Every finding the tool counted was read: a miss here would hide one.
    expect(rows.length).toBe((text.match(/^[A-Z_]+_CHECK,/gm) ?? []).length);
    expect(rows.filter((r) => r.severity !== 'INFORMATIONAL')).toEqual([]);
    // Window-level guards are there: their global checks must not fire.
    for (const c of [
      'LIMIT_NAVIGATION_GLOBAL_CHECK',
      'PERMISSION_REQUEST_HANDLER_GLOBAL_CHECK',
      'CONTEXT_ISOLATION_JS_CHECK',
      'NODE_INTEGRATION_JS_CHECK',
      'SANDBOX_JS_CHECK',
    ]) {
      expect(rows.map((r) => r.check)).not.toContain(c);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 300_000);

it('every eng-disable in the sources is on the reviewed list, after a comment saying why', () => {
  const found: { check: string; file: string }[] = [];
  for (const f of sourceFiles(join(REPO, 'src'))) {
    const lines = readFileSync(f, 'utf8').split('\n');
    lines.forEach((l, i) => {
      const m = /eng-disable\s+([A-Z_ ]+)/.exec(l);
      if (!m) return;
      for (const check of m[1]!.trim().split(/\s+/)) found.push({ check, file: f.replace(`${REPO}/`, '') });
      // The reason sits in the comment block just above.
      const above = lines.slice(Math.max(0, i - 4), i).join('\n');
      expect(
        /Reviewed/.test(above) || /eng-disable/.test(lines[i - 1] ?? ''),
        `${f}:${i + 1} has no Reviewed comment`,
      ).toBe(true);
    });
  }
  const counted = REVIEWED.flatMap((r) => Array.from({ length: r.count }, () => ({ check: r.check, file: r.file })));
  const key = (x: { check: string; file: string }) => `${x.file} ${x.check}`;
  expect(found.map(key).sort()).toEqual(counted.map(key).sort());
});

it("the window's CSP names its own origin where the serve host says 'self', and is the one window.ts sends", () => {
  const src = readFileSync(join(REPO, 'src', 'main', 'shell', 'window.ts'), 'utf8');
  // The literal in its array, however the formatter breaks the lines around it.
  expect(src.replace(/\[\s+"/g, '["').replace(/",?\s+\]/g, '"]')).toContain(`["${WINDOW_CSP}"]`);
  expect(WINDOW_CSP.split(RENDERER_ORIGIN).join("'self'")).toBe(CSP);
  // No 'self' in the window: under file:// it would be every file on the disk.
  expect(WINDOW_CSP).not.toContain("'self'");
});

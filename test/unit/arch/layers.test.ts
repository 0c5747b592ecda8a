/**
 * The engine's order (docs/architecture.md, "Inside the engine") is one list: the document's table,
 * lint/engine-layers.cjs (which `npm run lint:arch` enforces) and the folders and root files under
 * src/main/engine must name the same entries in the same order; and the rules built from it refuse
 * an import from a lower folder to an upper one (a fixture engine's tmux/ importing its services/).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { cruise, type ICruiseResult, type IForbiddenRuleType } from 'dependency-cruiser';
import { describe, expect, it } from 'vitest';

const REPO = resolve(__dirname, '..', '..', '..');
const require = createRequire(__filename);
const { ENGINE_LAYERS } = require(join(REPO, 'lint', 'engine-layers.cjs')) as {
  ENGINE_LAYERS: { layer: string; ranks: string[][] }[];
};
const { forbidden } = require(join(REPO, '.dependency-cruiser.cjs')) as { forbidden: IForbiddenRuleType[] };

/** Every folder and root source file of the engine, as the order names them (`tmux/`, `deps.ts`). */
function engineEntries(): string[] {
  return readdirSync(join(REPO, 'src', 'main', 'engine'), { withFileTypes: true })
    .filter((d) => d.isDirectory() || (d.name.endsWith('.ts') && !d.name.endsWith('.d.ts')))
    .map((d) => (d.isDirectory() ? `${d.name}/` : d.name))
    .sort();
}

/** The table's rows: layer, rank, entry. */
function documented(): { layer: string; rank: number; entry: string }[] {
  const doc = readFileSync(join(REPO, 'docs', 'architecture.md'), 'utf8');
  const section = doc.slice(
    doc.indexOf('## Inside the engine'),
    doc.indexOf('\n## ', doc.indexOf('## Inside the engine') + 1),
  );
  return [...section.matchAll(/^\| ([a-z ]+) \| (\d+) \| `([^`]+)` \| .+ \|$/gm)].map((m) => ({
    layer: m[1]!,
    rank: Number(m[2]),
    entry: m[3]!,
  }));
}

/** The order's entries as rows, ranks counted from 1. */
function ordered(): { layer: string; rank: number; entry: string }[] {
  let rank = 0;
  return ENGINE_LAYERS.flatMap((l) =>
    l.ranks.flatMap((r) => (rank++, r.map((entry) => ({ layer: l.layer, rank, entry })))),
  );
}

async function violations(fixture: string): Promise<string[]> {
  const r = await cruise(['src'], {
    ruleSet: { forbidden },
    validate: true,
    baseDir: join(REPO, 'test', 'fixtures', fixture),
    tsPreCompilationDeps: true,
  });
  const out = r.output as ICruiseResult;
  return out.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`);
}

describe("the engine's order", () => {
  it('names every folder and root file under src/main/engine, in docs/architecture.md and in lint/engine-layers.cjs', () => {
    const entries = engineEntries();
    expect(
      documented()
        .map((d) => d.entry)
        .sort(),
    ).toEqual(entries);
    expect(
      ordered()
        .map((d) => d.entry)
        .sort(),
    ).toEqual(entries);
  });

  it('is the same in the document as in the lint: each entry on the same layer and rank, in the same order', () => {
    expect(documented()).toEqual(ordered());
  });

  it('refuses an import from a lower folder to an upper one, and allows the import down', async () => {
    expect(await violations('layers')).toEqual([
      'engine-layers: src/main/engine/tmux/upward.ts -> src/main/engine/services/entry.ts',
    ]);
  });
});

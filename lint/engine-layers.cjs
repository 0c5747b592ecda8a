/**
 * The engine's own order (docs/architecture.md, "Inside the engine"), lowest first: a folder or
 * root file of src/main/engine imports only what stands on an earlier rank, never one beside it or
 * above it, type-only imports included. So no lower folder leans on an upper one and no two folders
 * import each other. .dependency-cruiser.cjs turns it into rules; test/unit/arch/layers.test.ts
 * holds the document and this list together.
 */
const ENGINE_LAYERS = [
  { layer: 'base', ranks: [['deps.ts', 'faults.ts', 'sqlite-binding.ts', 'read-file.ts', 'home-safety.ts', 'children.ts']] },
  {
    layer: 'adapters',
    ranks: [['tmux/', 'proc/', 'spec/', 'git/'], ['home.ts', 'store/', 'runtimes/'], ['evidence-io.ts'], ['context.ts']],
  },
  { layer: 'discovery', ranks: [['roster/'], ['hosts/'], ['ports.ts']] },
  {
    layer: 'domain',
    ranks: [
      ['custody/', 'devices/'],
      ['seats/'],
      ['activity/'],
      ['usage/', 'delivery/'],
      ['prompts/', 'queue/'],
      ['restore/', 'workspace/', 'changes/'],
    ],
  },
  { layer: 'composition root', ranks: [['engine.ts']] },
  { layer: 'requests', ranks: [['services/'], ['api/'], ['rpc/'], ['background.ts', 'lifetime.ts']] },
];

const ENGINE = 'src/main/engine/';
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A path pattern for one entry: a folder and everything under it, or one root file. */
const entryPath = (e) => `^${escape(ENGINE + e)}${e.endsWith('/') ? '' : '$'}`;

/** One rule per entry: nothing of its own rank but itself, nothing of a higher rank. */
function engineLayerRules() {
  const ranks = ENGINE_LAYERS.flatMap((l) => l.ranks);
  return ranks.flatMap((rank, r) =>
    rank.flatMap((entry) => {
      const notBelow = ranks
        .slice(r)
        .flat()
        .filter((e) => e !== entry);
      if (notBelow.length === 0) return [];
      return [
        {
          name: 'engine-layers',
          severity: 'error',
          comment: `src/main/engine/${entry} imports only what stands below it in the engine's order (docs/architecture.md, "Inside the engine").`,
          from: { path: entryPath(entry) },
          to: { path: notBelow.map(entryPath).join('|') },
        },
      ];
    }),
  );
}

module.exports = { ENGINE_LAYERS, engineLayerRules };

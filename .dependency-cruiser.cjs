/**
 * Rigdesk's layer rules (docs/architecture.md, "Layers" and "Inside the engine"), checked by
 * `npm run lint:arch` in `npm test`. Type-only imports count: a circle through types is still a
 * circle, and a lower folder that names an upper one's types leans on it all the same.
 */
const { engineLayerRules } = require('./lint/engine-layers.cjs');

module.exports = {
  forbidden: [
    ...engineLayerRules(),
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import circle anywhere in src/ (type-only imports included).',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'engine-is-not-a-client',
      severity: 'error',
      comment:
        'The engine never imports the Electron shell, the window hub, the terminal bridge, the serve host, the window or the CLI.',
      from: { path: '^src/main/engine/' },
      to: { path: '^src/(main/(shell|window-hub|terminal)|server|renderer|cli|preload)/' },
    },
    {
      name: 'window-is-not-main',
      severity: 'error',
      comment: 'The window talks to the engine only through the contract.',
      from: { path: '^src/renderer/' },
      to: { path: '^src/(main|server|cli|preload)/' },
    },
    {
      name: 'shared-is-a-leaf',
      severity: 'error',
      comment: 'The contract imports nothing of the layers that use it.',
      from: { path: '^src/shared/' },
      to: { path: '^src/(main|renderer|server|cli|preload)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '\\.d\\.ts$' },
  },
};

import type { ClaudeFixture } from '../agents/claude-fixture';

/** A one-seat rig spec whose Claude Code seat runs in the fixture's isolated, offline home. */
export function claudeRigYaml(fx: ClaudeFixture, id = 'lead', rig = 'act'): string {
  const env = Object.entries(fx.env)
    .map(([k, v]) => `          ${k}: ${JSON.stringify(v)}`)
    .join('\n');
  return `name: ${rig}\npods:\n  - id: p\n    members:\n      - id: ${id}\n        runtime: claude-code\n        cwd: ./work\n        env:\n${env}\n`;
}

import { it } from "vitest";
import { runAgent } from '../agents/agent-run';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { closedPort, startFakeModelServer } from '../agents/fake-model-server';
import { CODEX_BIN, makeCodexFixture } from '../agents/codex-fixture';
it('probe', async () => {
const server = await startFakeModelServer();
const fx = makeCodexFixture({ serverUrl: server.url, closedPort: await closedPort(), trustedCwds: ['/tmp'] });
try {
  const reset = Math.floor(Date.now() / 1000) + 3600;
  const r = await runAgent(CODEX_BIN, fx.env, '/tmp', ['exec', '--skip-git-repo-check', `hi USAGE:1000:20:100:0 RATELIMIT:42.5:300:${reset}:7:10080:${reset + 86400}`]); console.log(r.code, r.stdout.slice(0,300), r.stderr.slice(-300));
  const walk = (d: string): string[] => readdirSync(d).flatMap((f) => { const p = join(d, f); return statSync(p).isDirectory() ? walk(p) : [p]; });
  for (const f of walk(join(fx.codexHome, 'sessions'))) for (const l of readFileSync(f, 'utf8').split('\n')) if (l.includes('token_count')) console.log(l.slice(0, 2500));
  console.log(JSON.stringify(server.requests.map((r) => [r.route, r.trigger, r.rateLimits])));
} finally { fx.cleanup(); await server.close(); }

}, 120000);

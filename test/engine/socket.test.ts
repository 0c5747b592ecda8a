import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { RIGDESK_BIN, type RigWorld, shellRigYaml } from '../support/rig';
import { rawCall, servedWorldPerTest } from '../support/serve';

describe('the engine socket (rigdesk serve)', () => {
  const ctx = servedWorldPerTest();
  let w: RigWorld;
  beforeEach(() => {
    w = ctx.w;
  });

  it('serves with a 0600 socket and token file; the CLI talks to it; a wrong token is refused', async () => {
    const info = await ctx.serve();
    expect(info.pid).toBe(ctx.child!.pid);
    expect(statSync(info.socket).mode & 0o777).toBe(0o600);
    expect(statSync(join(w.home, 'engine.json')).mode & 0o777).toBe(0o600);

    // RIGDESK_REQUIRE_ENGINE proves the command went through the socket, not an in-process engine.
    const up = await w.cli(['up', w.spec('rig.yaml', shellRigYaml('demo', ['lead'])), '--json'], {
      RIGDESK_REQUIRE_ENGINE: '1',
    });
    expect(up.code, up.stdout + up.stderr).toBe(0);
    const ps = await w.cli(['ps', '--json'], { RIGDESK_REQUIRE_ENGINE: '1' });
    expect(ps.json.seats[0]).toMatchObject({ seat: 'lead@demo', state: 'running' });

    const bad = await rawCall(info.socket, JSON.stringify({ id: 7, token: 'x'.repeat(48), method: 'ps', params: {} }));
    expect(bad).toMatchObject({ id: 7, result: { ok: false, code: 'ENGINE_AUTH_FAILED' } });
    const junk = await rawCall(info.socket, '{not json');
    expect(junk.result).toMatchObject({ ok: false, code: 'BAD_USAGE' });
    const unknown = await rawCall(
      info.socket,
      JSON.stringify({ id: 8, token: info.token, method: 'rm -rf', params: {} }),
    );
    expect(unknown.result).toMatchObject({ ok: false, code: 'BAD_USAGE' });
    const badParams = await rawCall(
      info.socket,
      JSON.stringify({ id: 9, token: info.token, method: 'launch', params: { seat: 42 } }),
    );
    expect(badParams.result).toMatchObject({ ok: false, code: 'BAD_USAGE' });
    // The engine is still fine after all that.
    expect((await w.cli(['ps', '--json'], { RIGDESK_REQUIRE_ENGINE: '1' })).code).toBe(0);
  });

  it('with no engine running, RIGDESK_REQUIRE_ENGINE refuses and the plain CLI runs one in-process', async () => {
    const r = await w.cli(['ps', '--json'], { RIGDESK_REQUIRE_ENGINE: '1' });
    expect(r.json.code).toBe('ENGINE_UNREACHABLE');
    expect((await w.cli(['ps', '--json'])).code).toBe(0);
  });

  it('a second serve on the same home is refused; a stale engine.json from a dead engine is replaced', async () => {
    await ctx.serve();
    const second = await new Promise<{ code: number | null; err: string }>((resolve) => {
      const p = spawn(process.execPath, [RIGDESK_BIN, 'serve'], { env: w.env, stdio: ['ignore', 'pipe', 'pipe'] });
      let err = '';
      p.stderr!.on('data', (d: Buffer) => (err += d.toString()));
      p.once('exit', (code) => resolve({ code, err }));
    });
    expect(second.code).toBe(1);
    expect(second.err).toMatch(/already serves/);
    ctx.child!.kill('SIGKILL');
    await new Promise((r) => ctx.child!.once('exit', r));
    // SIGKILL left engine.json and the socket behind; the next serve takes over.
    const info = await ctx.serve();
    expect(info.pid).toBe(ctx.child!.pid);
    expect((await w.cli(['ps', '--json'], { RIGDESK_REQUIRE_ENGINE: '1' })).code).toBe(0);
  });
});

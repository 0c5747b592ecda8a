import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FRAME, encodeFrame } from '../../src/shared/contract/app';
import { dispatch } from '../../src/main/engine/api';
import { controlPathFor } from '../../src/main/engine/hosts/ssh';
import { startServe, type ServeHandle } from '../../src/server/serve';
import { RENDERER_DIR, WireClient } from '../app/helpers';
import { RigWorld } from '../support/rig';
import { closeMaster, sshdMissing, TestSshd } from '../support/sshd';
import { waitFor } from '../support/tmux';

describe.skipIf(!!sshdMissing())('browser mode with a remote seat (rigdesk serve wire, real sshd on 127.0.0.1)', () => {
  let w: RigWorld;
  let sshd: TestSshd;
  let serve: ServeHandle | undefined;
  beforeEach(async () => {
    w = new RigWorld();
    sshd = await new TestSshd().start();
  });
  afterEach(async () => {
    await serve?.close();
    closeMaster(controlPathFor(w.home, 'box'));
    await sshd?.cleanup();
    await w.shutdown();
  });

  it("the window gets each seat's host and the host's health, and a live terminal of the remote seat", async () => {
    if (!existsSync(join(RENDERER_DIR, 'index.html'))) throw new Error('build the renderer first (npm run build)');
    const engine = w.engine();
    const spec = w.spec(
      'rig.yaml',
      `${[
        'name: mix',
        'hosts:',
        sshd.hostYaml('box'),
        'pods:',
        '  - id: team',
        '    members:',
        '      - { id: here, runtime: shell, cwd: ., command: bash, args: ["--noprofile", "--norc"] }',
        `      - { id: r1, runtime: shell, cwd: ${sshd.remoteDir}, command: bash, args: ["--noprofile", "--norc"], host: box }`,
      ].join('\n')}\n`,
    );
    const up = await dispatch(engine, 'up', { spec });
    expect(up.ok, JSON.stringify(up)).toBe(true);
    serve = await startServe({ engine, port: 0, staticDir: RENDERER_DIR });
    const c = await WireClient.open(serve);

    const seatsPush = () => [...c.texts].reverse().find((m) => m.push === 'seats');
    await waitFor(() => seatsPush() !== undefined, { what: 'a seats push', timeoutMs: 10_000 });
    const push = seatsPush();
    expect(push.data.seats.find((r: { seat: string }) => r.seat === 'r1@mix')).toMatchObject({
      host: 'box',
      state: 'running',
    });
    expect(push.data.hosts).toEqual([expect.objectContaining({ host: 'box', state: 'reachable' })]);

    await waitFor(
      async () =>
        /[$#] *$/m.test(((await dispatch(engine, 'capture', { seat: 'r1@mix' })) as { text?: string }).text ?? ''),
      { what: 'remote prompt' },
    );
    const term = (await c.call('terminal.open', { seat: 'r1@mix', cols: 80, rows: 24 })).term as number;
    expect(term).toBeGreaterThan(0);
    c.ws.send(encodeFrame(FRAME.INPUT, term, new TextEncoder().encode('echo wire-$((30+12))\r')));
    const text = () =>
      Buffer.concat(
        c.frames.filter((f) => f[0] === FRAME.OUTPUT && f.readUInt32BE(1) === term).map((f) => f.subarray(5)),
      ).toString('utf8');
    await waitFor(() => text().includes('wire-42'), { what: 'remote output over the wire' });
    c.close();
    await waitFor(() => serve!.ctx.terminals.count === 0, { what: 'viewer closed with its socket' });
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { controlPathFor } from '../../src/main/engine/hosts/ssh';
import { RigWorld } from '../support/rig';
import { closeMaster, sshdMissing, TestSshd } from '../support/sshd';
import { waitFor } from '../support/tmux';

describe.skipIf(!!sshdMissing())(
  'one writer per conversation on another host (real sshd, a stand-in claude process there)',
  () => {
    let w: RigWorld;
    let sshd: TestSshd;
    beforeEach(async () => {
      w = new RigWorld();
      sshd = await new TestSshd().start();
    });
    afterEach(async () => {
      closeMaster(controlPathFor(w.home, 'box'));
      await sshd?.cleanup();
      await w.shutdown();
    });

    it('refuses to resume a remote seat whose conversation a process started by hand on that host already writes', async () => {
      // A stand-in named claude: the roster knows Claude by its process name and `--resume <id>` argv.
      const claude = sshd.installProgram('claude', '#!/bin/sh\nexec sleep 600 &\nwait\n');
      const spec = w.spec(
        'rig.yaml',
        sshd.rigYaml('mix', [`{ id: c, runtime: claude-code, cwd: ${sshd.remoteDir}, command: ${claude}, host: box }`]),
      );
      const up = await w.cli(['up', spec, '--json']);
      expect(up.code, up.stdout + up.stderr).toBe(0);
      const conversation = up.json.seats[0].launched.conversationId as string;
      expect(conversation).toMatch(/^[0-9a-f-]{36}$/);
      const e = w.engine();
      expect(e.store.db.prepare('SELECT host FROM conversations WHERE id = ?').get(conversation)).toEqual({
        host: 'box',
      });
      e.store.close();
      const stop = await w.cli(['stop', 'c@mix', '--json']);
      expect(stop.json.stopped.outcome, stop.stdout).toBe('removed');

      // By hand, on the remote host, outside Rigdesk: the same conversation, resumed headless.
      sshd.startAsRemote([claude, '--resume', conversation]);
      await waitFor(
        async () =>
          (await w.cli(['ps', '--all', '--json'])).json.others.some(
            (o: { conversationId?: string; host?: string; headless: boolean }) =>
              o.conversationId === conversation && o.host === 'box' && o.headless,
          ),
        { what: 'the hand-started process in the remote roster, headless on box' },
      );

      const again = await w.cli(['launch', 'c@mix', '--json']);
      expect(again.code, again.stdout).toBe(1);
      expect(again.json.code).toBe('CONVERSATION_LIVE_ELSEWHERE');
      expect(again.json.evidence.host).toBe('box');
      expect(sshd.remoteSessions()).toEqual([]);
    });
  },
);

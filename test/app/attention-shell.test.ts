import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../src/main/engine/api';
import { PushHub } from '../../src/main/window-hub/pushes';
import { startShell } from '../../src/main/shell/app';
import { TerminalHub } from '../../src/main/terminal/hub';
import type { PsRow } from '../../src/shared/contract';
import { RigWorld, shellRigYaml } from '../support/rig';
import { fakeElectron } from './electron-fake';
import { RENDERER_DIR } from './helpers';

/**
 * The attention rule in the Electron shell's wiring, with the Electron API injected (a FAKE that
 * records notifications): no needs-input notification for a seat whose pane has the focus in a
 * visible window; a notification for one nobody looks at; the tray counts what needs the person.
 */
describe('attention in the desktop shell (Electron API injected)', () => {
  const world = new RigWorld();
  const engine = world.engine();
  const pushes = new PushHub(engine, { seatsMs: 60_000, eventsMs: 60_000 });
  const ctx = { engine, terminals: new TerminalHub(engine), pushes };
  beforeAll(async () => {
    expect(
      await dispatch(engine, 'up', { spec: world.spec('duo.yaml', shellRigYaml('duo', ['a', 'b'])) }),
    ).toMatchObject({
      ok: true,
    });
  }, 60_000);
  afterAll(() => {
    pushes.close();
    world.cleanup();
  });

  const row = (seat: string, activity: PsRow['activity']) => ({ seat, activity, needsInput: 'permission' });

  it('a seat watched in a visible window is not notified; one in a hidden window, or not focused, is', async () => {
    const f = fakeElectron();
    const shell = (await startShell({
      api: f.api,
      ctx,
      argv: [],
      preloadPath: '/p',
      rendererRoot: RENDERER_DIR,
      trayImages: { idle: 'idle.png', attention: 'attention.png' },
    }))!;
    const windowA = {};
    const windowB = {};
    pushes.watching.set(windowA, { seat: 'a@duo', visible: true });
    pushes.watching.set(windowB, { seat: 'b@duo', visible: false });
    expect(shell.notifier.update([row('a@duo', 'needs_input'), row('b@duo', 'needs_input')])).toEqual(['b@duo']);
    expect(f.notifications.map((n) => n.title)).toEqual(['b@duo needs you']);
    // The person looked at a while it waited: no notification when they look away from the same wait.
    pushes.watching.set(windowA, { seat: 'b@duo', visible: true });
    expect(shell.notifier.update([row('a@duo', 'needs_input'), row('b@duo', 'needs_input')])).toEqual([]);
    // A new wait of a seat nobody focuses is notified; a closed window watches nothing.
    pushes.watching.delete(windowA);
    shell.notifier.update([row('a@duo', 'idle'), row('b@duo', 'needs_input')]);
    expect(shell.notifier.update([row('a@duo', 'needs_input'), row('b@duo', 'needs_input')])).toEqual(['a@duo']);
    // The notification's click focuses that seat in every window.
    const focused: string[] = [];
    const off = pushes.subscribe((m) => void (m.push === 'focus' && focused.push(m.data.seat)));
    f.notifications.at(-1)!.click();
    expect(focused).toEqual(['a@duo']);
    off();
  });

  it('the tray counts the seats that need the person: at needs_input or with an open restore decision, each once', async () => {
    const f = fakeElectron();
    const shell = (await startShell({
      api: f.api,
      ctx,
      argv: [],
      preloadPath: '/p',
      rendererRoot: RENDERER_DIR,
      trayImages: { idle: 'idle.png', attention: 'attention.png' },
    }))!;
    shell.tray!.update([row('a@duo', 'needs_input'), row('b@duo', 'idle')], ['b@duo', 'a@duo']);
    expect(f.tray).toMatchObject({
      image: 'attention.png',
      tooltip: expect.stringMatching(/^Rigdesk: 2 seat\(s\) need input/),
    });
    shell.tray!.update([row('a@duo', 'idle'), row('b@duo', 'idle')], []);
    expect(f.tray.image).toBe('idle.png');
  });
});

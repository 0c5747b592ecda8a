import type { WindowHubContext } from '../window-hub/connection';
import { dispatch } from '../engine/api';
import type { ElectronApi, MenuItemLike } from './types';

/**
 * The tray's menu: open the window, put the `rigdesk` command on PATH (the same engine request
 * as `rigdesk install-shim`, run in this process so the shim points at this app; the result, with
 * where it went and how to remove it, comes back as a notification), quit.
 */
export function trayMenu(
  api: Pick<ElectronApi, 'createNotification' | 'notificationsSupported' | 'app'>,
  ctx: WindowHubContext,
  open: () => void,
): MenuItemLike[] {
  return [
    { label: 'Open Rigdesk', click: open },
    { label: 'Put the rigdesk command on PATH…', click: () => void installFromMenu(api, ctx) },
    { type: 'separator' },
    { label: 'Quit Rigdesk', click: () => api.app.quit() },
  ];
}

export async function installFromMenu(
  api: Pick<ElectronApi, 'createNotification' | 'notificationsSupported'>,
  ctx: WindowHubContext,
): Promise<{ title: string; body: string }> {
  const r = await dispatch(ctx.engine, 'shim.install', {});
  const s = r.ok ? (r.shim as { path: string; remove: string; pathHint?: string }) : undefined;
  const note = s
    ? { title: `rigdesk is at ${s.path}`, body: [s.pathHint, `Remove it with: ${s.remove}`].filter(Boolean).join('\n') }
    : { title: 'rigdesk was not put on PATH', body: r.ok ? '' : `${r.message}${r.hint ? `\n${r.hint}` : ''}` };
  if (api.notificationsSupported()) api.createNotification(note).show();
  return note;
}

import { useCallback, useEffect, useState } from 'react';
import type { ClientAnswer } from '../../../shared/contract';
import { call } from '../state/actions';
import { noteDone } from '../state/store';
import { DialogFrame } from './DialogFrame';

type DevicesAnswer = ClientAnswer<'devices.list'>;

/** How often the list is read again while it is open (last seen, open connections). */
const EVERY_MS = 5000;

const when = (t: number | null) => (t === null ? '—' : new Date(t).toLocaleString());

/**
 * Devices: the phones and other machines paired with `rigdesk devices pair` while `rigdesk serve
 * --listen` runs, and revoking one (its open connections close; its token is refused from then on).
 * Pairing itself stays on the command line: its code must be shown on this machine's screen.
 */
export function DevicesDialog() {
  const [list, setList] = useState<DevicesAnswer | undefined>();
  const read = useCallback(async () => {
    const r = await call('devices.list', {}, 'the devices', { quiet: true });
    if (r?.ok) setList(r);
  }, []);
  useEffect(() => {
    void read();
    const t = setInterval(() => void read(), EVERY_MS);
    return () => clearInterval(t);
  }, [read]);
  const revoke = async (id: string, name: string) => {
    const r = await call('devices.revoke', { id }, `revoking ${name}`);
    if (r?.ok) noteDone(`${name} revoked; ${r.closed} connection(s) closed`);
    await read();
  };
  return (
    <DialogFrame title="Devices" wide>
      <p className="muted" data-testid="devices-listening">
        {list?.listening
          ? `Paired devices reach this window at ${list.listening}.`
          : 'No window is open beyond this machine: start `rigdesk serve --listen <address:port>`.'}{' '}
        Pair one with <code>rigdesk devices pair --name NAME</code> on this machine.
      </p>
      {list && list.devices.length === 0 && <p className="empty">No device is paired.</p>}
      {list && list.devices.length > 0 && (
        <table className="devices">
          <thead>
            <tr>
              <th>Name</th>
              <th>Paired</th>
              <th>Last seen</th>
              <th>Address</th>
              <th>Now</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {list.devices.map((d) => (
              <tr key={d.id} data-device={d.id}>
                <td>
                  {d.name} <span className="muted">{d.id}</span>
                </td>
                <td>{when(d.pairedAt)}</td>
                <td>{when(d.lastSeenAt)}</td>
                <td>{d.lastAddress ?? d.pairedFrom ?? '—'}</td>
                <td>{d.revokedAt !== null ? `revoked ${when(d.revokedAt)}` : `${d.connections} open`}</td>
                <td>
                  {d.revokedAt === null && (
                    <button type="button" className="danger" onClick={() => void revoke(d.id, d.name)}>
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </DialogFrame>
  );
}

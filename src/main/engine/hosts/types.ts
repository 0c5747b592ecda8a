/**
 * A host is a machine seats run on: this one (`local`) or one reached over OpenSSH. The engine
 * reaches every host through the same two things, a way to run a program there and a way to read
 * its process table, so a remote host is a transport, not a second engine.
 */

export const LOCAL_HOST = 'local';

// What a host is and how it is reached are the contract's (the hosts answers carry them).
export type { HostHealth, HostSpec, SshTarget } from '../../../shared/contract/hosts';

export function isLocal(host: string | null | undefined): boolean {
  return host === undefined || host === null || host === '' || host === LOCAL_HOST;
}

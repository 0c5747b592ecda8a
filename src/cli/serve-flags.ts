import { readFileSync } from 'node:fs';
import { fail, type Result } from '../shared/errors';
import type { ListenOptions } from '../server/serve';
import { parseListen } from '../server/peers';
import type { ParsedArgs } from './args';

export interface ServeFlags {
  port: number;
  listen?: ListenOptions;
}

const str = (a: ParsedArgs, k: string) => (typeof a.flags[k] === 'string' ? (a.flags[k] as string) : undefined);

/** `serve`'s flags: the local port, and `--listen` with its TLS files and public URL, checked before anything starts. */
export function serveFlags(a: ParsedArgs): Result<ServeFlags> {
  const port = a.flags.port === undefined ? 0 : Number(a.flags.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    return fail('BAD_USAGE', '--port takes a port number (0 picks a free one)');
  for (const k of ['listen', 'tls-cert', 'tls-key', 'public-url'])
    if (a.flags[k] === true) return fail('BAD_USAGE', `--${k} needs a value`);
  const raw = str(a, 'listen');
  const cert = str(a, 'tls-cert');
  const key = str(a, 'tls-key');
  const publicUrl = str(a, 'public-url');
  if (!raw) {
    if (cert || key || publicUrl) return fail('BAD_USAGE', '--tls-cert, --tls-key and --public-url go with --listen');
    return { ok: true, port };
  }
  const at = parseListen(raw);
  if (!at)
    return fail('BAD_USAGE', `--listen takes address:port, not ${raw.slice(0, 80)}`, {
      hint: 'For example --listen 100.64.0.5:8443 (a Tailscale address) or --listen 0.0.0.0:8443.',
    });
  if (Boolean(cert) !== Boolean(key)) return fail('BAD_USAGE', '--tls-cert and --tls-key go together');
  if (publicUrl && !/^https?:\/\/[^/\s]+\/?$/.test(publicUrl))
    return fail('BAD_USAGE', '--public-url takes a base URL such as https://box.example.ts.net:8443');
  let tls: ListenOptions['tls'];
  if (cert && key) {
    try {
      tls = { cert: readFileSync(cert), key: readFileSync(key) };
    } catch (e) {
      return fail('BAD_USAGE', `cannot read the TLS files: ${(e as Error).message}`);
    }
  }
  return { ok: true, port, listen: { ...at, ...(tls ? { tls } : {}), ...(publicUrl ? { publicUrl } : {}) } };
}

import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.woff2': 'font/woff2',
  '.ico': 'image/x-icon',
};

/**
 * The browser-mode policy: the Electron window's (WINDOW_CSP) with its own origin as 'self'; here the
 * origin is 127.0.0.1:<port>, which serves nothing but the bundle and the contract's WebSocket.
 */
export const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'";

/** Where a request path lands under `root`, or why it is refused (the one rule both hosts use). */
export function resolveUnder(
  root: string,
  urlPath: string,
): { ok: true; file: string; type: string } | { ok: false; status: 400 | 403; text: string } {
  let path: string;
  try {
    path = decodeURIComponent(urlPath);
  } catch {
    return { ok: false, status: 400, text: 'bad path' };
  }
  if (path.includes('\0')) return { ok: false, status: 400, text: 'bad path' };
  const rel = normalize(path === '/' || path === '' ? '/index.html' : path).replace(/^([/\\])+/, '');
  const file = join(root, rel);
  if (file !== root && !file.startsWith(root.endsWith(sep) ? root : root + sep))
    return { ok: false, status: 403, text: 'forbidden' };
  return { ok: true, file, type: TYPES[extname(file)] ?? 'application/octet-stream' };
}

/** Serves the built renderer; nothing outside `root`, no directory listings, GET/HEAD only. */
export async function serveStatic(root: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') return end(res, 405, 'method not allowed');
  let urlPath: string;
  try {
    urlPath = new URL(req.url ?? '/', 'http://x').pathname;
  } catch {
    return end(res, 400, 'bad path');
  }
  const at = resolveUnder(root, urlPath);
  if (!at.ok) return end(res, at.status, at.text);
  let body: Buffer;
  try {
    body = await readFile(at.file);
  } catch {
    return end(res, 404, 'not found');
  }
  res.writeHead(200, {
    'content-type': at.type,
    'content-security-policy': CSP,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

function end(res: ServerResponse, code: number, text: string): void {
  res.writeHead(code, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(text);
}

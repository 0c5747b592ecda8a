import { readFile } from 'node:fs/promises';
import { resolveUnder } from '../../server/static';
import type { ProtocolLike } from './types';

/**
 * The window loads the bundled renderer from its own scheme, `rigdesk-app://renderer/`, not from
 * file://. Under file:// the CSP's 'self' is every file on the disk; here the window's origin holds
 * exactly the bundle, so the CSP can name that origin and nothing else (no 'self' at all), and a
 * request for anything outside the bundle's folder is refused by the same rule the serve host uses.
 */
export const RENDERER_SCHEME = 'rigdesk-app';
export const RENDERER_ORIGIN = `${RENDERER_SCHEME}://renderer`;
export const RENDERER_URL = `${RENDERER_ORIGIN}/index.html`;

/**
 * The window's policy. window.ts spells the same literal out (electronegativity reads literals);
 * a test keeps the two equal, and equal to the serve host's CSP with 'self' for this origin.
 */
export const WINDOW_CSP = `default-src ${RENDERER_ORIGIN}; script-src ${RENDERER_ORIGIN}; style-src ${RENDERER_ORIGIN} 'unsafe-inline'; img-src ${RENDERER_ORIGIN} data:; connect-src ${RENDERER_ORIGIN}; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'`;

/**
 * Standard and secure so relative URLs, module scripts and storage behave as on https; CSP is NOT
 * bypassed. Electron honours one registration call, made before the app is ready.
 */
export const RENDERER_PRIVILEGES = {
  standard: true,
  secure: true,
  supportFetchAPI: true,
  corsEnabled: true,
  bypassCSP: false,
  stream: false,
} as const;

export interface RendererReply {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array | string;
}

/** The answer to one request on the renderer scheme: a file of the bundle with the CSP, or a refusal. */
export async function rendererReply(
  root: string,
  req: { url: string; method?: string },
  read: (file: string) => Promise<Uint8Array> = readFile,
): Promise<RendererReply> {
  const refuse = (status: number, text: string): RendererReply => ({
    status,
    headers: { 'content-type': 'text/plain; charset=utf-8' },
    body: text,
  });
  if (req.method && req.method !== 'GET' && req.method !== 'HEAD') return refuse(405, 'method not allowed');
  let url: URL;
  try {
    url = new URL(req.url);
  } catch {
    return refuse(400, 'bad url');
  }
  if (url.protocol !== `${RENDERER_SCHEME}:` || url.host !== 'renderer') return refuse(404, 'not found');
  const at = resolveUnder(root, url.pathname);
  if (!at.ok) return refuse(at.status, at.text);
  let body: Uint8Array;
  try {
    body = await read(at.file);
  } catch {
    return refuse(404, 'not found');
  }
  return {
    status: 200,
    headers: {
      'content-type': at.type,
      'content-security-policy': WINDOW_CSP,
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
    },
    body: req.method === 'HEAD' ? '' : body,
  };
}

/** Before `ready`: the scheme's privileges. */
export function registerRendererScheme(protocol: ProtocolLike): void {
  protocol.registerSchemesAsPrivileged([{ scheme: RENDERER_SCHEME, privileges: { ...RENDERER_PRIVILEGES } }]);
}

/** After `ready`: every request on the scheme is answered from `root` only. */
export function serveRenderer(protocol: ProtocolLike, root: string): void {
  protocol.handle(RENDERER_SCHEME, async (req) => {
    const r = await rendererReply(root, req);
    return new Response(r.body as BodyInit, { status: r.status, headers: r.headers });
  });
}

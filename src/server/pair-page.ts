import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Devices } from '../main/engine/devices/pairing';
import type { ErrorCode } from '../shared/errors';
import { deviceCookie } from './peers';

const STATUS: Partial<Record<ErrorCode, number>> = {
  PAIR_CODE_USED: 410,
  PAIR_CODE_EXPIRED: 410,
  PAIR_CODE_UNKNOWN: 404,
  PAIRING_CLOSED: 429,
};

/** Nothing on these pages loads anything: no script, no style from outside, no frame. */
const PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'";

const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': PAGE_CSP,
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};

/** A small page of its own (a refusal, a pairing's outcome), never the window's shell. */
export function page(res: ServerResponse, status: number, title: string, body: string): void {
  res.writeHead(status, HEADERS);
  res.end(
    `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(title)}</title></head><body style="font-family:sans-serif;margin:2em"><h1 style="font-size:1.3em">${escapeHtml(title)}</h1><p>${escapeHtml(body)}</p></body></html>`,
  );
}

/**
 * GET /pair/<code>: the first use of a code stores the device's token in its cookie and redirects
 * (303) to the window; any later use answers 410. The body links on too, for a browser that stops
 * at a redirect; a pairing link opened from another site's page may reach the window without the
 * SameSite=Strict cookie once, and the not-paired page says to reload.
 */
export function pairRoute(
  devices: Devices,
  code: string,
  address: string,
  tls: boolean,
  req: IncomingMessage,
  res: ServerResponse,
): void {
  if (req.method !== 'GET') {
    page(res, 405, 'Not allowed', 'Open the pairing link in a browser.');
    return;
  }
  const r = devices.redeem(code, address);
  if (!r.ok) {
    page(res, STATUS[r.code] ?? 400, r.message, r.hint ?? '');
    return;
  }
  res.writeHead(303, { ...HEADERS, location: '/', 'set-cookie': deviceCookie(r.token, tls) });
  res.end(
    `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>Paired</title></head><body style="font-family:sans-serif;margin:2em"><p>This device is paired as ${escapeHtml(r.device.name)}. <a href="/">Open Rigdesk</a></p></body></html>`,
  );
}

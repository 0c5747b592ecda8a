import { create } from 'qrcode';

const QUIET = 4;

/**
 * A QR code for a terminal: two module rows per line with the upper half block, dark on light in
 * explicit colours (a dark terminal's default colours would invert it, and some readers then fail),
 * with the standard quiet zone of four modules.
 */
export function terminalQr(text: string): string {
  const m = create(text, { errorCorrectionLevel: 'M' }).modules;
  const size = m.size + QUIET * 2;
  const dark = (r: number, c: number) => {
    const rr = r - QUIET;
    const cc = c - QUIET;
    return rr >= 0 && cc >= 0 && rr < m.size && cc < m.size && m.get(rr, cc) === 1;
  };
  const lines: string[] = [];
  for (let r = 0; r < size; r += 2) {
    let line = '';
    for (let c = 0; c < size; c++) line += `\x1b[${dark(r, c) ? 30 : 97};${dark(r + 1, c) ? 40 : 107}m▀`;
    lines.push(`${line}\x1b[0m`);
  }
  return lines.join('\n');
}

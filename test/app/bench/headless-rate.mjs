// @xterm/headless fed `seq 1 N`'s bytes in 64 KB writes, in a process of its own: the parser's
// limit without the bench's heap, timers and engine beside it. Prints {"bytes":…,"ms":…}.
// Usage: node headless-rate.mjs LINES COLS ROWS
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';

const { Terminal } = createRequire(import.meta.url)('@xterm/headless');
const [lines, cols, rows] = process.argv.slice(2).map(Number);
const parts = [];
for (let i = 1; i <= lines; i++) parts.push(String(i));
const bytes = Buffer.from(`${parts.join('\r\n')}\r\n`);
const t = new Terminal({ cols, rows, allowProposedApi: true });
const start = performance.now();
const CHUNK = 64 * 1024;
for (let off = 0; off < bytes.length; off += CHUNK) t.write(bytes.subarray(off, off + CHUNK));
t.write('', () => {
  process.stdout.write(JSON.stringify({ bytes: bytes.length, ms: performance.now() - start }));
  t.dispose();
});

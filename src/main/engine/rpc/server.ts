import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { rpcRequest } from '../../../shared/contract';
import { fail, type Result } from '../../../shared/errors';
import { dispatchWire } from '../api';
import { type Fs, liveFs } from '../deps';
import type { Engine } from '../engine';
import { OWN_FILE_MAX_BYTES, type ReadFs, readRegularText } from '../read-file';

export interface EngineInfo {
  pid: number;
  startTime?: string;
  socket: string;
  token: string;
  startedAt: number;
}

const MAX_LINE = 4 * 1024 * 1024;

/** The running engine's engine.json, undefined when there is none (or it cannot be read). */
export function readEngineInfo(path: string, fs: ReadFs = liveFs): EngineInfo | undefined {
  try {
    return JSON.parse(readRegularText(path, OWN_FILE_MAX_BYTES, fs)) as EngineInfo;
  } catch {
    return undefined;
  }
}

/**
 * The engine's local socket: newline-delimited JSON, mode 0600, and a per-start token that a
 * client reads from engine.json (also 0600). Only the same user can connect or read the token.
 */
export async function serveEngineSocket(
  engine: Engine,
): Promise<{ server: Server; info: EngineInfo; close: () => Promise<void> }> {
  const { socketPath, engineInfoPath } = engine.deps.layout;
  const prev = readEngineInfo(engineInfoPath, engine.ports.fs);
  if (prev && prev.pid !== process.pid) {
    const p = engine.deps.proc.read(prev.pid);
    if (p && (!prev.startTime || p.startTime === prev.startTime)) {
      throw Object.assign(new Error(`another Rigdesk engine (pid ${prev.pid}) already serves ${socketPath}`), {
        code: 'ENGINE_RUNNING',
      });
    }
  }
  if (engine.ports.fs.existsSync(socketPath)) engine.ports.fs.unlinkSync(socketPath);
  const token = randomBytes(24).toString('hex');
  const tokenBuf = Buffer.from(token);
  const server = createServer((sock) => handleConnection(engine, sock, tokenBuf));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    const old = process.umask(0o177);
    server.listen(socketPath, () => {
      process.umask(old);
      resolve();
    });
  });
  engine.ports.fs.chmodSync(socketPath, 0o600);
  const info: EngineInfo = {
    pid: process.pid,
    startTime: engine.deps.proc.read(process.pid)?.startTime,
    socket: socketPath,
    token,
    startedAt: Date.now(),
  };
  engine.ports.fs.writeFileSync(engineInfoPath, JSON.stringify(info), { mode: 0o600 });
  engine.ports.fs.chmodSync(engineInfoPath, 0o600);
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      try {
        if (readEngineInfo(engineInfoPath, engine.ports.fs)?.token === token)
          engine.ports.fs.unlinkSync(engineInfoPath);
      } catch {
        /* already gone */
      }
    });
  return { server, info, close };
}

function handleConnection(engine: Engine, sock: Socket, token: Buffer): void {
  let buf = '';
  sock.setEncoding('utf8');
  sock.on('error', () => undefined);
  sock.on('data', (chunk: string) => {
    buf += chunk;
    if (buf.length > MAX_LINE && !buf.includes('\n')) {
      sock.end(`${JSON.stringify({ id: null, result: fail('BAD_USAGE', 'request too large') })}\n`);
      buf = '';
      return;
    }
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      void answer(engine, sock, token, line);
    }
  });
}

async function answer(engine: Engine, sock: Socket, token: Buffer, line: string): Promise<void> {
  let id: number | null = null;
  let result: Result;
  try {
    const parsed = rpcRequest.safeParse(JSON.parse(line));
    if (!parsed.success) result = fail('BAD_USAGE', 'malformed request frame');
    else {
      id = parsed.data.id;
      const given = Buffer.from(parsed.data.token);
      if (given.length !== token.length || !timingSafeEqual(given, token))
        result = fail('ENGINE_AUTH_FAILED', 'wrong engine token');
      else result = await dispatchWire(engine, parsed.data.method, parsed.data.params);
    }
  } catch {
    result = fail('BAD_USAGE', 'request is not JSON');
  }
  if (!sock.destroyed) sock.write(`${JSON.stringify({ id, result })}\n`);
}

import { connect } from 'node:net';
import type { Method, ResultOf } from '../../../shared/contract';
import { answerFromWire } from '../../../shared/contract/wire';
import { fail } from '../../../shared/errors';
import { readEngineInfo } from './server';

/**
 * Talks to a running engine (the app or `rigdesk serve`) over its socket. Returns undefined when
 * no engine is listening, so the caller can run one in-process instead.
 */
export async function callRunningEngine<M extends Method>(
  engineInfoPath: string,
  method: M,
  params: unknown,
  timeoutMs = 120_000,
): Promise<ResultOf<M> | undefined> {
  const info = readEngineInfo(engineInfoPath);
  if (!info) return undefined;
  try {
    process.kill(info.pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ESRCH') return undefined;
  }
  return new Promise((resolve) => {
    const sock = connect(info.socket);
    let buf = '';
    let settled = false;
    const done = (r: ResultOf<M> | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      sock.destroy();
      resolve(r);
    };
    const timer = setTimeout(
      () =>
        done(
          fail('ENGINE_UNREACHABLE', `the engine (pid ${info.pid}) did not answer ${method} within ${timeoutMs} ms`),
        ),
      timeoutMs,
    );
    sock.setEncoding('utf8');
    sock.on('error', (e: NodeJS.ErrnoException) =>
      done(
        e.code === 'ENOENT' || e.code === 'ECONNREFUSED'
          ? undefined
          : fail('ENGINE_UNREACHABLE', `engine socket: ${e.message}`),
      ),
    );
    sock.on('connect', () => sock.write(`${JSON.stringify({ id: 1, token: info.token, method, params })}\n`));
    sock.on('data', (chunk: string) => {
      buf += chunk;
      const nl = buf.indexOf('\n');
      if (nl < 0) return;
      try {
        done(answerFromWire(method, (JSON.parse(buf.slice(0, nl)) as { result?: unknown }).result));
      } catch {
        done(fail('ENGINE_UNREACHABLE', 'the engine answered something that is not JSON'));
      }
    });
  });
}

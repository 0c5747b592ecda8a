import { constants } from 'node:os';
import { killAllNow } from './children';

/** What ends a process that runs an engine: a signal, or an error nobody caught. */
export type EndReason = { kind: 'signal'; signal: EndSignal } | { kind: 'fatal'; error: Error };

export const END_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
export type EndSignal = (typeof END_SIGNALS)[number];

/** The shell's exit code for a process ended by a signal (130 for SIGINT, 143 for SIGTERM). */
export function signalExitCode(signal: EndSignal): number {
  return 128 + constants.signals[signal];
}

export interface EndWatch {
  /** The first reason to end: the caller ends its engine (bounded) and exits. */
  reason: Promise<EndReason>;
  /** Takes the handlers off again (an orderly end that needs them no more). */
  dispose(): void;
}

/**
 * Turns SIGTERM, SIGINT and SIGHUP, and an uncaught error or rejection, into one reason to end, so
 * the process that runs an engine (`rigdesk serve`, the CLI's own engine, the app) ends every
 * process the engine started before it exits (Engine.close) instead of dying with them left
 * behind. A second signal while that end runs is a person insisting: what the engine still tracks is
 * killed at once and the process exits.
 */
export function watchForEnd(): EndWatch {
  let first: ((r: EndReason) => void) | undefined;
  const reason = new Promise<EndReason>((r) => (first = r));
  let ended = false;
  const end = (r: EndReason, exitCode: number) => {
    if (!ended) {
      ended = true;
      first?.(r);
      return;
    }
    // An error while the end runs is one of its effects (a request cut off): the end goes on.
    if (r.kind === 'fatal') return;
    killAllNow();
    process.exit(exitCode);
  };
  const onSignal = (s: EndSignal) => () => end({ kind: 'signal', signal: s }, signalExitCode(s));
  const handlers = END_SIGNALS.map((s) => [s, onSignal(s)] as const);
  const onError = (e: unknown) => end({ kind: 'fatal', error: e instanceof Error ? e : new Error(String(e)) }, 1);
  for (const [s, h] of handlers) process.on(s, h);
  process.on('uncaughtException', onError);
  process.on('unhandledRejection', onError);
  return {
    reason,
    dispose: () => {
      for (const [s, h] of handlers) process.off(s, h);
      process.off('uncaughtException', onError);
      process.off('unhandledRejection', onError);
    },
  };
}

/** Runs `fn`, but no longer than `ms`: a shutdown step that hangs must not keep the process. */
export async function within(ms: number, fn: () => Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    fn().catch(() => undefined),
    new Promise<void>((r) => {
      timer = setTimeout(r, ms);
    }),
  ]);
  clearTimeout(timer);
}

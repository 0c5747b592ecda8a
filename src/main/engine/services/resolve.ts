import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { fail, type Result } from '../../../shared/errors';
import { parseSeatRef } from '../spec';
import type { Engine } from '../engine';
import type { SeatRow } from '../store';

export function findSeat(engine: Engine, ref: unknown): Result<{ seat: SeatRow }> {
  const parsed = parseSeatRef(ref);
  if (!parsed.ok) return parsed;
  const seat = engine.store.rigs.seat(parsed.seat);
  if (!seat) {
    return fail('SEAT_NOT_FOUND', `no seat ${parsed.seat}`, {
      hint: engine.store.rigs.exists(parsed.rig)
        ? `Rig ${parsed.rig} has: ${engine.store.rigs
            .seats(parsed.rig)
            .map((s) => s.seat)
            .join(', ')}.`
        : `Bring the rig up first: rigdesk up <spec.yaml>.`,
      evidence: { seat: parsed.seat },
    });
  }
  return { ok: true, seat };
}

/** Finds a program on a PATH the way a shell would; the seat's own PATH wins over the engine's. */
export function whichOnPath(program: string, pathVar: string | undefined): string | undefined {
  const isExec = (p: string) => {
    try {
      accessSync(p, constants.X_OK);
      return statSync(p).isFile();
    } catch {
      return false;
    }
  };
  if (program.includes('/')) return isAbsolute(program) && isExec(program) ? program : undefined;
  for (const dir of (pathVar ?? '').split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, program);
    if (isExec(p)) return p;
  }
  return undefined;
}

export const INSTALL_HINTS: Record<string, string> = {
  'claude-code': 'npm install -g @anthropic-ai/claude-code',
  codex: 'npm install -g @openai/codex',
  pi: 'npm install -g @mariozechner/pi-coding-agent',
  qwen: 'npm install -g @qwen-code/qwen-code',
};

import type { PromptItem } from '../../../shared/contract/app';
import type { Result } from '../../../shared/errors';
import type { Engine } from '../engine';
import { promptsFor } from '../prompts/list';
import { ps } from './ps';

/** The Decisions view's live prompts: the seats `ps` finds at needs_input, with what their screens ask. */
export async function listPrompts(engine: Engine, rig?: string): Promise<Result<{ prompts: PromptItem[] }>> {
  const r = await ps(engine, rig ? { rig } : {});
  if (!r.ok) return r;
  return { ok: true, prompts: await promptsFor(engine.ports, r.seats) };
}

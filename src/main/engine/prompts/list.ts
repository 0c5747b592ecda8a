import type { PsRow } from '../../../shared/contract';
import type { PromptChoice, PromptItem } from '../../../shared/contract/app';
import { capturePanes } from '../activity/capture';
import type { Ports } from '../ports';
import { PROMPT_KEYS, readPrompt, toolOf } from './screens';

/** Lines of screen shown as evidence when no prompt block can be picked out. */
const TAIL_LINES = 12;

/**
 * The live items of the Decisions view, from `ps` rows already observed: one batched capture per
 * tmux server for the seats at needs_input, nothing for the others.
 */
export async function promptsFor(ports: Pick<Ports, 'client'>, rows: readonly PsRow[]): Promise<PromptItem[]> {
  const waiting = rows.filter((r) => r.activity === 'needs_input' && r.server && r.paneId);
  if (waiting.length === 0) return [];
  const byServer = new Map<string, string[]>();
  for (const r of waiting) byServer.set(r.server!, [...(byServer.get(r.server!) ?? []), r.paneId!]);
  const screens = new Map<string, { plain: string[]; styled: string[] }>();
  await Promise.all(
    [...byServer].map(async ([server, panes]) => {
      try {
        for (const [id, s] of await capturePanes(ports.client(server), panes))
          screens.set(`${server} ${id}`, { plain: s.plain, styled: s.styled });
      } catch {
        /* an unreadable server: its items show without a screen */
      }
    }),
  );
  return waiting.map((r) => {
    const { plain, styled } = screens.get(`${r.server} ${r.paneId}`) ?? { plain: [], styled: [] };
    const asked = r.needsInput ?? 'input';
    const keys = PROMPT_KEYS[r.runtime];
    const read = asked === 'permission' || asked === 'question' ? readPrompt(r.runtime, plain, styled) : undefined;
    // The screen says what it asks: a runtime's hook calls a question a permission prompt too.
    const reason = read?.kind === 'question' ? 'question' : asked;
    const offers = read && keys ? read.offers : [];
    const choices: PromptChoice[] = [...new Set(offers.map((o) => o.choice))];
    const note =
      reason !== 'permission' && reason !== 'question'
        ? `answer it in the terminal (${reason.replace(/_/g, ' ')})`
        : !keys
          ? `${r.runtime} prompts are answered in its terminal`
          : !read
            ? 'the prompt is not on screen; answer it in the terminal'
            : read.why;
    const tool = read ? toolOf(read.lines) : undefined;
    return {
      seat: r.seat,
      rig: r.rig,
      runtime: r.runtime,
      reason,
      ...(tool ? { tool } : {}),
      choices,
      ...(offers.length
        ? {
            offers: offers.map((o) => ({
              choice: o.choice,
              label: o.label,
              ...(o.option !== undefined ? { option: o.option } : {}),
            })),
          }
        : {}),
      screen: read?.lines ?? plain.slice(-TAIL_LINES).map((l) => l.trimEnd()),
      ...(read ? { fingerprint: read.fingerprint } : {}),
      paneId: r.paneId,
      ...(note ? { note } : {}),
    };
  });
}

/**
 * Runs `work` over `items` at most `width` at a time, and gives the answers back in the items'
 * order. Items that share a `chain` key run one after another, in their order, inside one lane:
 * two seats that would resume the same conversation never launch at the same moment, so each
 * launch's custody check sees the other's bound session (one conversation, one writer).
 *
 * Why lanes and not all at once: tmux runs one server thread, and 200 creates written together
 * starve every other command on that server (a restore of 200 at once timed most of them out);
 * one after another leaves the engine idle while tmux forks each pane.
 */
export const LAUNCH_LANES = 16;

export async function inLanes<T, R>(
  items: readonly T[],
  width: number,
  work: (item: T, index: number) => Promise<R>,
  chain: (item: T, index: number) => string = (_, i) => String(i),
): Promise<R[]> {
  const chains = new Map<string, number[]>();
  items.forEach((item, i) => {
    const key = chain(item, i);
    const list = chains.get(key);
    if (list) list.push(i);
    else chains.set(key, [i]);
  });
  const queue = [...chains.values()];
  const out = new Array<R>(items.length);
  let next = 0;
  // A throw stops every lane from taking more (as a loop would stop), and is thrown once all have.
  let thrown: { error: unknown } | undefined;
  const lane = async (): Promise<void> => {
    while (!thrown && next < queue.length) {
      const indexes = queue[next++]!;
      for (const i of indexes) {
        if (thrown) return;
        try {
          out[i] = await work(items[i]!, i);
        } catch (error) {
          thrown ??= { error };
        }
      }
    }
  };
  const lanes = Math.max(1, Math.min(Math.floor(width) || 1, queue.length));
  await Promise.all(Array.from({ length: lanes }, lane));
  if (thrown) throw thrown.error;
  return out;
}

/**
 * At most `width` calls of `run` at once; the rest wait their turn, first come first served. For a
 * step of a longer task (a restore's launch, not its proof wait after it) where lanes would hold a
 * slot through the whole task.
 */
export class Slots {
  private busy = 0;
  private readonly queue: (() => void)[] = [];
  constructor(private readonly width: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.busy >= this.width) await new Promise<void>((r) => this.queue.push(r));
    else this.busy += 1;
    try {
      return await work();
    } finally {
      const next = this.queue.shift();
      if (next) next();
      else this.busy -= 1;
    }
  }
}

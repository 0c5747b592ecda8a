import type { ByModel, TokenKinds } from './records';

/** At most this many models are kept apart per conversation; later ones share the unnamed entry. */
const MAX_MODELS = 16;

export const NO_TOKENS: Readonly<TokenKinds> = { input: 0, cacheRead: 0, cacheWrite: 0, output: 0 };

/**
 * A conversation's tokens by model and kind, kept as the records are folded: a call adds its
 * kinds; a record that replaces an earlier one (the same message id written again) takes the
 * earlier one's off first. A copy is handed out, so a caller never changes the running sums.
 */
export class KindsLedger {
  private readonly models = new Map<string, TokenKinds>();

  add(model: string | undefined, k: TokenKinds, sign: 1 | -1 = 1): void {
    let key = model ?? '';
    if (!this.models.has(key) && this.models.size >= MAX_MODELS) key = '';
    const t = this.models.get(key) ?? { ...NO_TOKENS };
    t.input += sign * k.input;
    t.cacheRead += sign * k.cacheRead;
    t.cacheWrite += sign * k.cacheWrite;
    t.output += sign * k.output;
    this.models.set(key, t);
  }

  clear(): void {
    this.models.clear();
  }

  get size(): number {
    return this.models.size;
  }

  byModel(): ByModel {
    const out: ByModel = {};
    for (const [m, k] of this.models) out[m] = { ...k };
    return out;
  }
}

/** Every input kind: what `tokensIn` counts. */
export const inputOf = (k: TokenKinds): number => k.input + k.cacheRead + k.cacheWrite;

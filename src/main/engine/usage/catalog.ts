import { calcPrice, type ModelPrice } from '@pydantic/genai-prices';

/**
 * The model catalog: a maintained library's bundled table of models (context windows and prices,
 * matched by its own rules on the model id the records name). Only its bundled data is read: the
 * library fetches newer prices only when asked to (`updatePrices`), which Rigdesk never does, so
 * nothing leaves the machine and the figures change only with the pinned version.
 */
export const CATALOG = { name: '@pydantic/genai-prices', version: '0.1.8' } as const;

/** USD per million tokens of each kind; a kind the model does not price is absent. */
export interface ModelPrices {
  input: number;
  cacheRead?: number;
  cacheWrite?: number;
  output: number;
}

export interface CatalogModel {
  /** The catalog's own name for what it matched: `<provider>/<model>`. */
  id: string;
  window?: number;
  prices?: ModelPrices;
  /** Some of its prices rise past a prompt size (long-context tiers): the estimate uses the base rate. */
  tiered?: boolean;
}

/** Looks a model up as the records name it, at a time (a price may change on a date). */
export type Catalog = (model: string, at: number) => CatalogModel | undefined;

const base = (p: ModelPrice[string]): number | undefined =>
  typeof p === 'number' ? p : p && typeof p === 'object' ? p.base : undefined;

function pricesOf(mp: ModelPrice): { prices?: ModelPrices; tiered: boolean } {
  const input = base(mp.input_mtok);
  const output = base(mp.output_mtok);
  const tiered = [mp.input_mtok, mp.output_mtok, mp.cache_read_mtok, mp.cache_write_mtok].some(
    (p) => typeof p === 'object' && p !== null,
  );
  if (input === undefined || output === undefined) return { tiered };
  const cacheRead = base(mp.cache_read_mtok);
  const cacheWrite = base(mp.cache_write_mtok);
  return {
    prices: {
      input,
      output,
      ...(cacheRead !== undefined ? { cacheRead } : {}),
      ...(cacheWrite !== undefined ? { cacheWrite } : {}),
    },
    tiered,
  };
}

function lookup(model: string, at: number): CatalogModel | undefined {
  let r: ReturnType<typeof calcPrice>;
  try {
    r = calcPrice({}, model, { timestamp: new Date(at) });
  } catch {
    return undefined;
  }
  if (!r) return undefined;
  const { prices, tiered } = pricesOf(r.model_price);
  const window = r.model.context_window;
  return {
    id: `${r.provider.id}/${r.model.id}`,
    ...(window && window > 0 ? { window } : {}),
    ...(prices ? { prices } : {}),
    ...(tiered ? { tiered } : {}),
  };
}

/** The bundled catalog, one lookup per model name and day (the library's own match is a scan). */
export function bundledCatalog(): Catalog {
  const memo = new Map<string, CatalogModel | null>();
  return (model, at) => {
    const key = `${Math.floor(at / 86_400_000)}\0${model}`;
    let hit = memo.get(key);
    if (hit === undefined) {
      // A model the records name as `<provider>/<model>` (Pi, OpenCode) is looked up by its own name too.
      const tail = model.includes('/') ? model.slice(model.lastIndexOf('/') + 1) : undefined;
      hit = lookup(model, at) ?? (tail ? lookup(tail, at) : undefined) ?? null;
      if (memo.size > 512) memo.clear();
      memo.set(key, hit);
    }
    return hit ?? undefined;
  };
}

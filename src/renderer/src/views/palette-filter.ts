import { defaultFilter } from 'cmdk';

/**
 * The palette's search: each word of the query is matched on its own, in any order ("idle p12",
 * "pod12 m3"), and an item is listed only when every word matches. cmdk's own filter reads the
 * query as one ordered run of characters through the item's value and keywords, so two words given
 * in another order than the item holds them listed nothing at all.
 */
export function paletteFilter(value: string, search: string, keywords?: string[]): number {
  const words = search.trim().split(/\s+/).filter(Boolean);
  if (words.length <= 1) return defaultFilter(value, search.trim(), keywords);
  let score = 1;
  for (const w of words) {
    const s = defaultFilter(value, w, keywords);
    if (s === 0) return 0;
    score *= s;
  }
  return score;
}

import { isAlias, isMap, isScalar, isSeq, type Document, type LineCounter } from 'yaml';

/**
 * Maps a field path (`['pods', 0, 'members', 1, 'runtime']`) to a 1-based line in the YAML source.
 * A map entry reports the line of its key (where the field is named); a missing field falls back to
 * the nearest existing parent.
 */

export type PathSeg = string | number;

export function makeLocator(doc: Document, lineCounter: LineCounter): (path: readonly PropertyKey[]) => number {
  const lineAt = (node: unknown): number | undefined => {
    const range = (node as { range?: unknown } | null | undefined)?.range;
    if (!Array.isArray(range) || typeof range[0] !== 'number') return undefined;
    return lineCounter.linePos(range[0]).line;
  };
  return (path) => {
    let node: unknown = doc.contents;
    let line = lineAt(node) ?? 1;
    for (const seg of path) {
      // Follow an alias to its anchor at most once per step; the anchor's lines are the real source.
      if (isAlias(node)) node = node.resolve(doc);
      if (isMap(node)) {
        const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(seg));
        if (!pair) break;
        line = lineAt(pair.key) ?? lineAt(pair.value) ?? line;
        node = pair.value;
      } else if (isSeq(node) && typeof seg === 'number') {
        const item = node.items[seg];
        if (item === undefined) break;
        line = lineAt(item) ?? line;
        node = item;
      } else {
        break;
      }
    }
    return line;
  };
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `pods[0].members[1].runtime`; odd keys are quoted: `env["A B"]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else {
      const s = String(seg);
      if (IDENT.test(s)) out += out === '' ? s : `.${s}`;
      else out += `[${JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}…` : s)}]`;
    }
  }
  return out;
}

/** Reads a value at a path in plain JS data, own properties only. */
export function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let cur: unknown = root;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    if (!Object.hasOwn(cur, seg)) return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[seg];
  }
  return cur;
}

/** One file's part of a unified diff: from its `diff --git` line to the next one. */
export interface FilePatch {
  path: string;
  text: string;
}

/**
 * Splits a seat's whole patch into its files. The path is the `+++ b/` side (the `--- a/` side
 * for a deleted file); a rename or a binary file has neither, so the header's second path is used.
 */
export function splitPatch(patch: string): FilePatch[] {
  const parts = patch.split(/^(?=diff --git )/m).filter((p) => p.startsWith('diff --git '));
  return parts.map((text) => ({ path: pathOf(text), text }));
}

function pathOf(text: string): string {
  const plus = /^\+\+\+ b\/(.+)$/m.exec(text)?.[1];
  if (plus) return plus;
  const minus = /^--- a\/(.+)$/m.exec(text)?.[1];
  if (minus) return minus;
  const renamed = /^rename to (.+)$/m.exec(text)?.[1];
  if (renamed) return renamed;
  const head = /^diff --git a\/.+ b\/(.+)$/m.exec(text)?.[1];
  return head ?? '';
}

/** The language a file's extension names, for the diff's syntax colours (highlight.js names). */
export function langOf(path: string): string {
  const ext = path.slice(path.lastIndexOf('.') + 1).toLowerCase();
  const map: Record<string, string> = {
    ts: 'typescript',
    tsx: 'tsx',
    js: 'javascript',
    mjs: 'javascript',
    cjs: 'javascript',
    jsx: 'jsx',
    py: 'python',
    rs: 'rust',
    go: 'go',
    md: 'markdown',
    json: 'json',
    yml: 'yaml',
    yaml: 'yaml',
    sh: 'bash',
    css: 'css',
    html: 'xml',
  };
  return map[ext] ?? 'plaintext';
}

/** The first line a file's part of a diff adds (its number in the new file), else 1. */
export function firstAddedLine(patch: string | null | undefined): number {
  let at: number | undefined;
  for (const line of (patch ?? '').split('\n')) {
    const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    if (hunk) at = Number(hunk[1]);
    else if (at === undefined) continue;
    else if (line.startsWith('+')) return at;
    else if (line.startsWith(' ')) at += 1;
  }
  return 1;
}

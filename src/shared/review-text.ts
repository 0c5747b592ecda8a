/**
 * A review as the one message the seat receives: each comment cites its `file:line`, in file and
 * line order, under one heading that names the branch. The window shows this text before it is
 * sent; the engine composes the same text when it sends it.
 */

export interface ReviewInput {
  /** The seat's branch, when it has one (`rigdesk/<rig>/<member>`). */
  branch?: string;
  comments: readonly { path: string; line: number; side?: 'old' | 'new'; text: string }[];
  note?: string;
}

export function composeReview(r: ReviewInput): string {
  const n = r.comments.length;
  const head = `Review of your changes${r.branch ? ` on ${r.branch}` : ''} (${n} comment${n === 1 ? '' : 's'}):`;
  const sorted = [...r.comments].sort((a, b) => cmp(a.path, b.path) || a.line - b.line);
  const lines = sorted.map((c) => {
    const where = `${citePath(c.path)}:${c.line}${c.side === 'old' ? ' (removed line)' : ''}`;
    const [first = '', ...rest] = clean(c.text).split('\n');
    return [`- ${where}: ${first}`, ...rest.map((l) => `  ${l}`)].join('\n');
  });
  const note = r.note ? clean(r.note) : '';
  return [head, '', ...lines, ...(note ? ['', note] : [])].join('\n');
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A path as written, unless it holds what would break the citation: then JSON-quoted. */
export function citePath(path: string): string {
  return /^[A-Za-z0-9_./@+-][A-Za-z0-9_./@+ -]*$/.test(path) && !path.endsWith(' ') ? path : JSON.stringify(path);
}

/**
 * Text for a terminal paste: line ends made `\n`, tabs kept, every other control character
 * dropped (an ESC could end the bracketed paste the send wraps it in), trailing blanks trimmed.
 */
export function clean(text: string): string {
  return (
    text
      .replace(/\r\n?/g, '\n')
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is dropped
      .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '')
      .replace(/[ \t]+$/gm, '')
      .trim()
  );
}

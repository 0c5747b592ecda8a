/**
 * Whether a Gemini is, on disk, part way through taking up a conversation it resumes.
 *
 * A resumed Gemini first records a new empty session under the conversation's id: a header line
 * and a `$set` of its messages to the session context alone. The file is named by the minute and
 * the id's first 8 characters, so when the conversation began in the same minute that record lands
 * in the conversation's own file. Only once the resume is taken up does Gemini append
 * `{"$set":{"sessionId":…}}` and the full messages again. Ended in between (a hang-up, a kill),
 * the file reads as a session with nothing to resume: Gemini answers "No previous sessions found"
 * from then on. A later header with no resume mark after it is that moment.
 */
export function geminiTakingUp(transcript: string): boolean {
  let header = -1;
  let mark = -1;
  transcript.split('\n').forEach((line, i) => {
    const r = record(line);
    if (!r) return;
    if (typeof r.sessionId === 'string' && 'projectHash' in r) header = i;
    else if (isObject(r.$set) && typeof r.$set.sessionId === 'string') mark = i;
  });
  // The first line is the conversation's own start; only a later one is a resume's new record.
  return header > 0 && mark < header;
}

function record(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const r: unknown = JSON.parse(line);
    return isObject(r) ? r : undefined;
  } catch {
    return undefined; // a line being written
  }
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** Token figures a journey asks the fake model server to report, and their sums. */
export interface Figures {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export const f = (input: number, output: number, cacheRead: number, cacheWrite: number): Figures => ({
  input,
  output,
  cacheRead,
  cacheWrite,
});

/** The word in a prompt that makes the fake server report exactly these figures. */
export const usageWord = (u: Figures) => `USAGE:${u.input}:${u.output}:${u.cacheRead}:${u.cacheWrite}`;

export const sum = (xs: Figures[], k: keyof Figures) => xs.reduce((a, x) => a + x[k], 0);

/** The model catalog Rigdesk prices from, as ps names it. */
export const CATALOG = '@pydantic/genai-prices 0.1.8';

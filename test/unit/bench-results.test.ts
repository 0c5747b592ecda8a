import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const DIR = join(__dirname, '..', '..', 'bench', 'results');
/** A path of the machine a bench ran on: its temp, home or work folders, as the benches' own calls carry them. */
const MACHINE_PATH = /(^|[\s"'=:(,])\/(tmp|root|home|work|var|Users|private)\/[^\s"']*/g;

describe('bench results', () => {
  const files = readdirSync(DIR).filter((f) => f.endsWith('.json'));

  it('are there to be read', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it.each(files)('%s names no path of the machine it ran on', (f) => {
    const found = readFileSync(join(DIR, f), 'utf8').match(MACHINE_PATH) ?? [];
    expect(found.map((m) => m.trim())).toEqual([]);
  });
});

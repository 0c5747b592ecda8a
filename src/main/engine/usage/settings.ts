import type * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { z } from 'zod';
import { type ReadFs, readRegularText } from '../read-file';
import type { ModelPrices } from './catalog';

/**
 * The person's own figures for models, in `RIGDESK_HOME/settings` (YAML): a model's context
 * window and its prices, for what the runtime's records and the catalog leave unknown (they
 * come first: see figures.ts). Keyed by the model as the records name it (`claude-opus-4-8`), or with its
 * provider (`fake/fake-model`, as Pi and OpenCode name theirs):
 *
 *     models:
 *       fake-model:
 *         window: 128000
 *         usd_per_mtok: { input: 2, cache_read: 0.2, cache_write: 2.5, output: 8 }
 *
 * Anyone who can write the home could write it, so it is read as any file from outside: a
 * regular file only (a FIFO or a device is refused without waiting on it), at most
 * SETTINGS_MAX_BYTES, YAML with few aliases, every field checked; a file that fails any of it
 * counts as no settings, with the problem said.
 */
export const SETTINGS_MAX_BYTES = 256 * 1024;
const MAX_ALIASES = 50;

export const settingsPath = (home: string): string => join(home, 'settings');

const usd = z.number().finite().nonnegative().max(1_000_000);
const modelSettings = z.strictObject({
  window: z.number().int().positive().max(100_000_000).optional(),
  usd_per_mtok: z
    .strictObject({ input: usd, output: usd, cache_read: usd.optional(), cache_write: usd.optional() })
    .optional(),
});
const settingsSchema = z.strictObject({
  models: z
    .record(z.string().min(1).max(200), modelSettings)
    .refine((m) => Object.keys(m).length <= 1000, { message: 'at most 1000 models' })
    .optional(),
});

export interface ModelSettings {
  window?: number;
  prices?: ModelPrices;
}

export interface UsageSettings {
  models: ReadonlyMap<string, ModelSettings>;
}

export const NO_SETTINGS: UsageSettings = { models: new Map() };

/** What was read: the settings, and why none were taken from the file when it could not be. */
export interface SettingsRead {
  settings: UsageSettings;
  problem?: string;
}

export function parseSettings(text: string): SettingsRead {
  const doc = parseDocument(text, { prettyErrors: false, stringKeys: true, uniqueKeys: true, schema: 'core' });
  if (doc.errors.length > 0) return refused(`YAML: ${doc.errors[0]!.message.split('\n')[0]}`);
  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: MAX_ALIASES });
  } catch (e) {
    return refused(`cannot convert YAML: ${(e as Error).message}`);
  }
  const parsed = settingsSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return refused(`${issue.path.join('.') || 'the file'}: ${issue.message}`);
  }
  const models = new Map<string, ModelSettings>();
  for (const [name, m] of Object.entries(parsed.data.models ?? {})) {
    const p = m.usd_per_mtok;
    models.set(name, {
      ...(m.window ? { window: m.window } : {}),
      ...(p
        ? {
            prices: {
              input: p.input,
              output: p.output,
              ...(p.cache_read !== undefined ? { cacheRead: p.cache_read } : {}),
              ...(p.cache_write !== undefined ? { cacheWrite: p.cache_write } : {}),
            },
          }
        : {}),
    });
  }
  return { settings: { models } };
}

const refused = (problem: string): SettingsRead => ({ settings: NO_SETTINGS, problem });

/** A model's settings, by its name with its provider first, then by its own name. */
export function modelSettingsFor(s: UsageSettings, model: string): ModelSettings | undefined {
  const hit = s.models.get(model);
  if (hit || !model.includes('/')) return hit;
  return s.models.get(model.slice(model.lastIndexOf('/') + 1));
}

/** The file calls the reader makes (the engine's fs port has them). */
export type SettingsFs = ReadFs & Pick<typeof nodeFs, 'statSync'>;

/**
 * Reads the settings file when it changed (by its inode, size and mtime), else hands back what the
 * last read made of it: a refresh of 50 seats costs one stat.
 */
export function settingsReader(fs: SettingsFs, path: string): () => SettingsRead {
  let key: string | undefined;
  let last: SettingsRead = { settings: NO_SETTINGS };
  return () => {
    let st: nodeFs.Stats;
    try {
      st = fs.statSync(path);
    } catch (e) {
      key = undefined;
      const code = (e as NodeJS.ErrnoException).code;
      return code === 'ENOENT' || code === 'ENOTDIR' ? { settings: NO_SETTINGS } : refused(`${path}: ${code}`);
    }
    const now = `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
    if (now === key) return last;
    key = now;
    try {
      last = parseSettings(readRegularText(path, SETTINGS_MAX_BYTES, fs));
    } catch (e) {
      last = refused((e as Error).message);
    }
    return last;
  };
}

import type { Ports } from '../ports';
import { bundledCatalog, type Catalog } from './catalog';
import { type SettingsRead, settingsPath, settingsReader } from './settings';
import { UsageSampler } from './sampler';

/**
 * What turns a conversation's tokens into the figures ps shows, and keeps them over time: the
 * pinned catalog, the person's settings file (read again only when it changed), and the sampler
 * that writes at most a row a minute per conversation.
 */
export interface UsageBook {
  readonly catalog: Catalog;
  readonly settings: () => SettingsRead;
  readonly settingsPath: string;
  readonly sampler: UsageSampler;
}

export function liveUsageBook(ports: Pick<Ports, 'fs' | 'clock' | 'layout' | 'store'>): UsageBook {
  const path = settingsPath(ports.layout.home);
  return {
    catalog: bundledCatalog(),
    settings: settingsReader(ports.fs, path),
    settingsPath: path,
    sampler: new UsageSampler(ports.store.usageSamples, () => ports.clock.now()),
  };
}

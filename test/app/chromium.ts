import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM = process.env.RIGDESK_CHROMIUM || '/usr/bin/chromium';

/**
 * Debian's Chromium through playwright-core (browsers cannot be downloaded here). Missing
 * Chromium skips locally with the reason, and fails under CI, where .ci/run must install it.
 */
export function chromiumMissing(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  const why = `no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set RIGDESK_CHROMIUM)`;
  if (process.env.CI) throw new Error(`CI must install Chromium: ${why}`);
  process.stdout.write(`skipped: browser tests: ${why}\n`);
  return why;
}

export async function launchChromium(
  viewport = { width: 1200, height: 800 },
  extraArgs: string[] = [],
): Promise<{ browser: BrowserContext; close(): Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'rd-chromium-'));
  // A fresh profile folder per run; playwright passes it as --user-data-dir.
  const browser = await chromium
    .launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      viewport,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        ...extraArgs,
      ],
    })
    .catch((e: Error) => {
      rmSync(profile, { recursive: true, force: true });
      throw e;
    });
  return {
    browser,
    close: async () => {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

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

export type Chrome = Awaited<ReturnType<typeof launchChromium>>;

/**
 * Chromium with its first page opened at `url`: the scripts run before the page's own, the
 * page's notification permission granted when asked, and every page error collected (a test ends
 * by expecting none).
 */
export async function openWindow(
  url: string,
  opts: { viewport?: { width: number; height: number }; initScripts?: string[]; notifications?: boolean } = {},
): Promise<{ chrome: Chrome; page: Page; errors: string[] }> {
  const chrome = await launchChromium(opts.viewport);
  for (const script of opts.initScripts ?? []) await chrome.browser.addInitScript(script);
  if (opts.notifications) await chrome.browser.grantPermissions(['notifications'], { origin: new URL(url).origin });
  const page = chrome.browser.pages()[0] ?? (await chrome.browser.newPage());
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  return { chrome, page, errors };
}

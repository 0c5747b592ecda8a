import { join } from 'node:path';
import { type WindowLayout, windowLayout } from '../../../shared/contract/workspace';
import type { Ports } from '../ports';
import { OWN_FILE_MAX_BYTES, readRegularText } from '../read-file';

/** Beside the store in the engine's home: the one place every window of this home reads. */
export function layoutPath(ports: Pick<Ports, 'layout'>): string {
  return join(ports.layout.home, 'window-layout.json');
}

/** The saved layout, or none when there is none yet or it no longer fits the contract (a new window starts plain). */
export function readLayout(ports: Pick<Ports, 'fs' | 'layout'>): WindowLayout | undefined {
  const path = layoutPath(ports);
  let text: string;
  try {
    text = readRegularText(path, OWN_FILE_MAX_BYTES, ports.fs);
  } catch (e) {
    // None saved yet; anything else (a folder we may not read) is the engine's error, not "no layout".
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  try {
    const parsed = windowLayout.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Written whole and renamed into place, so a crash mid-write leaves the previous layout, never half a file. */
export function saveLayout(ports: Pick<Ports, 'fs' | 'layout' | 'selfPid'>, layout: WindowLayout): void {
  const path = layoutPath(ports);
  const tmp = `${path}.${ports.selfPid}.tmp`;
  ports.fs.writeFileSync(tmp, `${JSON.stringify(layout)}\n`, { mode: 0o600 });
  ports.fs.renameSync(tmp, path);
}

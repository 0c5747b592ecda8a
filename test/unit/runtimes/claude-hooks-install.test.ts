/**
 * Installing Claude Code's hooks into a seat's own config (real files in a temporary folder): the
 * first install writes them beside the person's own hooks; a relaunch that finds them as they are
 * writes nothing (a restore relaunches every seat at once), and one that finds them changed puts
 * them back.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { installClaudeHooks } from '../../../src/main/engine/runtimes/hooks/claude';
import { localSettingsIO, type SettingsIO } from '../../../src/main/engine/runtimes/json-settings';

let dir: string;
let writes: string[];
const io: SettingsIO = {
  ...localSettingsIO,
  writeText(path, text, mode) {
    writes.push(path);
    localSettingsIO.writeText(path, text, mode);
  },
};
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rd-claude-hooks-'));
  writes = [];
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const settings = () => join(dir, 'cfg', 'settings.json');
const read = () => JSON.parse(readFileSync(settings(), 'utf8')) as { hooks: Record<string, unknown[]>; theme?: string };

it('writes once, keeps the person’s settings, and skips a relaunch that changes nothing', () => {
  localSettingsIO.ensureDir(join(dir, 'cfg'));
  writeFileSync(
    settings(),
    JSON.stringify({ theme: 'dark', hooks: { Stop: [{ hooks: [{ type: 'command', command: 'mine' }] }] } }),
  );
  installClaudeHooks(join(dir, 'cfg'), join(dir, 'hooks'), 'seat-1', io);
  expect(writes).toEqual([settings()]);
  expect(read().theme).toBe('dark');
  expect(JSON.stringify(read().hooks.Stop)).toContain('"mine"');
  expect(JSON.stringify(read().hooks.Stop)).toContain('rigdesk-activity-hook');

  installClaudeHooks(join(dir, 'cfg'), join(dir, 'hooks'), 'seat-1', io);
  expect(writes).toHaveLength(1);
});

it('puts the hooks back when the file no longer has them', () => {
  installClaudeHooks(join(dir, 'cfg'), join(dir, 'hooks'), 'seat-1', io);
  writeFileSync(settings(), JSON.stringify({ theme: 'light' }));
  installClaudeHooks(join(dir, 'cfg'), join(dir, 'hooks'), 'seat-1', io);
  expect(writes).toHaveLength(2);
  expect(read().theme).toBe('light');
  expect(JSON.stringify(read().hooks.PreToolUse)).toContain('rigdesk-activity-hook');
});

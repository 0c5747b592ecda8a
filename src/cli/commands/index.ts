import { ACTIVITY_COMMANDS } from './activity';
import { APP_COMMANDS } from './app';
import { CHANGES_COMMANDS } from './changes';
import { DEVICES_COMMANDS } from './devices';
import { ENGINE_COMMANDS } from './engine';
import { RESTORE_COMMANDS } from './restore';
import { HOSTS_COMMANDS } from './hosts';
import { USAGE_COMMANDS } from './usage';
import type { CommandTable } from './types';

/** Every command, by domain; each domain owns its file. */
export const COMMANDS: CommandTable = {
  ...ENGINE_COMMANDS,
  ...RESTORE_COMMANDS,
  ...ACTIVITY_COMMANDS,
  ...APP_COMMANDS,
  ...HOSTS_COMMANDS,
  ...USAGE_COMMANDS,
  ...CHANGES_COMMANDS,
  ...DEVICES_COMMANDS,
};

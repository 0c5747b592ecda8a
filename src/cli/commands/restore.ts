import type { CommandTable } from './types';

export const RESTORE_COMMANDS: CommandTable = {};

import type { CommandTable } from './types';

export const APP_COMMANDS: CommandTable = {};

import type { CommandTable } from './types';

export const ACTIVITY_COMMANDS: CommandTable = {};

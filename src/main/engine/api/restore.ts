import { RESTORE_REQUESTS } from '../../../shared/contract/restore';
import type { Handlers } from './types';

export const RESTORE_HANDLERS: Handlers<typeof RESTORE_REQUESTS> = {};

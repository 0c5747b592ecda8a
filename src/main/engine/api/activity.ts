import { ACTIVITY_REQUESTS } from '../../../shared/contract/activity';
import type { Handlers } from './types';

export const ACTIVITY_HANDLERS: Handlers<typeof ACTIVITY_REQUESTS> = {};

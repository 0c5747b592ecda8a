import { APP_REQUESTS } from '../../../shared/contract/app';
import type { Handlers } from './types';

export const APP_HANDLERS: Handlers<typeof APP_REQUESTS> = {};

import type { USAGE_ANSWERS, USAGE_REQUESTS } from '../../../shared/contract/usage';
import { usageSeries, usageSummary } from '../services/usage';
import type { Handlers } from './types';

export const USAGE_HANDLERS: Handlers<typeof USAGE_REQUESTS, typeof USAGE_ANSWERS> = {
  'usage.summary': (e, p) => usageSummary(e, p),
  'usage.series': (e, p) => usageSeries(e, p),
};

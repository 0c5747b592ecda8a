import type { HOSTS_ANSWERS, HOSTS_REQUESTS } from '../../../shared/contract/hosts';
import { addHost, checkHost, listHosts } from '../services/hosts';
import type { Handlers } from './types';

export const HOSTS_HANDLERS: Handlers<typeof HOSTS_REQUESTS, typeof HOSTS_ANSWERS> = {
  hostsAdd: async (e, p) => addHost(e, p),
  hostsList: async (e) => listHosts(e),
  hostsCheck: (e, p) => checkHost(e, p.name),
};

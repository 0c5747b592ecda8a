import type { HOSTS_ANSWERS, HOSTS_REQUESTS } from '../../../shared/contract/hosts';
import { addHost, checkHost, listHosts } from '../services/hosts';
import type { Handlers } from './types';

export const HOSTS_HANDLERS: Handlers<typeof HOSTS_REQUESTS, typeof HOSTS_ANSWERS> = {
  'hosts.add': async (e, p) => addHost(e, p),
  'hosts.list': async (e) => listHosts(e),
  'hosts.check': (e, p) => checkHost(e, p.name),
};

import type { RuntimeAdapter } from './types';

/** Any terminal program. It has no conversation, so custody has nothing to guard for it. */
export const shell: RuntimeAdapter = {
  id: 'shell',
  displayName: 'Shell',
  conversations: false,
  defaultCommand: 'bash',
  whyNoFork: ' (it keeps no conversation)',
  canResume: false,
  choosesIdUpFront: false,
  freshArgv(ctx) {
    return { argv: [ctx.binary, ...ctx.args] };
  },
  resumeArgv(ctx) {
    return [ctx.binary, ...ctx.args];
  },
  matches: () => false,
  conversationFromArgv: () => undefined,
  missingConversation: /(?!)/,
};

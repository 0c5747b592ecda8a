import type { RuntimeAdapter } from './types';

/** Any terminal program. It has no conversation, so custody has nothing to guard for it. */
export const shell: RuntimeAdapter = {
  id: 'shell',
  displayName: 'Shell',
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

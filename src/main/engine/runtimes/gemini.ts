import { basename, flagValue, type LaunchContext, type RuntimeAdapter } from './types';

/**
 * Gemini CLI (see ../shared/docs/agent-clis-more.md).
 *
 * SCAFFOLD: argv, discovery, screens and custody are filled in by the Gemini CLI runtime work.
 */
export const gemini: RuntimeAdapter = {
  id: 'gemini',
  displayName: 'Gemini CLI',
  binary: 'gemini',
  canResume: true,
  choosesIdUpFront: false,
  freshArgv(ctx: LaunchContext) {
    return { argv: [ctx.binary, ...ctx.args] };
  },
  resumeArgv(ctx: LaunchContext, conversationId: string) {
    return [ctx.binary, '--resume', conversationId, ...ctx.args];
  },
  matches(p) {
    return basename(p.argv[0] ?? '') === 'gemini' || p.comm === 'gemini';
  },
  conversationFromArgv(argv) {
    return flagValue(argv, '--resume');
  },
  missingConversation: /(?!)/, // SCAFFOLD: the CLI's own words, filled in with its adapter
};

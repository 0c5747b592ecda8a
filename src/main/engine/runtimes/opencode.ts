import { basename, flagValue, type LaunchContext, type RuntimeAdapter } from './types';

/**
 * OpenCode (see ../shared/docs/agent-clis-more.md).
 *
 * SCAFFOLD: argv, discovery, screens and custody are filled in by the OpenCode runtime work.
 */
export const opencode: RuntimeAdapter = {
  id: 'opencode',
  displayName: 'OpenCode',
  binary: 'opencode',
  canResume: true,
  choosesIdUpFront: false,
  freshArgv(ctx: LaunchContext) {
    return { argv: [ctx.binary, ...ctx.args] };
  },
  resumeArgv(ctx: LaunchContext, conversationId: string) {
    return [ctx.binary, '--resume', conversationId, ...ctx.args];
  },
  matches(p) {
    return basename(p.argv[0] ?? '') === 'opencode' || p.comm === 'opencode';
  },
  conversationFromArgv(argv) {
    return flagValue(argv, '--resume');
  },
  missingConversation: /(?!)/, // SCAFFOLD: the CLI's own words, filled in with its adapter
};

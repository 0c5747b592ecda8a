import { basename, flagValue, type LaunchContext, type RuntimeAdapter } from './types';

/**
 * Qwen Code (see ../shared/docs/agent-clis-more.md).
 *
 * SCAFFOLD: argv, discovery, screens and custody are filled in by the Qwen Code runtime work.
 */
export const qwen: RuntimeAdapter = {
  id: 'qwen',
  displayName: 'Qwen Code',
  binary: 'qwen',
  canResume: true,
  choosesIdUpFront: false,
  freshArgv(ctx: LaunchContext) {
    return { argv: [ctx.binary, ...ctx.args] };
  },
  resumeArgv(ctx: LaunchContext, conversationId: string) {
    return [ctx.binary, '--resume', conversationId, ...ctx.args];
  },
  matches(p) {
    return basename(p.argv[0] ?? '') === 'qwen' || p.comm === 'qwen';
  },
  conversationFromArgv(argv) {
    return flagValue(argv, '--resume');
  },
  missingConversation: /(?!)/, // SCAFFOLD: the CLI's own words, filled in with its adapter
};

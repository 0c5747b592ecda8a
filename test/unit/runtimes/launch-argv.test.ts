import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import {
  claudeCode,
  codex,
  pi,
  runtimeById,
  RUNTIMES,
  shell,
  type LaunchContext,
} from '../../../src/main/engine/runtimes';

const U = 'dd0b1b38-acef-44ea-9af2-05ee8272437c';

function ctx(over: Partial<LaunchContext> = {}): LaunchContext {
  return { binary: '/opt/bin/agent', cwd: '/w/proj', args: ['--model', 'opus'], newId: () => U, ...over };
}

describe('launch argv shapes', () => {
  it('claude fresh chooses the conversation id up front (via ctx.newId) and returns it', () => {
    const newId = vi.fn(() => U);
    const r = claudeCode.freshArgv(ctx({ binary: '/opt/bin/claude', newId }));
    expect(r).toEqual({ argv: ['/opt/bin/claude', '--session-id', U, '--model', 'opus'], conversationId: U });
    expect(newId).toHaveBeenCalledTimes(1);
    expect(claudeCode.choosesIdUpFront).toBe(true);
  });

  it('claude resume names the conversation with --resume before the spec args', () => {
    expect(claudeCode.resumeArgv(ctx({ binary: '/opt/bin/claude' }), U)).toEqual([
      '/opt/bin/claude',
      '--resume',
      U,
      '--model',
      'opus',
    ]);
  });

  it('codex fresh cannot choose an id; resume uses the resume subcommand; both without the shared daemon', () => {
    expect(codex.freshArgv(ctx({ binary: '/opt/bin/codex' }))).toEqual({
      argv: ['/opt/bin/codex', '--no-daemon', '--model', 'opus'],
    });
    expect(codex.resumeArgv(ctx({ binary: '/opt/bin/codex' }), U)).toEqual([
      '/opt/bin/codex',
      'resume',
      U,
      '--no-daemon',
      '--model',
      'opus',
    ]);
    // A spec that already says so gets it once (clap refuses a repeated flag).
    expect(codex.resumeArgv(ctx({ binary: '/opt/bin/codex', args: ['--no-daemon'] }), U)).toEqual([
      '/opt/bin/codex',
      'resume',
      U,
      '--no-daemon',
    ]);
    expect(codex.choosesIdUpFront).toBe(false);
  });

  it('pi fresh cannot choose an id; resume uses --session <id>', () => {
    expect(pi.freshArgv(ctx({ binary: '/opt/bin/pi' }))).toEqual({ argv: ['/opt/bin/pi', '--model', 'opus'] });
    expect(pi.resumeArgv(ctx({ binary: '/opt/bin/pi' }), U)).toEqual([
      '/opt/bin/pi',
      '--session',
      U,
      '--model',
      'opus',
    ]);
  });

  it('shell runs its program as given and cannot resume', () => {
    expect(shell.freshArgv(ctx({ binary: '/bin/bash', args: ['-l'] }))).toEqual({ argv: ['/bin/bash', '-l'] });
    expect(shell.resumeArgv(ctx({ binary: '/bin/bash', args: ['-l'] }), U)).toEqual(['/bin/bash', '-l']);
    expect(shell.canResume).toBe(false);
    expect(shell.binary).toBeUndefined();
  });

  it('fresh argv never names a conversation the launch did not choose (codex, pi)', () => {
    for (const r of [codex, pi]) {
      const f = r.freshArgv(ctx({ binary: `/opt/bin/${r.binary}` }));
      expect(f.conversationId).toBeUndefined();
      expect(r.conversationFromArgv(f.argv)).toBeUndefined();
    }
  });

  it('what Rigdesk launches it later recognises: argv round-trips to the same conversation', () => {
    const safeArg = fc.stringMatching(/^[a-z][a-z0-9._]{0,10}$/);
    fc.assert(
      fc.property(fc.uuid(), fc.array(safeArg, { maxLength: 4 }), (id, args) => {
        const c = ctx({ args, newId: () => id });
        const fresh = claudeCode.freshArgv({ ...c, binary: '/opt/bin/claude' });
        expect(fresh.conversationId).toBe(id);
        expect(claudeCode.conversationFromArgv(fresh.argv)).toBe(id);
        for (const r of [claudeCode, codex, pi]) {
          const argv = r.resumeArgv({ ...c, binary: `/opt/bin/${r.binary}` }, id);
          expect(
            r.matches({
              pid: 1,
              ppid: 0,
              pgid: 1,
              sid: 1,
              tpgid: 1,
              ttyNr: 1,
              startTime: '1',
              comm: r.binary!,
              argv,
              uid: 0,
            }),
          ).toBe(true);
          expect(r.conversationFromArgv(argv)).toBe(id);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('the adapter table is complete and looked up by id', () => {
    expect(RUNTIMES.map((r) => r.id)).toEqual([
      'claude-code',
      'codex',
      'pi',
      'opencode',
      'gemini',
      'qwen',
      'omp',
      'omo',
      'shell',
    ]);
    expect(runtimeById('codex')).toBe(codex);
    expect(runtimeById('claud')).toBeUndefined();
    expect(claudeCode.homeEnvVar).toBe('CLAUDE_CONFIG_DIR');
    expect(codex.homeEnvVar).toBe('CODEX_HOME');
    expect(pi.homeEnvVar).toBe('PI_CODING_AGENT_DIR');
    expect(claudeCode.defaultHome!('/home/u')).toBe('/home/u/.claude');
    expect(codex.defaultHome!('/home/u')).toBe('/home/u/.codex');
    expect(pi.defaultHome!('/home/u')).toBe('/home/u/.pi/agent');
  });
});

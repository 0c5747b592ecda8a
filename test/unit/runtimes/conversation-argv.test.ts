import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { claudeCode, codex, pi } from '../../../src/main/engine/runtimes';

const U = 'dd0b1b38-acef-44ea-9af2-05ee8272437c';
const T = '01a2261d-651b-79c3-93d1-b8ba59512eb0';
const P = '01a22620-817c-75ad-8093-3aef685d6759';

describe('claude: the conversation an argv makes the process write', () => {
  const cases: [string[], string | undefined][] = [
    [['claude', '--session-id', U], U],
    [['claude', '--resume', U], U],
    [['claude', '-r', U], U],
    [['claude', `--resume=${U}`], U],
    [['claude', `--session-id=${U}`], U],
    [['/p/node_modules/@anthropic-ai/claude-code/bin/claude.exe', '-p', '--resume', U, 'hello'], U],
    [['claude', '--dangerously-skip-permissions', '--resume', U, '--model', 'opus'], U],
    [['claude'], undefined],
    [['claude', '--continue'], undefined],
    [['claude', '--resume'], undefined], // the picker: no id given
    [['claude', '-r', '--model', 'opus'], undefined],
    [['claude', '--resume', 'bogus-name'], undefined], // a title, not an id: nothing to claim
    [['claude', '--session-id', 'not-a-uuid'], undefined],
    [['claude', '--resume', U.slice(0, 8)], undefined],
  ];
  for (const [argv, want] of cases) {
    it(`${JSON.stringify(argv.slice(1))} claims ${want ?? 'nothing'}`, () => {
      expect(claudeCode.conversationFromArgv(argv)).toBe(want);
    });
  }

  it('--fork-session with --resume reads the named conversation but does not claim it', () => {
    expect(claudeCode.conversationFromArgv(['claude', '--resume', U, '--fork-session'])).toBeUndefined();
    expect(claudeCode.conversationFromArgv(['claude', '--fork-session', '-r', U])).toBeUndefined();
    expect(claudeCode.conversationFromArgv(['claude', '--fork-session', `--resume=${U}`])).toBeUndefined();
  });

  // Was a bug, now fixed (src/main/engine/runtimes/claude-code.ts:66): with --fork-session the --session-id value is
  // returned without the UUID check the other branch applies, so `--fork-session --session-id my-fork`
  // (or `--session-id --fork-session`, where the flag itself is taken as the value) claims a
  // non-UUID "conversation". Harmless to the guard today (no real conversation has that id) but it
  // can become the agent's conversationId in the roster when no live-state file outranks it.
  it('--fork-session with a non-UUID --session-id claims nothing (non-UUID values are ignored)', () => {
    expect(
      claudeCode.conversationFromArgv(['claude', '--resume', U, '--fork-session', '--session-id', 'my-fork']),
    ).toBeUndefined();
    expect(claudeCode.conversationFromArgv(['claude', '--session-id', '--fork-session'])).toBeUndefined();
  });

  it('--fork-session with --session-id claims the new id it will write', () => {
    const N = '0e0e0e0e-1111-4222-8333-444455556666';
    expect(claudeCode.conversationFromArgv(['claude', '--resume', U, '--fork-session', '--session-id', N])).toBe(N);
  });
});

describe('codex: the thread an argv makes the process write', () => {
  const cases: [string[], string | undefined][] = [
    [['codex', 'resume', T], T],
    [['/x/vendor/x86_64-unknown-linux-musl/bin/codex', 'resume', T], T],
    [['codex', 'exec', 'resume', T, 'continue please'], T],
    [['codex', 'exec', '--skip-git-repo-check', 'resume', T, 'x'], T],
    [['node', '/x/node_modules/.bin/codex', 'resume', T], T],
    [['/usr/bin/node', '/x/node_modules/.bin/codex', 'exec', 'resume', T, 'x'], T],
    [['codex', 'fork', T], undefined], // a fork writes a new thread
    [['codex'], undefined],
    [['codex', 'resume'], undefined],
    [['codex', 'resume', '--last'], undefined],
    [['codex', 'resume', 'my-session-name'], undefined],
    [['codex', 'exec', 'resume the refactor'], undefined], // a prompt that mentions resume
    [['codex', 'app-server', '--listen', 'unix://', '--managed-daemon'], undefined],
    [['codex', 'app-server', 'daemon', 'pid-update-loop'], undefined],
  ];
  for (const [argv, want] of cases) {
    it(`${JSON.stringify(argv)} claims ${want ?? 'nothing'}`, () => {
      expect(codex.conversationFromArgv(argv)).toBe(want);
    });
  }
});

describe('pi: the session an argv names', () => {
  const cases: [string[], string | undefined][] = [
    [['pi', '--session', P], P],
    [['pi', `--session=${P}`], P],
    [['node', '/x/node_modules/.bin/pi', '--session', P], P],
    [['pi', '--session', `/w/.pi/sessions/--w--/2026-11-29T07-06-34-237Z_${P}.jsonl`], undefined], // a file path, not an id
    [['pi', '--session', '/tmp/new-session.jsonl'], undefined],
    [['pi', '--fork', P], undefined],
    [['pi', '-c'], undefined],
    [['pi'], undefined],
    [['pi                    '], undefined],
  ];
  for (const [argv, want] of cases) {
    it(`${JSON.stringify(argv)} names ${want ?? 'nothing'}`, () => {
      expect(pi.conversationFromArgv(argv)).toBe(want);
    });
  }
});

describe('argv parsing never throws and claims only UUIDs (claude, codex)', () => {
  it('random argv: claude and codex claims are UUIDs or nothing', () => {
    const arg = fc.oneof(
      fc.constantFrom(
        '--resume',
        '-r',
        '--session-id',
        '--fork-session',
        'resume',
        'exec',
        'fork',
        'node',
        U,
        T,
        `--resume=${U}`,
      ),
      fc.string(),
    );
    fc.assert(
      fc.property(fc.array(arg, { maxLength: 8 }), (argv) => {
        // (--fork-session is left to the it.fails case above.)
        for (const r of argv.includes('--fork-session') ? [codex] : [claudeCode, codex]) {
          const id = r.conversationFromArgv(argv);
          if (id !== undefined) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
        }
        pi.conversationFromArgv(argv);
      }),
      { numRuns: 500 },
    );
  });
});

import { describe, expect, it } from 'vitest';
import { AGENT_RUNTIMES, claudeCode, codex, pi, shell } from '../../../src/main/engine/runtimes';
import type { ProcInfo } from '../../../src/main/engine/proc/types';
import { proc } from './helpers';
import { codexDaemonAutoStart } from '../../../src/main/engine/runtimes/codex-daemon';

const U = 'dd0b1b38-acef-44ea-9af2-05ee8272437c';
const T = '01a2261d-651b-79c3-93d1-b8ba59512eb0';

/** Processes as /proc showed them for the real CLIs (agent-clis.md), and the runtime each one is. */
const AGENTS: [string, ProcInfo, string][] = [
  ['claude native (comm claude)', proc('claude', ['claude', '--session-id', U]), 'claude-code'],
  [
    'claude.exe from the npm package',
    proc('claude.exe', ['/p/node_modules/@anthropic-ai/claude-code/bin/claude.exe', '--resume', U]),
    'claude-code',
  ],
  ['claude through node_modules/.bin', proc('claude', ['/p/node_modules/.bin/claude']), 'claude-code'],
  ['codex node shim', proc('node', ['node', '/x/node_modules/.bin/codex', 'resume', T]), 'codex'],
  [
    'codex node shim (codex.js)',
    proc('node', ['/usr/bin/node', '/x/node_modules/@openai/codex/bin/codex.js']),
    'codex',
  ],
  [
    'codex native binary',
    proc('codex', ['/x/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex', 'resume', T]),
    'codex',
  ],
  [
    'codex app-server daemon (holds the writer lock)',
    proc('codex', [
      '/h/codex/packages/app-server-daemon/releases/0.171.0-abc/bin/codex',
      'app-server',
      '--listen',
      'unix://',
      '--analytics-default-enabled',
      '--managed-daemon',
    ]),
    'codex',
  ],
  [
    'pi with its command line rewritten to "pi" + spaces',
    proc('pi', ['pi                                        ']),
    'pi',
  ],
  ['pi whose comm is pi and argv is empty (unreadable cmdline)', proc('pi', []), 'pi'],
];

/** Look-alikes that must never be taken for an agent (a name a user chose is never proof). */
const NOT_AGENTS: [string, ProcInfo][] = [
  ['claude-helper', proc('claude-helper', ['/usr/lib/claude-helper', '--daemon'])],
  [
    'a shell whose -c string runs claude',
    proc('bash', ['bash', '--noprofile', '--norc', '-c', '. env.sh; claude; echo EXITED']),
  ],
  ['an editor on a file named claude', proc('vim', ['vim', 'claude'])],
  ['picom', proc('picom', ['picom', '--daemon'])],
  ['pip (python script)', proc('pip', ['/usr/bin/python3', '/usr/bin/pip', 'install', 'x'])],
  ['pigz', proc('pigz', ['pigz', '-d'])],
  ['a shell script at /home/u/bin/pi.sh', proc('pi.sh', ['/bin/sh', '/home/u/bin/pi.sh'])],
  ['an unrelated node server', proc('node', ['node', '/srv/app/server.js'])],
  ['a node script named mycodex', proc('node', ['node', '/x/bin/mycodex'])],
  ['a node script in a folder named codex', proc('node', ['node', '/x/codex/index.js'])],
  ['tmux running a seat', proc('tmux', ['tmux', '-L', 'rigdesk', 'new-session', '-d', '--', 'claude'])],
  ['a kernel thread', proc('kworker/0:1', [])],
];

describe('runtime adapters recognise their own processes and nothing else', () => {
  for (const [what, p, runtime] of AGENTS) {
    it(`${what} is ${runtime} and no other runtime`, () => {
      expect(AGENT_RUNTIMES.filter((r) => r.matches(p)).map((r) => r.id)).toEqual([runtime]);
    });
  }
  for (const [what, p] of NOT_AGENTS) {
    it(`${what} is not taken for any agent`, () => {
      expect(AGENT_RUNTIMES.filter((r) => r.matches(p)).map((r) => r.id)).toEqual([]);
    });
  }

  it('the shell runtime claims no process at all (it has no conversation to guard)', () => {
    for (const [, p] of [...AGENTS.map(([w, q]) => [w, q] as const), ...NOT_AGENTS])
      expect(shell.matches(p)).toBe(false);
    expect(shell.conversationFromArgv(['claude', '--resume', U])).toBeUndefined();
  });

  it('the codex daemon is a codex process whose argv names no conversation (only its lock does)', () => {
    const daemon = AGENTS.find(([w]) => w.startsWith('codex app-server'))![1];
    expect(codex.matches(daemon)).toBe(true);
    expect(codex.conversationFromArgv(daemon.argv)).toBeUndefined();
  });

  it('a rewritten pi command line names no conversation', () => {
    expect(pi.conversationFromArgv(['pi                                        '])).toBeUndefined();
  });

  it('matching looks at comm and argv only, never at pid, uid or tty', () => {
    const a = proc('claude', ['claude']);
    expect(claudeCode.matches({ ...a, pid: 1, uid: 0, ttyNr: 0, tpgid: -1 })).toBe(true);
  });
});

describe('Codex background services: the daemon and its pid-update loop, and nothing else', () => {
  const D = '/h/codex/packages/app-server-daemon/releases/0.171.0-abc/bin/codex';
  it.each([
    [
      'the managed daemon',
      proc('codex', [D, 'app-server', '--listen', 'unix://', '--analytics-default-enabled', '--managed-daemon']),
      'daemon',
    ],
    ['its pid-update loop', proc('codex', [D, 'app-server', 'daemon', 'pid-update-loop']), 'daemon_helper'],
    ['a TUI', proc('codex', ['/x/bin/codex', 'resume', T]), undefined],
    ['a headless exec', proc('codex', ['/x/bin/codex', 'exec', 'resume', T, 'hi']), undefined],
    [
      'an app-server a person runs on stdio (not the managed daemon)',
      proc('codex', ['/x/bin/codex', 'app-server', '--listen', 'stdio://']),
      undefined,
    ],
    [
      '`codex app-server daemon stop` itself',
      proc('codex', ['/x/bin/codex', 'app-server', 'daemon', 'stop']),
      undefined,
    ],
  ])('%s', (_what, p, role) => {
    expect(codex.serviceRole?.(p)).toBe(role);
  });
});

describe('whether a Codex home starts the daemon (its config.toml, read as TOML)', () => {
  it.each([
    ['no config', undefined, true],
    ['a [features] table that does not say', 'model = "m"\n[features]\nx = true\n', true],
    [
      'daemon_auto_start = false under [features]',
      '[features]\ndaemon_auto_start = false # seats own threads\n',
      false,
    ],
    ['the dotted key', 'features.daemon_auto_start = false\n', false],
    ['an inline table', 'features = { daemon_auto_start = false }\n', false],
    ['false in another table', '[other]\ndaemon_auto_start = false\n', true],
    ['a config that does not parse', '[features\n', true],
  ])('%s', (_what, text, on) => {
    expect(codexDaemonAutoStart(text)).toBe(on);
  });
});

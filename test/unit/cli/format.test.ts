import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { commandLine, formatFailure, shellQuote } from '../../../src/cli/format';
import { fail } from '../../../src/shared/errors';

/** What /bin/sh makes of a printed command line: the argv it would run. */
function shWords(line: string): string[] {
  const out = execFileSync(
    '/bin/sh',
    ['-c', `eval "set -- $1"; for a in "$@"; do printf '%s\\0' "$a"; done`, 'sh', line],
    { encoding: 'utf8' },
  );
  return out === '' ? [] : out.slice(0, -1).split('\0');
}

describe('printed commands can be pasted into a shell as they are', () => {
  it('safe words are left bare', () => {
    for (const w of [
      'tmux',
      '-L',
      'rigdesk',
      'attach-session',
      '/tmp/x.sock',
      'lead@demo',
      '%3',
      'a=b',
      'host:1',
      'v1.2+3',
    ])
      expect(shellQuote(w)).toBe(w);
  });

  it('$-words, spaces, globs and quotes are single-quoted', () => {
    expect(shellQuote('$3')).toBe("'$3'");
    expect(shellQuote('$0')).toBe("'$0'");
    expect(shellQuote('a b')).toBe("'a b'");
    expect(shellQuote('*')).toBe("'*'");
    expect(shellQuote('~')).toBe("'~'");
    expect(shellQuote('')).toBe("''");
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  });

  it("commandLine(['tmux','-L','x','attach-session','-t','$3']) is tmux -L x attach-session -t '$3'", () => {
    expect(commandLine(['tmux', '-L', 'x', 'attach-session', '-t', '$3'])).toBe("tmux -L x attach-session -t '$3'");
  });

  it('examples survive a real /bin/sh unchanged', () => {
    const argv = [
      'tmux',
      '-S',
      '/tmp/my sockets/x',
      'attach-session',
      '-t',
      '$3',
      "it's",
      '$(id)',
      '`id`',
      '"',
      '\\',
      '',
      '\n',
      'a\tb',
      '!',
      '#x',
      '*',
    ];
    expect(shWords(commandLine(argv))).toEqual(argv);
  });

  it('property: any argv (without NUL) round-trips through /bin/sh', () => {
    const word = fc
      .string({
        unit: fc.oneof(
          fc.constantFrom(
            "'",
            '"',
            '\\',
            '$',
            '`',
            ' ',
            '\n',
            '\t',
            '*',
            '?',
            '~',
            '#',
            ';',
            '&',
            '|',
            '(',
            ')',
            '<',
            '>',
            '!',
            '{',
            '}',
            '=',
            '%',
            '@',
          ),
          fc.string({ minLength: 1, maxLength: 1, unit: 'grapheme' }),
        ),
        maxLength: 12,
      })
      .filter((s) => !s.includes('\0'));
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 5 }), (argv) => {
        expect(shWords(commandLine(argv))).toEqual(argv);
      }),
      { numRuns: 60 },
    );
  });

  it('formatFailure prints the code, the next step and each owner', () => {
    const f = fail('CONVERSATION_LIVE_ELSEWHERE', 'claude-code conversation C is already open', {
      hint: 'Use that pane.',
      evidence: {
        owners: [
          { pid: 5, server: 'L:rigdesk', paneId: '%7', sessionName: 'lead', source: 'live_state' },
          { pid: 6, source: 'argv' },
        ],
      },
    });
    expect(formatFailure(f)).toBe(
      [
        'rigdesk: CONVERSATION_LIVE_ELSEWHERE: claude-code conversation C is already open',
        '  next: Use that pane.',
        '  owner: pid 5 pane %7 on L:rigdesk session "lead" [live_state]',
        '  owner: pid 6 (no pane) [argv]',
      ].join('\n'),
    );
  });
});

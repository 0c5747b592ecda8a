import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Block, ControlStream } from '../../../src/main/engine/tmux/control-stream';
import { controlLine, formatLiteral, oneShotArgs, quoteArg } from '../../../src/main/engine/tmux/quote';

/** Pure halves of the held client: argv to a control line, and the frame reader. Real tmux reads them in test/engine/tmux-control.test.ts. */
describe('controlLine', () => {
  it('keeps command names and plain words bare, separates on a lone ;, quotes the rest', () => {
    const r = controlLine(['display-message', '-p', '-t', '%3', '#{pane_id}', ';', 'has-session', '-t', '$1']);
    expect(r).toEqual({ ok: true, line: 'display-message -p -t %3 "#{pane_id}" ; has-session -t "\\$1"' });
  });

  it('never lets a newline, a quote, ~ or $ through unescaped', () => {
    expect(quoteArg('a\nb')).toBe('"a\\012b"');
    expect(quoteArg(`it's "x"`)).toBe(`"it's \\"x\\""`);
    expect(quoteArg('~/x')).toBe('"\\176/x"');
    expect(quoteArg('$HOME')).toBe('"\\$HOME"');
    expect(quoteArg('a\\b')).toBe('"a\\\\b"');
    expect(quoteArg('')).toBe('""');
    expect(quoteArg('é日本')).toBe('"é日本"');
    expect(quoteArg('a;')).toBe('"a;"');
    expect(quoteArg('%3')).toBe('%3');
    expect(quoteArg('%if')).toBe('"%if"');
    expect(quoteArg('50%')).toBe('50%');
  });

  it('refuses what no control line can carry', () => {
    expect(controlLine([])).toMatchObject({ ok: false });
    expect(controlLine(['set-buffer', 'a\0b'])).toMatchObject({ ok: false, why: expect.stringContaining('NUL') });
    expect(controlLine(['display-message', ';'])).toMatchObject({ ok: false });
  });

  it('quotes a command position that is not a plain command name (tmux then says unknown command)', () => {
    expect(controlLine(['rm -rf', 'x'])).toEqual({ ok: true, line: '"rm -rf" x' });
  });
});

describe('oneShotArgs', () => {
  it("escapes a trailing ; so tmux's argv reader keeps it", () => {
    expect(oneShotArgs(['send-keys', '-l', 'ls;', ';', 'a\\;'])).toEqual(['send-keys', '-l', 'ls\\;', ';', 'a\\\\;']);
  });
});

describe('ControlStream', () => {
  const read = (text: string, chunk = 7) => {
    const blocks: Block[] = [];
    const events: string[] = [];
    const s = new ControlStream({
      begin: () => events.push('begin'),
      block: (b) => (blocks.push(b), events.push('block')),
      exit: (why) => events.push(`exit:${why}`),
    });
    for (let i = 0; i < text.length; i += chunk) s.push(text.slice(i, i + chunk));
    return { blocks, events };
  };

  it('frames output by the exact time, number and flags, whatever the chunking', () => {
    const { blocks, events } = read(
      [
        '%begin 100 7 1',
        'line one',
        '%end 100 6 1',
        '%end 99 7 1',
        '%begin 1 1 1',
        '',
        '%end 100 7 1',
        '%session-changed $0 a',
        '%begin 100 8 1',
        "can't find session: x",
        '%error 100 8 1',
        '%exit',
        '',
      ].join('\n'),
    );
    expect(blocks).toEqual([
      { failed: false, lines: ['line one', '%end 100 6 1', '%end 99 7 1', '%begin 1 1 1', ''] },
      { failed: true, lines: ["can't find session: x"] },
    ]);
    expect(events).toEqual(['begin', 'block', 'begin', 'block', 'exit:']);
  });

  it('keeps a frame with one empty line apart from an empty frame', () => {
    const { blocks } = read('%begin 1 2 1\n%end 1 2 1\n%begin 1 3 1\n\n%end 1 3 1\n', 1);
    expect(blocks.map((b) => b.lines)).toEqual([[], ['']]);
  });
});

/**
 * How tmux 3.3a's format_expand1 reads `#` (format.c), for what formatLiteral must undo: `##` is one
 * `#`; a run of `#` ending in `[` is copied as written (a style); `#,` and `#}` lose their `#`;
 * `#(`, `#{` and an alias letter are expansions (marked here as ⟨…⟩ so they can never pass).
 * test/engine/hostile-input.test.ts checks the same names against real tmux.
 */
function tmuxExpands(fmt: string): string {
  const ALIASES = new Set('DFHIPSTWh');
  let out = '';
  for (let i = 0; i < fmt.length; ) {
    if (fmt[i] !== '#') {
      out += fmt[i++];
      continue;
    }
    const ch = fmt[i + 1] ?? '';
    if (ch === '#') {
      let j = i + 2;
      while (fmt[j] === '#') j++;
      if (fmt[j] === '[') {
        out += fmt.slice(i, j + 1);
        i = j + 1;
      } else {
        out += '#';
        i += 2;
      }
    } else if (ch === '(' || ch === '{' || ALIASES.has(ch)) {
      out += `⟨expanded #${ch}⟩`;
      i += 2;
    } else if (ch === '}' || ch === ',') {
      out += ch;
      i += 2;
    } else {
      out += `#${ch}`;
      i += 2;
    }
  }
  return out;
}

describe('formatLiteral', () => {
  it('gives back the value from every format tmux reads: #( and #{ never expand, styles and runs of # survive', () => {
    const cases: [string, string][] = [
      ['x#(touch ran.txt)', 'x##(touch ran.txt)'],
      ['y#{pane_id}', 'y##{pane_id}'],
      ['p#D', 'p##D'],
      ['a##', 'a####'],
      ['e#', 'e##'],
      ['q#[b', 'q#[b'],
      ['z##[w', 'z##[w'],
      ['h###[k', 'h###[k'],
      ['#,#}', '##,##}'],
      ['/plain/path', '/plain/path'],
    ];
    for (const [value, written] of cases) {
      expect(formatLiteral(value), value).toBe(written);
      expect(tmuxExpands(written), value).toBe(value);
    }
  });

  it('property: any text made of #, brackets, braces and letters reads back as itself', () => {
    const piece = fc.constantFrom('#', '##', '[', '(', '{', '}', ',', 'D', 'S', 'h', 'x', '/', ' ', '%');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 24 }), (parts) => {
        const value = parts.join('');
        expect(tmuxExpands(formatLiteral(value))).toBe(value);
      }),
      { numRuns: 2000 },
    );
  });
});

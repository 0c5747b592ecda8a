import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../../src/cli/args';

describe('parseArgs', () => {
  it('the first positional is the command, the rest are positionals', () => {
    expect(parseArgs(['send', 'lead@demo', 'hello', 'world'])).toEqual({
      command: 'send',
      positionals: ['lead@demo', 'hello', 'world'],
      flags: {},
    });
  });

  it('no arguments is no command', () => {
    expect(parseArgs([])).toEqual({ positionals: [], flags: {} });
  });

  it('boolean flags anywhere on the line', () => {
    expect(parseArgs(['--json', 'ps', '--all'])).toEqual({
      command: 'ps',
      positionals: [],
      flags: { json: true, all: true },
    });
  });

  it('--key=value sets a value for any flag, keeping later "=" signs', () => {
    expect(parseArgs(['events', '--seat=lead@demo', '--x=a=b', '--empty='])).toEqual({
      command: 'events',
      positionals: [],
      flags: { seat: 'lead@demo', x: 'a=b', empty: '' },
    });
  });

  it('value flags take the next argument', () => {
    expect(parseArgs(['capture', 'lead@demo', '--lines', '200'])).toEqual({
      command: 'capture',
      positionals: ['lead@demo'],
      flags: { lines: '200' },
    });
    expect(parseArgs(['ps', '--rig', 'demo', '--json']).flags).toEqual({ rig: 'demo', json: true });
    expect(parseArgs(['send', 'a@b', '--file', '/tmp/msg.txt']).flags).toEqual({ file: '/tmp/msg.txt' });
  });

  it('a value flag at the end of the line is a bare flag', () => {
    expect(parseArgs(['ps', '--rig']).flags).toEqual({ rig: true });
  });

  it('a flag that takes no value does not swallow the next argument', () => {
    expect(parseArgs(['launch', '--fresh', 'lead@demo'])).toEqual({
      command: 'launch',
      positionals: ['lead@demo'],
      flags: { fresh: true },
    });
  });

  it('-- stops flag parsing: `send s -- --json` sends the literal text "--json"', () => {
    expect(parseArgs(['send', 's', '--', '--json'])).toEqual({
      command: 'send',
      positionals: ['s', '--json'],
      flags: {},
    });
    expect(parseArgs(['send', 's', '--json', '--', '--json', '-h', '--'])).toEqual({
      command: 'send',
      positionals: ['s', '--json', '-h', '--'],
      flags: { json: true },
    });
  });

  it('-- before the command makes even a flag-looking word the command', () => {
    expect(parseArgs(['--', '--help'])).toEqual({ command: '--help', positionals: [], flags: {} });
  });

  it('-h is help; a lone "-" (stdin) and other single-dash words are positionals', () => {
    expect(parseArgs(['-h']).flags).toEqual({ help: true });
    expect(parseArgs(['send', 's', '-'])).toEqual({ command: 'send', positionals: ['s', '-'], flags: {} });
    expect(parseArgs(['send', 's', '-x']).positionals).toEqual(['s', '-x']);
  });

  it('property: everything after -- is kept verbatim and in order', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ minLength: 1 }).filter((s) => !s.startsWith('-')),
          { maxLength: 3 },
        ),
        fc.array(fc.string(), { maxLength: 6 }),
        (head, tail) => {
          const p = parseArgs(['send', ...head, '--', ...tail]);
          expect(p.command).toBe('send');
          expect(p.positionals).toEqual([...head, ...tail]);
          expect(p.flags).toEqual({});
        },
      ),
    );
  });

  it('property: never throws on any argv', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string(), fc.constantFrom('--', '-h', '--rig', '--lines', '--json', '--=x', '---'))),
        (argv) => {
          const p = parseArgs(argv);
          expect(Array.isArray(p.positionals)).toBe(true);
        },
      ),
    );
  });
});

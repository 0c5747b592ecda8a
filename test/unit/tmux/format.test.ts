import { describe, expect, it } from 'vitest';
import {
  PANE_FIELDS,
  PANE_FORMAT,
  parsePaneRows,
  SEP,
  serverAbsent,
  sessionAbsent,
} from '../../../src/main/engine/tmux/format';

type Fields = Record<(typeof PANE_FIELDS)[number], string>;

const good: Fields = {
  pid: '12345',
  session_id: '$3',
  session_created: '1795935532',
  pane_id: '%7',
  pane_pid: '23456',
  pane_dead: '0',
  pane_active: '1',
  window_index: '0',
  pane_index: '0',
  pane_width: '200',
  pane_height: '50',
  pane_current_command: 'claude',
  '@rigdesk_seat': 'lead@demo',
  '@rigdesk_attempt': 'a1b2',
  pane_pipe: '1',
  session_name: 'rigdesk-demo-lead',
  pane_current_path: '/w/proj',
  pane_title: 'vm',
};
const line = (f: Partial<Fields> = {}) => PANE_FIELDS.map((k) => ({ ...good, ...f })[k]).join(SEP);

describe('parsePaneRows reads list-panes -F PANE_FORMAT output', () => {
  it('the format asks for every field, in order, separated by U+001F', () => {
    expect(PANE_FORMAT.split(SEP)).toEqual(PANE_FIELDS.map((f) => `#{${f}}`));
  });

  it('a good row parses into typed fields', () => {
    const { rows, malformed } = parsePaneRows(`${line()}\n`);
    expect(malformed).toBe(0);
    expect(rows).toEqual([
      {
        serverPid: 12345,
        sessionId: '$3',
        sessionCreated: 1795935532,
        paneId: '%7',
        panePid: 23456,
        paneDead: false,
        paneActive: true,
        windowIndex: 0,
        paneIndex: 0,
        width: 200,
        height: 50,
        currentCommand: 'claude',
        seatTag: 'lead@demo',
        attemptTag: 'a1b2',
        pipe: true,
        sessionName: 'rigdesk-demo-lead',
        currentPath: '/w/proj',
        title: 'vm',
      },
    ]);
  });

  it('several rows, a dead pane, untagged panes (empty user options), no trailing newline', () => {
    const out = [
      line(),
      line({ pane_id: '%8', pane_dead: '1', pane_active: '0', '@rigdesk_seat': '', '@rigdesk_attempt': '' }),
    ].join('\n');
    const { rows, malformed } = parsePaneRows(out);
    expect(malformed).toBe(0);
    expect(rows.map((r) => [r.paneId, r.paneDead, r.seatTag, r.attemptTag])).toEqual([
      ['%7', false, 'lead@demo', 'a1b2'],
      ['%8', true, '', ''],
    ]);
  });

  it('empty output is no rows and nothing malformed', () => {
    expect(parsePaneRows('')).toEqual({ rows: [], malformed: 0 });
    expect(parsePaneRows('\n\n')).toEqual({ rows: [], malformed: 0 });
  });

  it('rows with missing fields are dropped and counted, and do not hide the good ones', () => {
    const short = line().split(SEP).slice(0, -1).join(SEP);
    const { rows, malformed } = parsePaneRows([short, line(), 'garbage'].join('\n'));
    expect(rows).toHaveLength(1);
    expect(malformed).toBe(2);
  });

  it('extra separators belong to the last field, the raw pane_current_path', () => {
    const { rows, malformed } = parsePaneRows(`${line() + SEP}extra`);
    expect(malformed).toBe(0);
    expect(rows[0]!.currentPath.endsWith(`${SEP}extra`)).toBe(true);
  });

  const badIds: [string, Partial<Fields>][] = [
    ['session id without $', { session_id: '3' }],
    ['session id $x', { session_id: '$x' }],
    ['empty session id', { session_id: '' }],
    ['a session name where the id should be', { session_id: 'rigdesk-demo' }],
    ['pane id without %', { pane_id: '7' }],
    ['pane id %', { pane_id: '%' }],
    ['pane id %7.1', { pane_id: '%7.1' }],
    ['non-numeric server pid', { pid: 'abc' }],
    ['empty pane pid', { pane_pid: '' }],
    ['fractional pane pid', { pane_pid: '1.5' }],
    ['empty session_created', { session_created: '' }],
    ['hex session_created', { session_created: '0x10' }],
  ];
  for (const [what, f] of badIds) {
    it(`a row with ${what} is dropped and counted, never half-trusted`, () => {
      expect(parsePaneRows(line(f))).toEqual({ rows: [], malformed: 1 });
    });
  }

  it('session names with spaces, tmux escapes (\\037) and unicode are kept verbatim', () => {
    // tmux 3.3a escapes control characters in a session name when it is set: U+001F becomes "\037".
    for (const name of ['my session', 'x\\037y', 'a\\033[31mred', 'équipe 🚀', '  lead  ', 'it\'s "quoted"']) {
      const { rows } = parsePaneRows(line({ session_name: name }));
      expect(rows.map((r) => r.sessionName)).toEqual([name]);
    }
  });

  it('titles and paths with spaces and unicode are kept verbatim', () => {
    const { rows } = parsePaneRows(line({ pane_title: '✳ Claude Code — task', pane_current_path: '/w/my proj/é' }));
    expect(rows[0]).toMatchObject({ title: '✳ Claude Code — task', currentPath: '/w/my proj/é' });
  });

  // Was a bug, now fixed (src/main/engine/tmux/format.ts:1-4 and :56, consumed by tmux/client.ts:57): the module
  // assumes tmux escapes U+001F inside every value. tmux 3.3a does for session_name (checked:
  // `rename-session "x\037y"` lists as `x\037y`) and refuses it in pane titles, but prints
  // pane_current_path raw: a pane whose cwd is `/tmp/a<U+001F>b` lists with 18 fields. The row is
  // counted malformed, and TmuxClient.listPanes throws the count away, so the pane silently
  // vanishes from the roster (store evidence for its conversation is lost; `launch` then sees the
  // seat's live row as gone). Reproduce: mkdir "$(printf '/tmp/a\037b')"; tmux -L x new -d -c
  // "$(printf '/tmp/a\037b')"; tmux -L x list-panes -a -F "$PANE_FORMAT" | parse.
  it('a pane whose cwd contains U+001F (tmux prints pane_current_path raw) is not lost', () => {
    const { rows } = parsePaneRows(line({ pane_current_path: `/tmp/a${SEP}b` }));
    expect(rows.map((r) => r.currentPath)).toEqual([`/tmp/a${SEP}b`]);
  });
});

describe('tmux 3.3a: what counts as "no server" and "no session"', () => {
  const NO_SERVER = [
    'no server running on /tmp/tmux-0/x\n',
    'error connecting to /tmp/tmux-0/x (No such file or directory)\n',
    'error connecting to /tmp/tmux-0/x (Connection refused)\n',
    'no server running on /tmp/rigdesk sockets/with space\n',
  ];
  const NO_SESSION = [
    "can't find session: $7\n",
    "can't find session: rigdesk-demo-lead\n",
    "can't find pane: %99\n",
    "can't find window: @4\n",
  ];
  const NEITHER = [
    'error connecting to /tmp/tmux-0/x (Permission denied)\n',
    'server exited unexpectedly\n',
    'lost server\n',
    'unknown command: list-panez\n',
    'open terminal failed: not a terminal\n',
    'protocol version mismatch (client 8, server 7)\n',
    '',
  ];
  for (const s of NO_SERVER) {
    it(`${JSON.stringify(s)} is a server that is definitely absent`, () => {
      expect(serverAbsent(s)).toBe(true);
      expect(sessionAbsent(s)).toBe(false);
    });
  }
  for (const s of NO_SESSION) {
    it(`${JSON.stringify(s)} is a session that is definitely absent`, () => {
      expect(sessionAbsent(s)).toBe(true);
      expect(serverAbsent(s)).toBe(false);
    });
  }
  for (const s of NEITHER) {
    it(`${JSON.stringify(s)} is neither (an unknown, never an absence)`, () => {
      expect(serverAbsent(s)).toBe(false);
      expect(sessionAbsent(s)).toBe(false);
    });
  }
});

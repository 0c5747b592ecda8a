/**
 * The held control-mode client answers every command exactly as a one-shot `tmux` would, and
 * carries hostile arguments and large pastes byte for byte. Real tmux (a private -L server), the
 * same server asked both ways, one after the other.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { capturePanes } from '../../src/main/engine/activity/capture';
import type { Engine } from '../../src/main/engine/engine';
import { PANE_FORMAT } from '../../src/main/engine/tmux/format';
import { RigWorld, shellRigYaml } from '../support/rig';
import { waitFor } from '../support/tmux';

describe('held tmux client: answers equal to one-shot tmux', () => {
  let w: RigWorld;
  let e: Engine;
  let paint: { paneId: string; sessionId: string };
  beforeEach(async () => {
    w = new RigWorld();
    const up = await w.cli(['up', w.spec('rig.yaml', shellRigYaml('demo', ['lead', 'worker']))]);
    expect(up.code, up.stderr).toBe(0);
    // Colour, wide and combining characters, a U+001F, a tab and a line that reads like a frame end.
    paint = w.tmux.newSession('paint', [
      'sh',
      '-c',
      "printf '\\033[31mred\\033[0m é 日本 😀 e\\314\\201 \\037 tab\\there\\n%%end 1796000000 12 1\\n%%begin x\\n'; exec sleep 600",
    ]);
    w.tmux.run(['set-option', '-t', paint.sessionId, '@note', 'a "quoted" $x ~ #{pane_id}']);
    await waitFor(() => w.tmux.capture(paint.paneId).includes('%begin x'), { what: 'paint printed' });
    e = w.engine();
    expect(e.own.held).toBe(true);
  });
  afterEach(() => w.cleanup());

  const both = async (args: string[]) => {
    const held = await e.own.run(args);
    const once = await e.own.runOneShot(args);
    return { held: pick(held), once: pick(once) };
  };
  const pick = (r: { code: number | null; stdout: string; stderr: string }) => ({
    code: r.code,
    stdout: r.stdout,
    stderr: r.stderr,
  });

  it('list-panes with the roster format, capture-pane with escapes, display-message, show-options', async () => {
    const cases: string[][] = [
      ['list-panes', '-a', '-F', PANE_FORMAT],
      ['capture-pane', '-p', '-e', '-t', paint.paneId],
      ['capture-pane', '-p', '-J', '-t', paint.paneId, '-S', '-100'],
      ['display-message', '-p', '-t', paint.paneId, '#{pane_id}\x1f#{session_name}\x1f#{pid}\x1f#{pane_pid}'],
      ['display-message', '-p', '-t', '%999', '#{pane_id}'],
      ['show-options', '-g'],
      ['show-options', '-g', '-v', 'history-limit'],
      ['show-options', '-t', paint.sessionId, '-v', '@note'],
      ['list-sessions', '-F', '#{session_name}\x1f#{@rigdesk_seat}\x1f#{session_created}'],
      [
        'if-shell',
        '-F',
        '-t',
        paint.sessionId,
        '#{==:#{session_name},paint}',
        'display-message -p yes',
        'display-message -p no',
      ],
      ['display-message', '-p', 'one', ';', 'display-message', '-p', 'two'],
    ];
    for (const args of cases) {
      const { held, once } = await both(args);
      expect(held, args.join(' ')).toEqual(once);
      expect(held.code, args.join(' ')).toBe(0);
    }
    const cap = await both(['capture-pane', '-p', '-e', '-t', paint.paneId]);
    expect(cap.held.stdout).toContain('\x1b[31mred');
    expect(cap.held.stdout).toContain('%end 1796000000 12 1\n');
  });

  it('errors: the same exit code and message, and a list stops at its first failure', async () => {
    const cases: string[][] = [
      ['has-session', '-t', 'nosuch'],
      ['kill-session', '-t', '$99'],
      ['capture-pane', '-p', '-t', '%999'],
      ['no-such-command', 'x'],
      ['display-message', '-p', 'a', ';', 'has-session', '-t', 'nosuch', ';', 'display-message', '-p', 'b'],
      ['new-session', '-d', '-s', 'lead@demo', '--', 'sleep', '1'],
    ];
    for (const args of cases) {
      const { held, once } = await both(args);
      expect(held, args.join(' ')).toEqual(once);
      expect(held.code, args.join(' ')).toBe(1);
    }
  });

  it("the engine's own readers read the same through it (roster panes, one capture for many panes)", async () => {
    const ids = (await e.own.listPanes()).ok
      ? ((await e.own.listPanes()) as { panes: { paneId: string }[] })
      : undefined;
    expect(ids?.panes.length).toBe(3);
    const heldScreens = await capturePanes(e.own, [paint.paneId, '%999', ...ids!.panes.map((p) => p.paneId)]);
    const oneShot = w.engine({ exec: (await import('../../src/main/engine/deps')).liveExec });
    expect(oneShot.own.held).toBe(false);
    const onceScreens = await capturePanes(oneShot.own, [paint.paneId, '%999', ...ids!.panes.map((p) => p.paneId)]);
    expect([...heldScreens.entries()]).toEqual([...onceScreens.entries()]);
    expect(heldScreens.get(paint.paneId)?.plain.join('\n')).toContain('日本');
  });
});

describe('held tmux client: hostile arguments and pastes, byte for byte', () => {
  let w: RigWorld;
  let e: Engine;
  beforeEach(async () => {
    w = new RigWorld();
    w.tmux.newSession('keep', ['sleep', '600']);
    e = w.engine();
  });
  afterEach(() => w.cleanup());

  const HOSTILE = [
    `it's "quoted" \\ back\\slash \\"`,
    'a;b ; c',
    'ends with a semicolon;',
    'ends with \\;',
    '#{pane_id} #[fg=red] ## #(echo hi)',
    '$HOME ${HOME} $1 ~ ~/x ~root',
    'line1\nline2\r\n\ttab\n',
    '\x1b[31mred\x1b[0m \x07 \x7f \x01\x02\x1f',
    'é 日本 😀 e\u0301 \u200b \ufeff',
    "{ } %if 1 %endif '",
    '-starts-with-dash',
    '%if',
    '%endif',
    '~',
    `${'long line of text with "quotes" and $vars; '.repeat(2000)}end`,
  ];

  it('set-buffer then save-buffer gives back the exact bytes, held and one-shot alike', async () => {
    for (const [i, text] of HOSTILE.entries()) {
      for (const how of ['held', 'once'] as const) {
        const file = join(w.root, `buf-${how}-${i}`);
        const args = ['set-buffer', '-b', `t${i}`, '--', text, ';', 'save-buffer', '-b', `t${i}`, file];
        const r = how === 'held' ? await e.own.run(args) : await e.own.runOneShot(args);
        if (how === 'once' && text.length > 16_000) {
          // A one-shot's argv travels to the server in one message of at most 16 kB; a control
          // line has no such limit.
          expect(r.stderr).toContain('command too long');
          continue;
        }
        expect(r.code, `${how} ${JSON.stringify(text.slice(0, 60))}: ${r.stderr}`).toBe(0);
        expect(readFileSync(file).equals(Buffer.from(text)), `${how} ${JSON.stringify(text.slice(0, 60))}`).toBe(true);
      }
    }
  });

  it('an option set to hostile text reads back the same through either path', async () => {
    for (const text of HOSTILE.slice(0, 10)) {
      const set = await e.own.run(['set-option', '-t', 'keep', '@v', text]);
      expect(set.code, set.stderr).toBe(0);
      const held = await e.own.run(['show-options', '-t', 'keep', '-v', '@v']);
      const once = await e.own.runOneShot(['show-options', '-t', 'keep', '-v', '@v']);
      expect(held).toEqual(once);
      const fmt = await e.own.run(['display-message', '-p', '-t', 'keep', '#{@v}']);
      expect(fmt.stdout).toBe((await e.own.runOneShot(['display-message', '-p', '-t', 'keep', '#{@v}'])).stdout);
    }
  });

  it('a paste (bracketed, literal buffer) reaches a raw pane byte for byte, also 2 MB of it', async () => {
    const sink = (name: string) => {
      const file = join(w.root, `${name}.out`);
      const s = w.tmux.newSession(name, ['sh', '-c', `stty raw -echo; exec cat > ${file}`]);
      return { ...s, file };
    };
    const big = Array.from({ length: 2 * 1024 }, (_, i) => `${i} ${HOSTILE[i % 10]!.replace(/\r/g, '')}`)
      .join('\n')
      .padEnd(2 * 1024 * 1024, 'x');
    for (const [name, text] of [
      ['small', HOSTILE.slice(0, 12).join('|')],
      ['big', big],
    ] as const) {
      const s = sink(name);
      await waitFor(
        () => w.tmux.run(['display-message', '-p', '-t', s.paneId, '#{pane_current_command}']).trim() === 'cat',
        {
          what: 'cat in the pane',
        },
      );
      const want = Buffer.from(text);
      const r = await e.own.paste(s.paneId, text, `rigdesk-test-${name}`);
      expect(r.ok, JSON.stringify(r)).toBe(true);
      await waitFor(() => statSync(s.file).size >= want.length, { what: `${name} paste arrives`, timeoutMs: 30_000 });
      expect(readFileSync(s.file).equals(want), name).toBe(true);
    }
    // The buffers went with the paste (-d), through the held client.
    expect((await e.own.run(['list-buffers', '-F', '#{buffer_name}'])).stdout).not.toContain('rigdesk-test');
  });

  it('send-keys -l types hostile text the same held and one-shot', async () => {
    const text = HOSTILE.slice(0, 6).join(' ');
    const out: string[] = [];
    for (const how of ['held', 'once'] as const) {
      const file = join(w.root, `keys-${how}.out`);
      const s = w.tmux.newSession(`keys-${how}`, ['sh', '-c', `stty raw -echo; exec cat > ${file}`]);
      await waitFor(
        () => w.tmux.run(['display-message', '-p', '-t', s.paneId, '#{pane_current_command}']).trim() === 'cat',
      );
      const args = ['send-keys', '-t', s.paneId, '-l', text];
      const r = how === 'held' ? await e.own.run(args) : await e.own.runOneShot(args);
      expect(r.code, r.stderr).toBe(0);
      await waitFor(() => statSync(file).size >= Buffer.byteLength(text) - 10, { what: 'keys arrive' });
      await new Promise((res) => setTimeout(res, 200));
      out.push(readFileSync(file, 'latin1'));
    }
    expect(out[0]).toBe(out[1]);
  });
});

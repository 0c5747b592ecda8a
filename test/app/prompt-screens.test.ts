import { describe, expect, it } from 'vitest';
import { PROMPT_KEYS, readPrompt } from '../../src/main/engine/prompts/screens';

/** Claude Code 2.1.197 at a Bash permission prompt (captured from a real seat, 200 columns). */
const claude = (cmd: string, selected = 1) => [
  ' ▐▛███▜▌   Claude Code v2.1.197',
  `❯ RUN: ${cmd}`,
  `● Bash(${cmd})`,
  '  ⎿  Waiting…',
  '─'.repeat(200),
  ' Bash command',
  `   ${cmd}`,
  `   fake server RUN: ${cmd}`,
  ' Do you want to proceed?',
  ...['Yes', 'Yes, and always allow access to work/ from this project', 'No'].map(
    (o, i) => `${i + 1 === selected ? ' ❯ ' : '   '}${i + 1}. ${o}`,
  ),
  ' Esc to cancel · Tab to amend · ctrl+e to explain',
];

/** Codex 0.171.0 at an exec approval (docs/agent-clis.md). */
const codex = (cmd: string) => [
  `• Running ${cmd}`,
  '',
  '  Would you like to run the following command?',
  '',
  '  Environment: local',
  '',
  `  Reason: Fake model wants to run: ${cmd}`,
  '',
  `  $ ${cmd}`,
  '',
  '› 1. Yes, proceed (y)',
  "  2. Yes, and don't ask again for commands that start with `…` (p)",
  '  3. No, and tell Codex what to do differently (esc)',
  '',
  '  Press enter to confirm or esc to cancel',
];

describe('reading a permission prompt off the screen', () => {
  it('Claude: the evidence runs from the tool call to the footer, and approve is ready only with "1. Yes" highlighted', () => {
    const p = readPrompt('claude-code', claude('touch x'))!;
    expect(p.lines[0]).toBe('● Bash(touch x)');
    expect(p.lines.at(-1)).toMatch(/^ Esc to cancel/);
    expect(p.lines.some((l) => /^─+$/.test(l))).toBe(false);
    expect(p.approveReady).toBe(true);
    const moved = readPrompt('claude-code', claude('touch x', 3))!;
    expect(moved.approveReady).toBe(false);
    expect(moved.why).toMatch(/highlighted/);
  });

  it('the fingerprint names what is asked: the same prompt keeps it whatever is highlighted, another command changes it', () => {
    const a = readPrompt('claude-code', claude('touch x'))!.fingerprint;
    expect(a).toMatch(/^[0-9a-f]{16}$/);
    expect(readPrompt('claude-code', claude('touch x', 2))!.fingerprint).toBe(a);
    expect(readPrompt('claude-code', claude('rm -rf x'))!.fingerprint).not.toBe(a);
    expect(readPrompt('codex', codex('touch x'))!.fingerprint).not.toBe(
      readPrompt('codex', codex('rm -rf x'))!.fingerprint,
    );
  });

  it('Codex: the command and the question are the evidence; y approves whatever is highlighted', () => {
    const p = readPrompt('codex', codex('echo hi > out.txt'))!;
    expect(p.lines[0]).toBe('• Running echo hi > out.txt');
    expect(p.lines.join('\n')).toContain('$ echo hi > out.txt');
    expect(p.approveReady).toBe(true);
    expect(PROMPT_KEYS.codex).toEqual({ approve: ['y'], deny: ['Escape'] });
    expect(PROMPT_KEYS['claude-code']).toEqual({ approve: ['Enter'], deny: ['Escape'] });
  });

  it('no prompt, a question without its footer, or a runtime without prompts reads as nothing to answer', () => {
    expect(readPrompt('claude-code', ['❯ ', '  ? for shortcuts'])).toBeUndefined();
    expect(readPrompt('claude-code', claude('touch x').slice(0, -1))).toBeUndefined();
    expect(readPrompt('codex', codex('x').slice(0, -1))).toBeUndefined();
    expect(readPrompt('pi', claude('touch x'))).toBeUndefined();
    expect(readPrompt('shell', claude('touch x'))).toBeUndefined();
    expect(PROMPT_KEYS.shell).toBeUndefined();
    expect(PROMPT_KEYS.pi).toBeUndefined();
  });
});

describe('the tool a prompt asks about', () => {
  it("is read from Claude's tool-call line and Codex's command approval", async () => {
    const { toolOf } = await import('../../src/main/engine/prompts/screens');
    expect(toolOf(readPrompt('claude-code', claude('touch x'))!.lines)).toBe('Bash');
    expect(toolOf(readPrompt('codex', codex('touch x'))!.lines)).toBe('command');
    expect(toolOf(['nothing here'])).toBeUndefined();
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { claudeProjectSlug, claudeTranscriptFile } from '../../../src/main/engine/runtimes/claude-code';
import { AGENT_RUNTIMES, claudeCode, codex, pi, shell, type RuntimeAdapter } from '../../../src/main/engine/runtimes';

const ID = '11111111-2222-3333-4444-555555555555';

/** The id a runtime's "conversation missing" report names (whichever group captured it). */
function missingId(r: RuntimeAdapter, text: string): string | undefined {
  const m = r.missingConversation.exec(text);
  return m ? (m.slice(1).find((g) => g !== undefined) ?? '') : undefined;
}

/** The exact words each CLI printed (agent-clis.md), and who printed them. */
const MISSING: [RuntimeAdapter, string, string][] = [
  [claudeCode, `No conversation found with session ID: ${ID}`, ID],
  [
    codex,
    `ERROR: No saved session found with ID ${ID}. Run \`codex resume\` without an ID to choose from existing sessions.`,
    ID,
  ],
  [codex, `Error: thread/resume: thread/resume failed: no rollout found for thread id ${ID} (code -32600)`, ID],
  [pi, `No session found matching '${ID}'`, ID],
  [pi, `No session found matching 'deadbeef'`, 'deadbeef'],
];

/** Messages that look related but are not "that conversation does not exist". */
const NOT_MISSING = [
  'Error: Session ID 0e0e0e0e-1111-4222-8333-444455556666 is already in use.',
  'Error: --resume requires a valid session ID or session title when used with --print. Usage: claude -p --resume <session-id|title>. Provided value "bogus-name" is not a UUID and does not match any session title.',
  `ERROR codex_core::session: Failed to create session: thread-store conflict: thread ${ID} already has an active writer`,
  'Session found in different project: /w/work-pi',
  'Fork this session into current directory? [y/N]',
  `Resume this session with:\nclaude --resume ${ID}`,
  `To reconnect, run:\n  codex resume ${ID}`,
  '',
];

describe('each runtime recognises its own "conversation missing" report, with the id', () => {
  for (const [r, text, id] of MISSING) {
    it(`${r.id}: ${JSON.stringify(text.slice(0, 60))} names ${id}`, () => {
      expect(missingId(r, text)).toBe(id);
      // Inside a screen capture, with other lines around it.
      expect(missingId(r, `$ resume\n${text}\n\n[rigdesk] agent exited with status 1\n`)).toBe(id);
    });
    it(`${r.id}'s report is not taken for another runtime's`, () => {
      for (const other of [...AGENT_RUNTIMES, shell].filter((o) => o !== r))
        expect(missingId(other, text)).toBeUndefined();
    });
  }
  for (const text of NOT_MISSING) {
    it(`${JSON.stringify(text.slice(0, 50))} is no runtime's missing-conversation report`, () => {
      for (const r of [...AGENT_RUNTIMES, shell]) expect(missingId(r, text)).toBeUndefined();
    });
  }
  it("codex stops the id at the sentence's full stop", () => {
    expect(missingId(codex, `ERROR: No saved session found with ID ${ID}.`)).toBe(ID);
  });
});

/** Java's String.hashCode, as the Claude Code 2.1.197 binary computes it for long project paths. */
function javaHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

describe('claudeProjectSlug: the projects/ folder Claude uses for a cwd', () => {
  it('every character that is not an ASCII letter or digit becomes "-"', () => {
    expect(claudeProjectSlug('/tmp/agentprobe/work')).toBe('-tmp-agentprobe-work');
    expect(claudeProjectSlug('/home/u/my project.v2/x_y')).toBe('-home-u-my-project-v2-x-y');
    expect(claudeProjectSlug('/w/é')).toBe('-w--'); // one UTF-16 unit
    expect(claudeProjectSlug('/w/😀')).toBe('-w---'); // two UTF-16 units
  });

  it('a slug of up to 200 characters is kept whole', () => {
    const cwd = `/${'a'.repeat(199)}`;
    expect(claudeProjectSlug(cwd)).toBe(`-${'a'.repeat(199)}`);
  });

  it('a longer one is cut to 200 and suffixed with the base-36 hash of the whole path', () => {
    const cwd = `/${'a'.repeat(150)}/${'b'.repeat(100)}`;
    const slug = claudeProjectSlug(cwd);
    expect(slug).toBe(`${cwd.replace(/[^a-zA-Z0-9]/g, '-').slice(0, 200)}-${Math.abs(javaHash(cwd)).toString(36)}`);
  });

  it('two long paths that share their first 200 characters get different folders', () => {
    const base = `/${'x'.repeat(250)}`;
    expect(claudeProjectSlug(`${base}/one`)).not.toBe(claudeProjectSlug(`${base}/two`));
  });

  it('property: the slug is alnum and "-" up to 200, then "-" + base-36 hash', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: fc.constantFrom('a', 'Z', '0', '9', '/', '-', '_', '.', ' ', 'é', '😀'), maxLength: 320 }),
          fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 40 }),
        ),
        (cwd) => {
          const s = claudeProjectSlug(cwd);
          const head = cwd.replace(/[^a-zA-Z0-9]/g, '-');
          if (head.length <= 200) expect(s).toBe(head);
          else expect(s).toMatch(/^[A-Za-z0-9-]{200}-[0-9a-z]+$/);
        },
      ),
    );
  });

  it('the transcript lives at projects/<slug>/<id>.jsonl under the config home', () => {
    expect(claudeTranscriptFile('/h/claude', '/tmp/agentprobe/work', ID)).toBe(
      `/h/claude/projects/-tmp-agentprobe-work/${ID}.jsonl`,
    );
  });
});

import { describe, expect, it } from 'vitest';
import { compactCount, formatPs } from '../../../src/cli/format';
import type { PsRow } from '../../../src/shared/contract';

const row = (over: Partial<PsRow>): PsRow => ({
  seat: 's@r',
  rig: 'r',
  pod: 'p',
  member: 's',
  runtime: 'codex',
  cwd: '/w',
  state: 'running',
  activity: 'idle',
  stoppedOnPurpose: false,
  ...over,
});

describe("rigdesk ps: each seat's context, tokens and cost estimate, compactly", () => {
  it('context share with `high` past 85 %, tokens in/out, the cost marked as an estimate, `-` where none is known', () => {
    const out = formatPs(
      [
        row({
          seat: 'a@r',
          contextPct: 87.2,
          tokensIn: 225000,
          tokensOut: 321,
          costUsd: 1.2345,
          costSource: 'catalog',
          costBasis: 'gpt-5.5: @pydantic/genai-prices 0.1.8 (openai/gpt-5.5)',
        }),
        row({ seat: 'b2@r', contextPct: 1, tokensIn: 10, tokensOut: 2, costUsd: 0.00123, costSource: 'settings' }),
        row({ seat: 'b@r', contextPct: 20.4, tokensIn: 52301, tokensOut: 417 }),
        row({ seat: 'c@r', runtime: 'claude-code', tokensIn: 56901, tokensOut: 417 }),
        row({ seat: 'd@r', runtime: 'shell' }),
        row({ seat: 'e@r', runtime: 'shell', changes: { files: 3, added: 1200, removed: 2, overlapsWith: ['a@r'] } }),
      ],
      [],
      [],
    ).split('\n');
    expect(out[0]).toMatch(/PID\s+CONTEXT\s+TOKENS IN\/OUT\s+COST\s+CHANGES\s+CONVERSATION/);
    expect(out[1]).toMatch(/\s87\.2% high\s+225k\/321\s+~\$1\.23\s/);
    expect(out[2]).toMatch(/\s1%\s+10\/2\s+~\$0\.0012\s/);
    expect(out[3]).toMatch(/\s20\.4%\s+52k\/417\s+-\s/);
    expect(out[3]).not.toContain('high');
    expect(out[4]).toMatch(/\s-\s+57k\/417\s+-\s/);
    expect(out[5]).toMatch(/\s-\s+-\s+-\s+-\s+-$/);
    expect(out[6]).toMatch(/\s-\s+3 \+1\.2k\/-2 overlap\s/);
    expect(out.at(-1)).toBe(
      "COST is an estimate from the tokens by kind and model prices (gpt-5.5: @pydantic/genai-prices 0.1.8 (openai/gpt-5.5); rigdesk ps --json names each seat's)",
    );
  });

  it('compactCount keeps a count to a few characters', () => {
    expect([0, 417, 999, 1000, 1234, 52301, 999_499, 999_999, 1_234_567].map(compactCount)).toEqual([
      '0',
      '417',
      '999',
      '1k',
      '1.2k',
      '52k',
      '999k',
      '1M',
      '1.2M',
    ]);
  });
});

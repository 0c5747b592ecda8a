import { describe, expect, it } from 'vitest';
import { checkConversationFree } from '../../../src/main/engine/custody/guard';
import { mergeRosters } from '../../../src/main/engine/hosts/merge';
import type { Roster } from '../../../src/main/engine/roster/types';

const C = 'dd0b1b38-acef-44ea-9af2-05ee8272437c';
const BOX = 'H:box|L:rigdesk';

function roster(o: Partial<Roster> = {}): Roster {
  return { takenAt: 1, servers: [], panes: [], agents: [], claims: [], problems: [], ...o };
}
/** A roster of `box` where pid 500 writes C, as buildRoster tags it. */
const boxWriting = roster({
  servers: [{ server: BOX, running: true }],
  agents: [{ runtime: 'claude-code', pid: 500, startTime: '1', argv: ['claude', '--resume', C], host: 'box' }],
  claims: [{ runtime: 'claude-code', conversationId: C, pid: 500, startTime: '1', source: 'argv', host: 'box' }],
});

describe('custody across hosts: a conversation is (host, runtime, id)', () => {
  const merged = mergeRosters(roster({ servers: [{ server: 'L:rigdesk', running: true }] }), [boxWriting]);

  it('refuses on the host where a live process writes the conversation, naming that host', () => {
    const r = checkConversationFree(merged, { runtime: 'claude-code', conversationId: C, host: 'box' });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.code).toBe('CONVERSATION_LIVE_ELSEWHERE');
      expect(r.evidence?.host).toBe('box');
    }
  });

  it("does not read another host's same-named conversation as this one (pids and ids are per host)", () => {
    expect(checkConversationFree(merged, { runtime: 'claude-code', conversationId: C }).ok).toBe(true);
  });

  it('fails closed with HOST_UNREACHABLE when the owning host does not answer, and only for that host', () => {
    const down = mergeRosters(roster(), [
      roster({ problems: [{ probe: 'host', host: 'box', unreachable: true, error: 'ssh: connect refused' }] }),
    ]);
    const r = checkConversationFree(down, { runtime: 'claude-code', conversationId: C, host: 'box' });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.code).toBe('HOST_UNREACHABLE');
    expect(checkConversationFree(down, { runtime: 'claude-code', conversationId: C }).ok).toBe(true);
  });
});

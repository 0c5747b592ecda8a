import { describe, expect, it } from 'vitest';
import { checkConversationFree, type ConversationOwner } from '../../../src/main/engine/custody/guard';
import type { Roster, RosterAgent, RosterPane } from '../../../src/main/engine/roster/types';
import type { ConversationClaim } from '../../../src/main/engine/runtimes/types';
import type { SessionRow } from '../../../src/main/engine/store';

const C = 'dd0b1b38-acef-44ea-9af2-05ee8272437c';
const OTHER = '0e0e0e0e-1111-4222-8333-444455556666';
const P = '01a22620-817c-75ad-8093-3aef685d6759';
const OWN = 'L:rigdesk';

function agent(o: Partial<RosterAgent> = {}): RosterAgent {
  return {
    runtime: 'claude-code',
    pid: 500,
    startTime: '9001',
    argv: ['claude'],
    cwd: '/w/proj',
    home: '/h/claude',
    ...o,
  };
}

function pane(o: Partial<RosterPane> = {}): RosterPane {
  return {
    server: OWN,
    serverPid: 100,
    sessionId: '$3',
    sessionName: 'rigdesk-demo-lead',
    sessionCreated: 1795935532,
    paneId: '%7',
    panePid: 400,
    panePidStart: '9000',
    paneDead: false,
    seatTag: 'lead@demo',
    attemptTag: 'a1',
    currentCommand: 'claude',
    currentPath: '/w/proj',
    title: 'vm',
    lineage: [],
    ...o,
  };
}

/** An agent in a pane, wired both ways as buildRoster does. */
function seated(a: Partial<RosterAgent> = {}, p: Partial<RosterPane> = {}): { agent: RosterAgent; pane: RosterPane } {
  const pn = pane(p);
  const ag = agent({
    ...a,
    pane: { server: pn.server, paneId: pn.paneId, sessionId: pn.sessionId, sessionName: pn.sessionName },
  });
  pn.agent = ag;
  pn.lineage = [{ pid: ag.pid, comm: 'claude', startTime: ag.startTime }];
  return { agent: ag, pane: pn };
}

function claim(o: Partial<ConversationClaim> = {}): ConversationClaim {
  return {
    runtime: 'claude-code',
    conversationId: C,
    pid: 500,
    startTime: '9001',
    source: 'live_state',
    home: '/h/claude',
    ...o,
  };
}

function roster(o: Partial<Roster> = {}): Roster {
  return {
    takenAt: 1,
    servers: [{ server: OWN, running: true }],
    panes: [],
    agents: [],
    claims: [],
    problems: [],
    ...o,
  };
}

function row(o: Partial<SessionRow> = {}): SessionRow {
  return {
    id: 11,
    seat: 'lead@demo',
    runtime: 'claude-code',
    server: OWN,
    serverPid: 100,
    sessionId: '$3',
    sessionCreated: 1795935532,
    sessionName: 'rigdesk-demo-lead',
    paneId: '%7',
    panePid: 400,
    panePidStart: '9000',
    conversationId: C,
    state: 'live',
    startedAt: 1,
    endedAt: null,
    endReason: null,
    ...o,
  };
}

const owners = (r: ReturnType<typeof checkConversationFree>) =>
  r.ok ? [] : ((r.evidence?.owners ?? []) as ConversationOwner[]);

describe('checkConversationFree: one writer per conversation', () => {
  it('is free when nothing claims the conversation', () => {
    const s = seated();
    const r = checkConversationFree(
      roster({ panes: [s.pane], agents: [s.agent], claims: [claim({ conversationId: OTHER })] }),
      { runtime: 'claude-code', conversationId: C },
    );
    expect(r).toEqual({ ok: true, checked: 1 });
  });

  it("refuses CONVERSATION_LIVE_ELSEWHERE and names the owner's pane, server, session and pid", () => {
    const s = seated();
    const r = checkConversationFree(roster({ panes: [s.pane], agents: [s.agent], claims: [claim()] }), {
      runtime: 'claude-code',
      conversationId: C,
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.code).toBe('CONVERSATION_LIVE_ELSEWHERE');
    expect(r.message).toContain(C);
    expect(r.message).toContain('pid 500');
    expect(r.message).toContain('%7');
    expect(r.message).toContain('"rigdesk-demo-lead"');
    expect(r.message).toContain(OWN);
    expect(r.hint).toContain("tmux -L rigdesk attach -t '$3'");
    expect(owners(r)).toEqual([
      {
        runtime: 'claude-code',
        conversationId: C,
        pid: 500,
        startTime: '9001',
        source: 'live_state',
        home: '/h/claude',
        cwd: '/w/proj',
        server: OWN,
        paneId: '%7',
        sessionName: 'rigdesk-demo-lead',
        sessionId: '$3',
        seat: undefined,
        headless: false,
      },
    ]);
  });

  it('an owner on a server reached by socket path gets a -S attach hint', () => {
    const s = seated({}, { server: 'S:/tmp/tmux-1000/default', sessionId: '$0', sessionName: 'work' });
    const r = checkConversationFree(roster({ panes: [s.pane], agents: [s.agent], claims: [claim()] }), {
      runtime: 'claude-code',
      conversationId: C,
    });
    expect(r.ok ? '' : r.hint).toContain("tmux -S /tmp/tmux-1000/default attach -t '$0'");
  });

  it('a headless owner (no pane) is refused too, and said to be outside tmux', () => {
    const a = agent({ pid: 777 });
    const r = checkConversationFree(roster({ agents: [a], claims: [claim({ pid: 777, source: 'argv' })] }), {
      runtime: 'claude-code',
      conversationId: C,
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.message).toContain('pid 777 (headless, outside tmux)');
    expect(r.hint).toContain('End pid 777');
    expect(owners(r)[0]).toMatchObject({ pid: 777, headless: true, source: 'argv' });
  });

  it('a claim by a pid the roster has no agent for still refuses (the claim alone is evidence)', () => {
    const r = checkConversationFree(
      roster({ claims: [claim({ runtime: 'codex', pid: 16140, source: 'writer_lock', conversationId: C })] }),
      { runtime: 'codex', conversationId: C },
    );
    expect(r.ok ? undefined : r.code).toBe('CONVERSATION_LIVE_ELSEWHERE');
    expect(owners(r)[0]).toMatchObject({ pid: 16140, source: 'writer_lock', headless: true });
  });

  it('the same id under another runtime is a different conversation and passes', () => {
    const s = seated();
    const r = checkConversationFree(roster({ panes: [s.pane], agents: [s.agent], claims: [claim()] }), {
      runtime: 'codex',
      conversationId: C,
    });
    expect(r.ok).toBe(true);
  });

  it("allowPids exclude the seat's own process (sending to its own occupant)", () => {
    const s = seated();
    const rs = roster({ panes: [s.pane], agents: [s.agent], claims: [claim(), claim({ source: 'argv' })] });
    expect(checkConversationFree(rs, { runtime: 'claude-code', conversationId: C, allowPids: [400, 500] }).ok).toBe(
      true,
    );
    expect(checkConversationFree(rs, { runtime: 'claude-code', conversationId: C, allowPids: [400] }).ok).toBe(false);
  });

  it('lists every owner when several processes write the conversation', () => {
    const s1 = seated();
    const s2 = seated({ pid: 600 }, { paneId: '%9', panePid: 590, sessionId: '$4', sessionName: 'other' });
    const headless = agent({ pid: 700 });
    const r = checkConversationFree(
      roster({
        panes: [s1.pane, s2.pane],
        agents: [s1.agent, s2.agent, headless],
        claims: [claim(), claim({ pid: 600 }), claim({ pid: 700, source: 'argv' })],
      }),
      { runtime: 'claude-code', conversationId: C },
    );
    expect(
      owners(r)
        .map((o) => o.pid)
        .sort(),
    ).toEqual([500, 600, 700]);
    expect(r.ok ? '' : r.message).toContain('and 2 more');
  });

  it('two claims by one pid make one owner, and the stronger source replaces argv', () => {
    const s = seated();
    const r = checkConversationFree(
      roster({
        panes: [s.pane],
        agents: [s.agent],
        claims: [claim({ source: 'argv' }), claim({ source: 'live_state' })],
      }),
      { runtime: 'claude-code', conversationId: C },
    );
    expect(owners(r)).toHaveLength(1);
    expect(owners(r)[0]!.source).toBe('live_state');
  });

  describe('store evidence: a live row bound to the conversation', () => {
    const q = { runtime: 'claude-code', conversationId: C } as const;

    it('counts when its pane is still in the roster with the same pane pid and session id', () => {
      const s = seated({ conversationId: undefined });
      const r = checkConversationFree(roster({ panes: [s.pane], agents: [s.agent] }), q, [row()]);
      expect(r.ok ? undefined : r.code).toBe('CONVERSATION_LIVE_ELSEWHERE');
      expect(owners(r)).toEqual([
        expect.objectContaining({
          pid: 500,
          source: 'store',
          paneId: '%7',
          server: OWN,
          seat: 'lead@demo',
          headless: false,
        }),
      ]);
    });

    it("counts the pane pid when nothing runs on top of the pane's program", () => {
      const r = checkConversationFree(roster({ panes: [pane()] }), q, [row()]);
      expect(owners(r).map((o) => o.pid)).toEqual([400]);
    });

    it('does not count when the pane is gone', () => {
      expect(checkConversationFree(roster(), q, [row()]).ok).toBe(true);
    });

    it('does not count when the pane now has another pid (reused pane id) or belongs to another session', () => {
      expect(checkConversationFree(roster({ panes: [pane({ panePid: 401 })] }), q, [row()]).ok).toBe(true);
      expect(checkConversationFree(roster({ panes: [pane({ sessionId: '$9' })] }), q, [row()]).ok).toBe(true);
      expect(checkConversationFree(roster({ panes: [pane({ server: 'L:other' })] }), q, [row()]).ok).toBe(true);
    });

    it("does not count the caller's own row (allowSessionId) or a pane whose agent is allowed", () => {
      const s = seated();
      const rs = roster({ panes: [s.pane], agents: [s.agent] });
      expect(checkConversationFree(rs, { ...q, allowSessionId: 11 }, [row()]).ok).toBe(true);
      expect(checkConversationFree(rs, { ...q, allowPids: [500] }, [row()]).ok).toBe(true);
    });

    it('ignores rows of another runtime or another conversation', () => {
      const rs = roster({ panes: [pane()] });
      expect(
        checkConversationFree(rs, q, [
          row({ runtime: 'codex' }),
          row({ conversationId: OTHER }),
          row({ conversationId: null }),
        ]).ok,
      ).toBe(true);
    });

    it('a claim and a row for the same process make one owner (the claim)', () => {
      const s = seated();
      const r = checkConversationFree(roster({ panes: [s.pane], agents: [s.agent], claims: [claim()] }), q, [row()]);
      expect(owners(r).map((o) => [o.pid, o.source])).toEqual([[500, 'live_state']]);
    });

    // Was a bug, now fixed (src/main/engine/custody/guard.ts:46): every `tmux list-panes` problem is dropped before
    // the check, including one on the very server that holds a live row bound to this conversation.
    // The row's pane then cannot be found, so its store evidence is silently ignored and the guard
    // answers "free": it fails OPEN on unknown evidence (design.md invariant 2). For Pi, whose argv
    // is rewritten, the store row is often the only evidence. Expected: EVIDENCE_UNREADABLE when
    // list-panes failed on the server of a bound row (a problem on an unrelated server still passes,
    // see the test below).
    it('a list-panes failure on the server of a bound live row refuses (unknown evidence fails closed)', () => {
      const rs = roster({
        servers: [{ server: 'L:team', running: false }],
        problems: [
          { probe: 'tmux list-panes', server: 'L:team', error: 'tmux list-panes failed on L:team: timed out' },
        ],
      });
      const r = checkConversationFree(rs, { runtime: 'pi', conversationId: P }, [
        row({ runtime: 'pi', conversationId: P, server: 'L:team' }),
      ]);
      expect(r.ok ? undefined : r.code).toBe('EVIDENCE_UNREADABLE');
    });
  });

  describe('unreadable evidence fails closed', () => {
    it('a live-state problem for this runtime refuses EVIDENCE_UNREADABLE, with the problem as evidence', () => {
      const problem = {
        probe: 'live state',
        runtime: 'claude-code',
        home: '/h/claude',
        error: "EACCES: permission denied, open '/h/claude/sessions/1.json'",
      };
      const r = checkConversationFree(roster({ problems: [problem] }), { runtime: 'claude-code', conversationId: C });
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.code).toBe('EVIDENCE_UNREADABLE');
      expect(r.message).toContain('live state');
      expect(r.evidence).toEqual({ problems: [problem] });
    });

    it('a runtime-less problem (/proc/locks) refuses every runtime', () => {
      for (const runtime of ['claude-code', 'codex', 'pi']) {
        const r = checkConversationFree(roster({ problems: [{ probe: '/proc/locks', error: 'EACCES' }] }), {
          runtime,
          conversationId: C,
        });
        expect(r.ok ? undefined : r.code, runtime).toBe('EVIDENCE_UNREADABLE');
      }
    });

    it('the problem wins even when the evidence that was read says free', () => {
      const r = checkConversationFree(
        roster({ claims: [], problems: [{ probe: 'process environment', runtime: 'pi', error: 'pid 9: EACCES' }] }),
        { runtime: 'pi', conversationId: P, cwd: '/w' },
      );
      expect(r.ok ? undefined : r.code).toBe('EVIDENCE_UNREADABLE');
    });

    it('a problem for another runtime does not block this one', () => {
      const r = checkConversationFree(
        roster({ problems: [{ probe: 'live state', runtime: 'codex', home: '/h/codex', error: 'EACCES' }] }),
        { runtime: 'claude-code', conversationId: C },
      );
      expect(r.ok).toBe(true);
    });

    it('a tmux list-panes problem on another server does not block', () => {
      const r = checkConversationFree(
        roster({
          servers: [
            { server: OWN, running: true },
            { server: 'S:/tmp/elsewhere', running: false },
          ],
          problems: [{ probe: 'tmux list-panes', server: 'S:/tmp/elsewhere', error: 'timed out' }],
        }),
        { runtime: 'claude-code', conversationId: C },
      );
      expect(r.ok).toBe(true);
    });
  });

  describe('config home conflicts are reported, never a bypass', () => {
    const s = () => seated();
    it("flags homeConflict when the caller's home differs from the owner's", () => {
      const x = s();
      const r = checkConversationFree(
        roster({ panes: [x.pane], agents: [x.agent], claims: [claim({ home: '/h/other' })] }),
        { runtime: 'claude-code', conversationId: C, home: '/h/claude' },
      );
      expect(r.ok).toBe(false);
      expect(r.ok ? undefined : r.evidence).toMatchObject({ homeConflict: true, requestedHome: '/h/claude' });
    });

    it('no flag when the homes agree, or when the caller names none', () => {
      const x = s();
      const rs = roster({ panes: [x.pane], agents: [x.agent], claims: [claim({ home: '/h/claude' })] });
      for (const home of ['/h/claude', undefined]) {
        const r = checkConversationFree(rs, { runtime: 'claude-code', conversationId: C, home });
        expect(r.ok).toBe(false);
        expect(r.ok ? undefined : r.evidence).not.toHaveProperty('homeConflict');
      }
    });

    it("the owner's home falls back to its agent's home when the claim has none", () => {
      const x = seated({ home: '/h/agent-home' });
      const r = checkConversationFree(
        roster({ panes: [x.pane], agents: [x.agent], claims: [claim({ home: undefined, source: 'argv' })] }),
        { runtime: 'claude-code', conversationId: C, home: '/h/claude' },
      );
      expect(owners(r)[0]!.home).toBe('/h/agent-home');
      expect(r.ok ? undefined : r.evidence).toMatchObject({ homeConflict: true });
    });
  });

  describe('Pi doubt: a live pi nobody can name is a possible owner', () => {
    const livePi = (o: Partial<RosterAgent> = {}) =>
      agent({
        runtime: 'pi',
        pid: 18513,
        argv: ['pi          '],
        cwd: '/w/work-pi',
        home: '/h/pi',
        conversationId: undefined,
        ...o,
      });

    it('a live pi with unknown conversation in the same cwd refuses CONVERSATION_OWNER_UNKNOWN', () => {
      const r = checkConversationFree(roster({ agents: [livePi()] }), {
        runtime: 'pi',
        conversationId: P,
        cwd: '/w/work-pi',
        home: '/h/pi',
      });
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.code).toBe('CONVERSATION_OWNER_UNKNOWN');
      expect(r.message).toContain('pid 18513');
      expect(r.evidence).toEqual({ candidates: [{ pid: 18513, cwd: '/w/work-pi', home: '/h/pi', pane: undefined }] });
    });

    it('does not apply to other runtimes', () => {
      for (const runtime of ['claude-code', 'codex']) {
        const r = checkConversationFree(roster({ agents: [livePi({ runtime })] }), {
          runtime,
          conversationId: P,
          cwd: '/w/work-pi',
        });
        expect(r.ok, runtime).toBe(true);
      }
    });

    it("does not apply to a pi in another cwd, in another home, or the caller's own pi", () => {
      expect(
        checkConversationFree(roster({ agents: [livePi({ cwd: '/w/elsewhere' })] }), {
          runtime: 'pi',
          conversationId: P,
          cwd: '/w/work-pi',
        }).ok,
      ).toBe(true);
      expect(
        checkConversationFree(roster({ agents: [livePi({ home: '/h/pi-other' })] }), {
          runtime: 'pi',
          conversationId: P,
          cwd: '/w/work-pi',
          home: '/h/pi',
        }).ok,
      ).toBe(true);
      expect(
        checkConversationFree(roster({ agents: [livePi()] }), {
          runtime: 'pi',
          conversationId: P,
          cwd: '/w/work-pi',
          allowPids: [18513],
        }).ok,
      ).toBe(true);
    });

    it('does not apply to a pi whose conversation is known to be another one', () => {
      expect(
        checkConversationFree(
          roster({ agents: [livePi({ conversationId: 'aaaaaaaa-817c-75ad-8093-3aef685d6759' })] }),
          { runtime: 'pi', conversationId: P, cwd: '/w/work-pi' },
        ).ok,
      ).toBe(true);
    });

    it('still applies when either home is unknown', () => {
      expect(
        checkConversationFree(roster({ agents: [livePi({ home: undefined })] }), {
          runtime: 'pi',
          conversationId: P,
          cwd: '/w/work-pi',
          home: '/h/pi',
        }).ok,
      ).toBe(false);
      expect(
        checkConversationFree(roster({ agents: [livePi()] }), { runtime: 'pi', conversationId: P, cwd: '/w/work-pi' })
          .ok,
      ).toBe(false);
    });

    it('a known owner is reported before doubt', () => {
      const r = checkConversationFree(
        roster({
          agents: [livePi(), livePi({ pid: 2, conversationId: P })],
          claims: [claim({ runtime: 'pi', pid: 2, conversationId: P, source: 'argv' })],
        }),
        { runtime: 'pi', conversationId: P, cwd: '/w/work-pi' },
      );
      expect(r.ok ? undefined : r.code).toBe('CONVERSATION_LIVE_ELSEWHERE');
    });
  });
});

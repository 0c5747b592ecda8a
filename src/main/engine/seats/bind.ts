import type { Ports } from '../ports';
import type { Roster } from '../roster/types';
import { sameConversations } from '../runtimes/family';
import { paneOf } from '../roster/lookup';

/**
 * Keeps each live seat bound to the conversation its agent actually writes. Codex and Pi choose
 * their id after launch (Codex names it in its writer lock), and Claude's `/clear` moves a live
 * process to a new conversation that only its live-state file and hooks name. Binding is an event
 * row first; the seat's last conversation follows, so restore and custody see the truth.
 */
export function bindDiscoveredConversations(ports: Pick<Ports, 'store'>, roster: Roster): number {
  let changed = 0;
  for (const row of ports.store.sessions.allLive()) {
    const pane = paneOf(roster, row);
    const agent = pane?.agent;
    if (!agent?.conversationId || !sameConversations(agent.runtime, row.runtime)) continue;
    // argv is the weakest claim: after a /clear it names the old conversation. Only stronger
    // evidence may move a binding that already exists.
    if (row.conversationId === agent.conversationId) continue;
    if (row.conversationId && agent.conversationSource === 'argv') continue;
    const seat = ports.store.rigs.seat(row.seat);
    ports.store.db
      .transaction(() => {
        ports.store.sessions.setConversation(row.id, agent.conversationId!);
        ports.store.rigs.setConversation(row.seat, agent.conversationId!);
        ports.store.conversations.record({
          runtime: row.runtime,
          id: agent.conversationId!,
          seat: row.seat,
          home: agent.home ?? null,
          cwd: agent.cwd ?? null,
          host: agent.host ?? 'local',
        });
        ports.store.events.append(
          'seat.conversation_bound',
          { rig: seat?.rig ?? null, seat: row.seat },
          { from: row.conversationId, to: agent.conversationId, source: agent.conversationSource, pid: agent.pid },
        );
      })
      .immediate();
    changed++;
  }
  return changed;
}

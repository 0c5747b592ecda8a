import type { Db } from './db';
import type { SessionIdentity } from '../tmux/identity';

export interface SessionRow extends SessionIdentity {
  id: number;
  seat: string;
  runtime: string;
  panePidStart: string | null;
  conversationId: string | null;
  state: 'live' | 'ended';
  startedAt: number;
  endedAt: number | null;
  endReason: string | null;
}

interface Raw {
  id: number;
  seat: string;
  runtime: string;
  tmux_socket: string;
  server_pid: number;
  session_id: string;
  session_created: number;
  session_name: string;
  pane_id: string;
  pane_pid: number;
  pane_pid_start: string | null;
  conversation_id: string | null;
  state: 'live' | 'ended';
  started_at: number;
  ended_at: number | null;
  end_reason: string | null;
}

const toRow = (r: Raw): SessionRow => ({
  id: r.id,
  seat: r.seat,
  runtime: r.runtime,
  server: r.tmux_socket,
  serverPid: r.server_pid,
  sessionId: r.session_id,
  sessionCreated: r.session_created,
  sessionName: r.session_name,
  paneId: r.pane_id,
  panePid: r.pane_pid,
  panePidStart: r.pane_pid_start,
  conversationId: r.conversation_id,
  state: r.state,
  startedAt: r.started_at,
  endedAt: r.ended_at,
  endReason: r.end_reason,
});

/** Occupant runs of seats. A seat has at most one `live` row; ended rows are history. */
export class SessionRepo {
  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {}

  insertLive(
    seat: string,
    runtime: string,
    id: SessionIdentity,
    extra: { panePidStart?: string | null; conversationId?: string | null },
  ): SessionRow {
    const info = this.db
      .prepare(`INSERT INTO sessions (seat, runtime, tmux_socket, server_pid, session_id, session_created, session_name, pane_id, pane_pid,
        pane_pid_start, conversation_id, state, started_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'live', ?)`)
      .run(
        seat,
        runtime,
        id.server,
        id.serverPid,
        id.sessionId,
        id.sessionCreated,
        id.sessionName,
        id.paneId,
        id.panePid,
        extra.panePidStart ?? null,
        extra.conversationId ?? null,
        this.now(),
      );
    return this.get(Number(info.lastInsertRowid))!;
  }

  get(id: number): SessionRow | undefined {
    const r = this.db.prepare('SELECT * FROM sessions WHERE id = ?').get(id) as Raw | undefined;
    return r ? toRow(r) : undefined;
  }

  live(seat: string): SessionRow | undefined {
    const r = this.db
      .prepare("SELECT * FROM sessions WHERE seat = ? AND state = 'live' ORDER BY id DESC LIMIT 1")
      .get(seat) as Raw | undefined;
    return r ? toRow(r) : undefined;
  }

  allLive(): SessionRow[] {
    return (this.db.prepare("SELECT * FROM sessions WHERE state = 'live' ORDER BY id").all() as Raw[]).map(toRow);
  }

  /**
   * Live rows bound to a conversation: store evidence for the single-writer guard. The caller names
   * every runtime that writes the same conversations (runtimes/family.ts: an omo seat's rows and an
   * OpenCode seat's count alike); the store knows rows, not runtimes.
   */
  liveBoundTo(family: readonly string[], conversationId: string): SessionRow[] {
    return (
      this.db
        .prepare(
          `SELECT * FROM sessions WHERE state = 'live' AND runtime IN (${family.map(() => '?').join(',')}) AND conversation_id = ?`,
        )
        .all(...family, conversationId) as Raw[]
    ).map(toRow);
  }

  setConversation(id: number, conversationId: string | null): void {
    this.db.prepare('UPDATE sessions SET conversation_id = ? WHERE id = ?').run(conversationId, id);
  }

  end(id: number, reason: string): void {
    this.db
      .prepare("UPDATE sessions SET state = 'ended', ended_at = ?, end_reason = ? WHERE id = ? AND state = 'live'")
      .run(this.now(), reason, id);
  }
}

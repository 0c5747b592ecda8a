/**
 * Reads a tmux control-mode client's stdout: every command tmux runs for the client is framed as
 * `%begin <time> <number> <flags>`, its output lines, then `%end` or `%error` with the same three
 * fields. Lines outside a frame are notifications (`%session-changed`, `%exit`, ...). A frame ends
 * only on the line that repeats its own time, number and flags, so a pane's captured text that
 * happens to read `%end ...` stays output.
 */
export interface Block {
  /** `%error` rather than `%end`: the command failed and its lines are the error message. */
  failed: boolean;
  lines: string[];
}

export interface StreamEvents {
  /** A frame opened: tmux has started running a command of the oldest unanswered line. */
  begin(): void;
  block(b: Block): void;
  /** `%exit`: tmux is detaching this client (its session was destroyed, or the server exits). */
  exit(reason: string): void;
}

export class ControlStream {
  private rest = '';
  private open?: { end: string; error: string; lines: string[] };
  constructor(private readonly on: StreamEvents) {}

  push(chunk: string): void {
    const data = this.rest + chunk;
    let start = 0;
    for (let nl = data.indexOf('\n'); nl >= 0; nl = data.indexOf('\n', start)) {
      this.line(data.slice(start, nl));
      start = nl + 1;
    }
    this.rest = data.slice(start);
  }

  private line(line: string): void {
    const open = this.open;
    if (open) {
      if (line === open.end || line === open.error) {
        this.open = undefined;
        this.on.block({ failed: line === open.error, lines: open.lines });
      } else open.lines.push(line);
      return;
    }
    if (line.startsWith('%begin ')) {
      const key = line.slice(7);
      this.open = { end: `%end ${key}`, error: `%error ${key}`, lines: [] };
      this.on.begin();
    } else if (line === '%exit' || line.startsWith('%exit ')) {
      this.on.exit(line.slice(6));
    }
    // Other notifications carry nothing the engine reads from this client.
  }
}

import { type Fs, liveFs } from '../deps';
import { openRegularFile } from '../read-file';
import type { UsageSink, UsageTotals } from '../runtimes/usage/records';

/** An open file as the tail reads it; injectable, so a rotation or a fault can be forced. */
export interface TailFile {
  /** Identity and size now. */
  stat(): { dev: number; ino: number; size: number };
  /** Bytes [position, position + length), fewer at the end of the file. */
  read(position: number, length: number): Buffer;
  close(): void;
}

export interface TailIO {
  /** Undefined when the file is not there; throws when it cannot be read. */
  open(path: string): TailFile | undefined;
}

/** Record files read through a file system. */
export function tailIO(fs: Pick<Fs, 'openSync' | 'fstatSync' | 'readSync' | 'closeSync'>): TailIO {
  return {
    open(path) {
      // A FIFO or a device where the transcript should be is refused, never waited on.
      const fd = openRegularFile(path, fs);
      if (fd === undefined) return undefined;
      return {
        stat() {
          const st = fs.fstatSync(fd);
          return { dev: st.dev, ino: st.ino, size: st.size };
        },
        read(position, length) {
          const buf = Buffer.allocUnsafe(length);
          const n = fs.readSync(fd, buf, 0, length, position);
          return n === length ? buf : buf.subarray(0, n);
        },
        close: () => fs.closeSync(fd),
      };
    },
  };
}

/** This machine's record files. */
export const liveTailIO: TailIO = tailIO(liveFs);

/** How much is read at a time, so a large growth never sits in memory whole. */
const CHUNK = 1 << 20;
/** The bytes just before the offset, kept to notice a file rewritten in place (same inode, longer). */
const ANCHOR = 64;
const NEWLINE = 0x0a;

/**
 * Reads a JSONL file that grows, one refresh at a time: only the bytes added since the last
 * refresh, each complete line once, a partial last line kept until its newline arrives. A file
 * that shrank, was replaced (another inode) or rewritten (the bytes before the offset changed) is
 * read again from its start with a fresh sink. So a refresh costs the bytes added, not the file.
 */
export class JsonlTail {
  private offset = 0;
  private id: string | undefined;
  private carry: Buffer = Buffer.alloc(0);
  private anchor: Buffer = Buffer.alloc(0);
  private sink: UsageSink;
  private needles: Buffer[];
  /** Bytes read and lines parsed since this tail began (for the bench and tests). */
  readonly stats = { bytes: 0, parsed: 0, restarts: 0 };

  constructor(
    readonly path: string,
    private readonly newSink: () => UsageSink,
  ) {
    this.sink = newSink();
    this.needles = this.sink.needles.map((n) => Buffer.from(n));
  }

  /** Reads what was added; 'absent' when the file is not there (the caller looks for it again). */
  refresh(io: TailIO): 'ok' | 'absent' {
    const f = io.open(this.path);
    if (!f) return 'absent';
    try {
      const st = f.stat();
      const id = `${st.dev}:${st.ino}`;
      if (id !== this.id || st.size < this.offset || !this.anchorHolds(f)) this.restart(id);
      while (this.offset < st.size) {
        const chunk = f.read(this.offset, Math.min(CHUNK, st.size - this.offset));
        if (chunk.length === 0) break;
        this.feed(chunk);
        this.offset += chunk.length;
        this.stats.bytes += chunk.length;
      }
      return 'ok';
    } finally {
      f.close();
    }
  }

  totals(): UsageTotals | undefined {
    return this.sink.totals();
  }

  private restart(id: string): void {
    if (this.id !== undefined) this.stats.restarts++;
    this.id = id;
    this.offset = 0;
    this.carry = Buffer.alloc(0);
    this.anchor = Buffer.alloc(0);
    this.sink = this.newSink();
  }

  private anchorHolds(f: TailFile): boolean {
    if (this.anchor.length === 0) return true;
    return f.read(this.offset - this.anchor.length, this.anchor.length).equals(this.anchor);
  }

  /** Splits a chunk into lines; the part after the last newline waits in `carry`. */
  private feed(chunk: Buffer): void {
    this.anchor = Buffer.concat([this.anchor, chunk.subarray(Math.max(0, chunk.length - ANCHOR))]);
    this.anchor = this.anchor.subarray(Math.max(0, this.anchor.length - ANCHOR));
    let start = 0;
    let nl = chunk.indexOf(NEWLINE, start);
    if (nl >= 0 && this.carry.length > 0) {
      this.line(Buffer.concat([this.carry, chunk.subarray(0, nl)]));
      this.carry = Buffer.alloc(0);
      start = nl + 1;
      nl = chunk.indexOf(NEWLINE, start);
    }
    while (nl >= 0) {
      this.line(chunk.subarray(start, nl));
      start = nl + 1;
      nl = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length)
      this.carry =
        this.carry.length > 0 ? Buffer.concat([this.carry, chunk.subarray(start)]) : Buffer.from(chunk.subarray(start));
  }

  /** Parses a line only when it holds one of the sink's needles; a line that is not JSON is skipped. */
  private line(bytes: Buffer): void {
    if (!this.needles.some((n) => bytes.indexOf(n) >= 0)) return;
    let record: unknown;
    try {
      record = JSON.parse(bytes.toString('utf8'));
    } catch {
      return;
    }
    this.stats.parsed++;
    this.sink.take(record);
  }
}

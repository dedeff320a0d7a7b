/**
 * DAP framing (`Content-Length: N\r\n\r\n` then N bytes of JSON), read so that a client's
 * mistake never ends the adapter.
 *
 * @vscode/debugadapter's own reader trusts its input: an unknown header is skipped, a wrong
 * Content-Length swallows the next message, a body that is not JSON ends the session, and an
 * unfinished body is buffered without bound. `DapReader` replaces it:
 *
 * - a header block may end in CRLF CRLF or LF LF (an LF-only client still gets answers);
 * - a message's size is capped (MAX_MESSAGE_BYTES), and so is a header block's;
 * - a body that is not JSON is reported (with its seq and command when they can be read out of
 *   it, so that the request can still be answered) and reading goes on;
 * - when a Content-Length was too long and the next header shows up inside the body, the body
 *   ends there; when it was too short, the bytes up to the next header are skipped;
 * - bytes that are not a header are skipped up to the next `Content-Length:` (resynchronising).
 *
 * In strict mode (TCP, which anything on the machine can reach, a web page's POST included)
 * anything that is not DAP framing — an HTTP request line, a header other than Content-Length
 * and Content-Type, a message over the cap, bytes between messages — is fatal: the caller
 * closes the connection.
 */

/** The largest message read (a launch configuration or a breakpoint list is a few KiB). */
export const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;
/** The longest header block (one or two short lines). */
const MAX_HEADER_BYTES = 1024;

export type FramingMode = 'lenient' | 'strict';

/** What a malformed message still says about the request it was meant to be. */
export interface RequestHint {
  seq?: number;
  command?: string;
}

export interface FrameSink {
  /** A body that parsed as JSON (any JSON value: the session checks its shape). */
  message(value: unknown): void;
  /** Something that could not be read; reading goes on after it. */
  malformed(problem: string, hint: RequestHint): void;
  /** Strict mode only: not DAP at all; the caller closes the connection. */
  fatal(problem: string): void;
}

const HEADER_LINE = /^(content-length):[ \t]*(\d{1,16})[ \t]*$|^(content-type):[^\r\n]*$/i;
/** The start of a header where a body that overran its length should have ended (a raw newline: never inside a JSON string). */
const NEXT_HEADER = /Content-Length:[ \t]*\d+[ \t]*\r?\n/i;
const HEADER_NAMES = ['content-length:', 'content-type:'];

export class DapReader {
  /**
   * The bytes not read yet: `store[start, end)`. A chunk is copied in after them, into a store
   * that doubles when full, so a message that comes in many chunks is copied a few times, not
   * once per chunk (concatenating each chunk onto the rest was quadratic in a message's size).
   */
  private store: Buffer = Buffer.alloc(0);
  private start = 0;
  private end = 0;
  /** The body length being read, or -1 while reading a header. */
  private contentLength = -1;
  /** How much of the body being read was searched for a next header already. */
  private scanned = 0;
  private dead = false;

  constructor(
    private readonly mode: FramingMode,
    private readonly sink: FrameSink,
    private readonly maxMessageBytes = MAX_MESSAGE_BYTES,
  ) {}

  /** The bytes not read yet (a view: valid until the next push). */
  private get buffer(): Buffer {
    return this.store.subarray(this.start, this.end);
  }

  /** What is left to read: a view of the current bytes (after reading some), or other bytes. */
  private set buffer(rest: Buffer) {
    if (rest.buffer === this.store.buffer && rest.byteOffset >= this.store.byteOffset && rest.byteOffset + rest.length <= this.store.byteOffset + this.store.length) {
      this.start = rest.byteOffset - this.store.byteOffset;
      this.end = this.start + rest.length;
    } else {
      this.store = rest;
      this.start = 0;
      this.end = rest.length;
    }
  }

  /** Bytes held for a message not read yet. */
  get buffered(): number {
    return this.end - this.start;
  }

  private append(chunk: Buffer): void {
    if (this.end === this.start) {
      // Nothing held: the chunk itself is the buffer (no copy).
      this.buffer = chunk;
      return;
    }
    const held = this.end - this.start;
    if (this.store.length - this.end < chunk.length) {
      const grown = Buffer.allocUnsafe(Math.max(2 * (held + chunk.length), 64 * 1024));
      this.store.copy(grown, 0, this.start, this.end);
      this.store = grown;
      this.start = 0;
      this.end = held;
    }
    chunk.copy(this.store, this.end);
    this.end += chunk.length;
  }

  push(chunk: Buffer): void {
    if (this.dead) return;
    this.append(chunk);
    try {
      this.drain();
    } catch (err) {
      // A bug here must not end the adapter either: drop what is buffered and go on.
      this.buffer = Buffer.alloc(0);
      this.contentLength = -1;
      this.sink.malformed(`ndb could not read the input (${err instanceof Error ? err.message : String(err)}); the bytes so far were dropped`, {});
    }
  }

  private drain(): void {
    while (!this.dead) {
      if (this.contentLength < 0) {
        if (!this.readHeader()) return;
      } else if (!this.readBody()) {
        return;
      }
    }
  }

  /** False when more bytes are needed. */
  private readHeader(): boolean {
    if (this.buffer.length === 0) return false;
    const end = headerEnd(this.buffer);
    if (end === null) {
      // Not even the start of a header: skip to the next one (or close, in strict mode).
      if (!couldBeHeader(this.buffer.subarray(0, Math.min(this.buffer.length, MAX_HEADER_BYTES)).toString('latin1')) || this.buffer.length > MAX_HEADER_BYTES) {
        return this.notAHeader(this.buffer.subarray(0, Math.min(this.buffer.length, 80)).toString('latin1'));
      }
      return false;
    }
    const text = this.buffer.subarray(0, end.at).toString('latin1');
    const lines = text.split(/\r?\n/);
    let length: number | undefined;
    const unknown: string[] = [];
    for (const line of lines) {
      const m = HEADER_LINE.exec(line);
      if (!m) unknown.push(line);
      else if (m[1]) length = Number(m[2]);
    }
    if (unknown.length > 0 && (this.mode === 'strict' || length === undefined)) {
      return this.notAHeader(unknown[0]!);
    }
    this.buffer = this.buffer.subarray(end.at + end.length);
    if (length === undefined) {
      this.sink.malformed('a DAP header without Content-Length was skipped', {});
      return true;
    }
    if (length > this.maxMessageBytes) {
      const problem = `a message of ${length} bytes is over the limit of ${this.maxMessageBytes} bytes`;
      if (this.mode === 'strict') return this.die(problem);
      // Its bytes, if they come, are skipped as bytes that are not a header.
      this.sink.malformed(`${problem}; it was skipped`, {});
      return true;
    }
    this.contentLength = length;
    return true;
  }

  /** Bytes where a header should be. */
  private notAHeader(sample: string): boolean {
    const what = /^[A-Z]+ \S+ HTTP\/\d/.test(sample) ? `an HTTP request (${sample.split(/\r?\n/)[0]!.slice(0, 60)})` : `${JSON.stringify(sample.slice(0, 40))} where a DAP header (Content-Length: N) belongs`;
    if (this.mode === 'strict') return this.die(`not DAP framing: ${what}`);
    const next = indexOfHeader(this.buffer, 1);
    if (next < 0) {
      // Keep the tail that may be the start of the next header ("Conte" of "Content-Length:").
      this.buffer = this.buffer.subarray(this.buffer.length - headerPrefixAtEnd(this.buffer));
      this.sink.malformed(`skipped ${what}`, hintFrom(sample));
      return false;
    }
    const skipped = this.buffer.subarray(0, next).toString('utf8');
    this.buffer = this.buffer.subarray(next);
    this.sink.malformed(`skipped ${what}`, hintFrom(skipped));
    return true;
  }

  private readBody(): boolean {
    const n = this.contentLength;
    // Scanned for a header before (a body that comes in many chunks is not rescanned from its start).
    const from = Math.max(0, this.scanned - 32);
    if (this.buffer.length < n) {
      // A Content-Length too long: the next message's header is already inside this body.
      const overrun = overrunAt(this.buffer, from);
      this.scanned = this.buffer.length;
      if (overrun < 0) return false;
      this.endBody(overrun, true);
      return true;
    }
    const overrun = overrunAt(this.buffer.subarray(0, n), from);
    if (overrun >= 0) {
      this.endBody(overrun, true);
      return true;
    }
    this.endBody(n, false);
    return true;
  }

  /** The body is the first `at` bytes; the rest stays for the next header. */
  private endBody(at: number, overran: boolean): void {
    const body = this.buffer.subarray(0, at).toString('utf8');
    this.buffer = this.buffer.subarray(at);
    this.contentLength = -1;
    this.scanned = 0;
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      this.sink.malformed(`a message that is not JSON (${why.slice(0, 120)})${overran ? ', its Content-Length longer than the message' : ''}`, hintFrom(body));
      return;
    }
    try {
      this.sink.message(value);
    } catch (err) {
      // A bug in handling one message must not cost the ones after it (already in the buffer).
      this.sink.malformed(`ndb failed on a message (${err instanceof Error ? err.message : String(err)}); it was skipped`, hintFrom(body));
    }
  }

  private die(problem: string): boolean {
    this.dead = true;
    this.buffer = Buffer.alloc(0);
    this.sink.fatal(problem);
    return false;
  }
}

/** Where the header block ends (CRLF CRLF or LF LF, whichever comes first). */
function headerEnd(buffer: Buffer): { at: number; length: number } | null {
  const crlf = buffer.indexOf('\r\n\r\n');
  const lf = buffer.indexOf('\n\n');
  if (crlf < 0 && lf < 0) return null;
  if (lf >= 0 && (crlf < 0 || lf < crlf)) return { at: lf, length: 2 };
  return { at: crlf, length: 4 };
}

/** Whether `text` (the start of the buffer) can still turn into a header block. */
function couldBeHeader(text: string): boolean {
  const lines = text.split(/\r?\n/);
  const last = lines.pop()!;
  if (!lines.every((l) => HEADER_LINE.test(l))) return false;
  // A header line's CR may have come without its LF yet.
  const lower = last.replace(/\r$/, '').toLowerCase();
  return HEADER_NAMES.some((h) => h.startsWith(lower) || lower.startsWith(h));
}

/** How many of the buffer's last bytes are a beginning of "Content-Length:" (any case). */
function headerPrefixAtEnd(buffer: Buffer): number {
  const name = 'content-length:';
  for (let k = Math.min(buffer.length, name.length - 1); k > 0; k--) {
    if (name.startsWith(buffer.subarray(buffer.length - k).toString('latin1').toLowerCase())) return k;
  }
  return 0;
}

function indexOfHeader(buffer: Buffer, from: number): number {
  const text = buffer.toString('latin1');
  const m = /content-length:/i.exec(text.slice(from));
  return m ? from + m.index : -1;
}

/** Where, in a body, the next message's header begins (-1: nowhere). */
function overrunAt(body: Buffer, from: number): number {
  const m = NEXT_HEADER.exec(body.toString('latin1', from));
  return m ? from + m.index : -1;
}

/** The seq and command a malformed body names, if it does. */
function hintFrom(text: string): RequestHint {
  const seq = /"seq"\s*:\s*(\d{1,15})/.exec(text)?.[1];
  const command = /"command"\s*:\s*"([\w/.-]{1,64})"/.exec(text)?.[1];
  return { ...(seq === undefined ? {} : { seq: Number(seq) }), ...(command === undefined ? {} : { command }) };
}

/**
 * Reads a Python program the way Python does (PEP 263 and `tokenize.detect_encoding`): a UTF-8
 * byte-order mark, else a coding line on line 1 or 2 (line 2 only when line 1 is blank or a
 * comment), else UTF-8. Only a regular file is read (a FIFO would never answer, /dev/zero never
 * ends), and at most MAX_SOURCE_BYTES. Every refusal is one clear sentence.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { BLANK_OR_COMMENT, CODING_COOKIE } from '../python/source.js';

/** The largest program read: far beyond what the model's context can hold (the cut shows a part). */
export const MAX_SOURCE_BYTES = 4 * 1024 * 1024;

export class SourceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SourceError';
  }
}


/** Reads and decodes PATH; throws SourceError with the reason. */
export async function readPythonSource(path: string): Promise<string> {
  let handle;
  try {
    // O_NONBLOCK: opening a FIFO without a writer must not wait.
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    throw new SourceError(`cannot read the program ${path}: ${(err as Error).message}`);
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new SourceError(`${path} is not a regular file (${kindOf(st)}): ndb reads a Python source file`);
    if (st.size > MAX_SOURCE_BYTES) throw new SourceError(`${path} is too large: ${formatSize(st.size)}, and ndb reads programs of at most ${formatSize(MAX_SOURCE_BYTES)}`);
    // The size may lie (/proc files say 0): read at most one chunk past the cap.
    const parts: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.alloc(64 * 1024);
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      parts.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
      if (total > MAX_SOURCE_BYTES) throw new SourceError(`${path} is too large: ndb reads programs of at most ${formatSize(MAX_SOURCE_BYTES)}`);
    }
    return decodePythonSource(Buffer.concat(parts), path);
  } finally {
    await handle.close();
  }
}

/** Decodes a program's bytes as Python would; throws SourceError where Python would refuse it. */
export function decodePythonSource(bytes: Buffer, path = 'the program'): string {
  let body = bytes;
  const bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  if (bom) body = bytes.subarray(3);
  const declared = codingCookie(body, path);
  if (bom && declared !== undefined && declared !== 'utf-8') {
    throw new SourceError(`${path}: its coding line says ${declared} but it starts with a UTF-8 byte-order mark (Python refuses it too)`);
  }
  const encoding = declared ?? 'utf-8';
  if (encoding === 'utf-8') return decodeWith('utf-8', body, path, declared === undefined);
  if (encoding === 'iso-8859-1') return body.toString('latin1');
  if (encoding === 'cp1252' || encoding === 'windows-1252') return decodeCp1252(body, path, encoding);
  if (encoding === 'ascii') {
    const bad = body.findIndex((b) => b > 0x7f);
    if (bad >= 0) throw new SourceError(`${path}: byte 0x${body[bad]!.toString(16)} at offset ${bad} is not ASCII, the encoding its coding line declares`);
    return body.toString('latin1');
  }
  return decodeWith(encoding, body, path, false);
}

function decodeWith(encoding: string, body: Buffer, path: string, implicit: boolean): string {
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(encoding, { fatal: true });
  } catch {
    throw new SourceError(`${path}: its coding line declares ${encoding}, an encoding ndb cannot read; save the file as UTF-8`);
  }
  try {
    return decoder.decode(body);
  } catch {
    const where = encoding === 'utf-8' ? firstBadUtf8(body) : -1;
    const at = where >= 0 ? ` (byte 0x${body[where]!.toString(16)} at offset ${where})` : '';
    throw new SourceError(
      implicit
        ? `${path} is not valid UTF-8${at}: Python reads a source as UTF-8 unless a coding line on line 1 or 2 (# -*- coding: latin-1 -*-) says otherwise`
        : `${path} is not valid ${encoding}${at}, the encoding its coding line declares`,
    );
  }
}

/** The normalised encoding of a coding line on line 1 or 2, as tokenize.detect_encoding finds it. */
function codingCookie(body: Buffer, path: string): string | undefined {
  const lines: string[] = [];
  let start = 0;
  for (let i = 0; i < 2 && start < body.length; i++) {
    let end = body.indexOf(0x0a, start);
    end = end < 0 ? body.length : end + 1;
    lines.push(body.subarray(start, end).toString('latin1'));
    start = end;
  }
  for (const [i, line] of lines.entries()) {
    const m = CODING_COOKIE.exec(line);
    if (m) return normalName(m[1]!, path);
    if (i === 0 && !BLANK_OR_COMMENT.test(line)) return undefined;
  }
  return undefined;
}

/** tokenize's get_normal_name, and the aliases Python's codec registry folds together. */
function normalName(name: string, path: string): string {
  const enc = name.slice(0, 12).toLowerCase().replace(/_/g, '-');
  if (enc === 'utf-8' || enc.startsWith('utf-8-') || enc === 'utf8') return 'utf-8';
  if (/^(latin-1|iso-8859-1|iso-latin-1|latin1|l1|iso8859-1|8859|cp819|latin)(-|$)/.test(enc)) return 'iso-8859-1';
  if (enc === 'ascii' || enc === 'us-ascii' || enc === '646') return 'ascii';
  if (!/^[-\w.]+$/.test(enc)) throw new SourceError(`${path}: unknown encoding in its coding line: ${name}`);
  return name.toLowerCase().replace(/_/g, '-');
}

// Python's cp1252 for 0x80-0x9f ('' where Python refuses the byte); the rest is latin-1.
const CP1252_HIGH = '€\u0000‚ƒ„…†‡ˆ‰Š‹Œ\u0000Ž\u0000\u0000‘’“”•–—˜™š›œ\u0000žŸ';

function decodeCp1252(body: Buffer, path: string, encoding: string): string {
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c < 0x80 || c > 0x9f) out += String.fromCharCode(c);
    else {
      const ch = CP1252_HIGH[c - 0x80]!;
      if (ch === '\u0000') throw new SourceError(`${path} is not valid ${encoding} (byte 0x${c.toString(16)} at offset ${i}), the encoding its coding line declares`);
      out += ch;
    }
  }
  return out;
}

/** The offset of the first byte that does not start a valid UTF-8 sequence (-1: none). */
function firstBadUtf8(b: Buffer): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    const n = c < 0x80 ? 0 : c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : -1;
    if (n < 0 || i + n >= b.length) return i;
    const lo = c === 0xe0 ? 0xa0 : c === 0xf0 ? 0x90 : 0x80;
    const hi = c === 0xed ? 0x9f : c === 0xf4 ? 0x8f : 0xbf;
    for (let k = 1; k <= n; k++) {
      const d = b[i + k]!;
      if (d < (k === 1 ? lo : 0x80) || d > (k === 1 ? hi : 0xbf)) return i;
    }
    i += n + 1;
  }
  return -1;
}

function kindOf(st: { isDirectory(): boolean; isFIFO(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean; isSocket(): boolean }): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a file';
}

function formatSize(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(bytes % (1024 * 1024) === 0 ? 0 : 1)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(0)} KiB`;
  return `${bytes} bytes`;
}

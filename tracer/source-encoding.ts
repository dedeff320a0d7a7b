/**
 * PEP 263 coding lines, shared by the source reader (adapter/read-source.ts, which decodes a
 * file the way Python does) and the tracer's temporary files (which are written as UTF-8).
 */

/** A coding line: `# -*- coding: latin-1 -*-`, `# vim: set fileencoding=utf-8 :`; group 1 is the name. */
export const CODING_COOKIE = /^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)/;
/** A line that lets a coding line follow it on line 2: blank or a comment. */
export const BLANK_OR_COMMENT = /^[ \t\f]*(?:[#\r\n]|$)/;

/**
 * Decoded source text to write as UTF-8: a coding line on line 1 or 2 is made to say utf-8,
 * or Python would read the UTF-8 bytes in the encoding it named (a latin-1 file's "café"
 * would come back as "cafÃ©"). Line numbers do not change.
 */
export function declareUtf8(source: string): string {
  const lines = source.split('\n');
  for (let i = 0; i < Math.min(2, lines.length); i++) {
    const m = CODING_COOKIE.exec(lines[i]!);
    if (m) {
      const at = m.index + m[0].length - m[1]!.length;
      lines[i] = lines[i]!.slice(0, at) + 'utf-8' + lines[i]!.slice(at + m[1]!.length);
      return lines.join('\n');
    }
    if (!BLANK_OR_COMMENT.test(lines[i]!)) break;
  }
  return source;
}

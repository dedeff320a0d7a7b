/**
 * Python source text as Python reads it, for every side of ndb (here rather than in tracer/:
 * program analysis, the model client and the debugger use it, and they must not depend on
 * the ground truth the tracer records): its lines as Python numbers them, PEP 263 coding
 * lines, shared by the source reader (adapter/read-source.ts, which decodes a file the way
 * Python does) and the tracer's temporary files (which are written as UTF-8), and the NUL
 * character no Python source may hold.
 */

/** Source lines as Python numbers them (\n, \r\n and \r end a line); index 0 is line 1. */
export function sourceLines(program: string): string[] {
  const lines = program.split(/\r\n|\r|\n/);
  // A final line break ends the last line rather than starting an empty one.
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Python source cannot hold a NUL character, and a process argument cannot carry one: arguments with one are refused before any launch. */
export const NUL_IN_ARGS = 'the arguments are not Python literals: they hold a NUL character (write it as \\x00)';

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

/**
 * Example calls in a Python file: the calls the language server predicts runs for.
 *
 * Three spellings name one:
 *   a doctest line      `>>> count('berry', 'r')`   (in a docstring)
 *   a comment           `# ndb: count('berry', 'r')` (anywhere in the file)
 *   an assert line      `assert count('berry', 'r') == 1` (the call first; also `assert
 *                       CALL` and `assert not CALL`), whose predicted verdict
 *                       verdict-hints.ts shows
 * Either must call a top-level function of the file with Python literals as its arguments:
 * the model predicts a run from the program text and the arguments' values, so an argument
 * that needs code to run has no value to give it.
 *
 * Only lines are scanned here (no Python): the function list comes from program-analysis/program-info.py.
 * The literal check is a quick first pass that catches names and calls with a precise
 * message; the arguments' parse by Python itself (program-analysis/call_frame.py, when the run starts) has
 * the last word.
 */
import type { FunctionInfo } from '../program-analysis/program-info.js';

export interface ExampleCall {
  /** The function to call (a top-level function of the file). */
  entry: string;
  /** The arguments as written, without the parentheses: `'berry', 'r'`. */
  args: string;
  /** `entry(args)`, as shown to the user. */
  text: string;
  /** 0-based line of the call in the document. */
  line: number;
  /** 0-based column range of `entry(args)` on that line. */
  start: number;
  end: number;
  kind: 'doctest' | 'comment' | 'assert';
}

/** An example call that cannot be predicted, and why (an information diagnostic). */
export interface SkippedCall {
  line: number;
  start: number;
  end: number;
  text: string;
  reason: string;
}

export interface ExampleCalls {
  calls: ExampleCall[];
  skipped: SkippedCall[];
}

const CALL_HEAD = /^([A-Za-z_][A-Za-z0-9_.]*)\s*\(/;
/** The most example calls of one file that are predicted: each is a run of the model. */
export const MAX_EXAMPLE_CALLS = 64;
/** The most notes about skipped calls one file gets (each is a diagnostic sent to the editor). */
export const MAX_SKIPPED_NOTES = 200;
/** The longest call text a note quotes. */
const MAX_QUOTED_CHARS = 200;

const quoted = (text: string) => (text.length <= MAX_QUOTED_CHARS ? text : `${text.slice(0, MAX_QUOTED_CHARS - 1)}…`);

/**
 * The example calls of `text`, given the file's functions. Duplicates (the same function
 * and arguments) are kept once: one run serves both.
 */
export function findExampleCalls(text: string, functions: readonly FunctionInfo[]): ExampleCalls {
  const topLevel = new Set(functions.filter((f) => f.qualname === f.name).map((f) => f.name));
  const calls: ExampleCall[] = [];
  const skipped: SkippedCall[] = [];
  const seen = new Set<string>();
  const skip = (note: SkippedCall) => {
    if (skipped.length < MAX_SKIPPED_NOTES) skipped.push({ ...note, text: quoted(note.text) });
  };
  text.split(/\r?\n/).forEach((lineText, line) => {
    const found = scanLine(lineText);
    if (!found) return;
    const { kind, body, column } = found;
    const head = CALL_HEAD.exec(body);
    // An assert goes on after its call (`== EXPECTED`); the other spellings are the call alone.
    const parsed = head ? splitCall(body, head[0].length, kind === 'assert') : null;
    const span = { line, start: column, end: column + body.length, text: body };
    if (!head || !parsed) {
      // A doctest line is often no call at all (`>>> x = 3`); only the comment promises one.
      if (kind === 'comment') skip({ ...span, reason: 'an ndb example call is written `# ndb: function(arguments)`, with Python literals as arguments' });
      return;
    }
    const entry = head[1]!;
    if (!topLevel.has(entry)) {
      // A doctest may call anything (a builtin, an imported name); a comment means this file's function.
      if (kind === 'comment') skip({ ...span, reason: `'${entry}' is not a top-level function of this file` });
      return;
    }
    const call = { ...span, end: column + parsed.length, text: body.slice(0, parsed.length) };
    const problem = literalProblem(parsed.args);
    if (problem) {
      // An assert with names in its call is the program's own check, not a test case: no note.
      if (kind === 'assert') return;
      skip({ ...call, reason: `${problem}: ndb predicts a run only from Python literals (nothing is executed to compute an argument)` });
      return;
    }
    const key = `${entry}\u0000${parsed.args}`;
    if (seen.has(key)) return;
    seen.add(key);
    if (calls.length >= MAX_EXAMPLE_CALLS) {
      skip({ ...call, reason: `the file has more than ${MAX_EXAMPLE_CALLS} example calls: ndb predicts the first ${MAX_EXAMPLE_CALLS}` });
      return;
    }
    calls.push({ entry, args: parsed.args, text: call.text, line, start: call.start, end: call.end, kind });
  });
  return { calls, skipped };
}

/**
 * The lines scanned here come from anyone's file, so every step is linear in the line's length
 * (a regular expression such as `(.*?)\s*$` is quadratic in a run of blanks: a `# ndb:` line of
 * 1,000,000 spaces held the server for minutes). What `\s` and trimEnd() call whitespace is the
 * same set of characters; a body may not hold a line terminator (a lone \r, U+2028), as `.` in
 * the patterns these functions replaced could not.
 */
const WHITESPACE = /\s/;
const TERMINATOR = /[\n\r\u2028\u2029]/;

function isSpace(c: string | undefined): boolean {
  return c !== undefined && WHITESPACE.test(c);
}

/** The first index at or after `i` that is not whitespace. */
function skipSpaces(text: string, i: number): number {
  while (i < text.length && isSpace(text[i])) i++;
  return i;
}

/** The index of the last line terminator before the line's trailing blanks (-1: none). */
function lastInnerTerminator(lineText: string): number {
  const end = lineText.trimEnd().length;
  for (let i = end - 1; i >= 0; i--) if (TERMINATOR.test(lineText[i]!)) return i;
  return -1;
}

/** The text after `# ndb:` or `>>>` on a line, with the column it starts at. */
export function scanLine(lineText: string): { kind: ExampleCall['kind']; body: string; column: number } | null {
  const terminator = lastInnerTerminator(lineText);
  const body = (start: number) => (start > terminator ? lineText.slice(start).trimEnd() : null);
  const indent = skipSpaces(lineText, 0);
  // `>>>` then at least one blank (a doctest line).
  if (lineText.startsWith('>>>', indent) && isSpace(lineText[indent + 3])) {
    const column = skipSpaces(lineText, indent + 3);
    const text = body(column);
    if (text !== null) return { kind: 'doctest', body: text, column };
  }
  // `assert` then at least one blank, then an optional `not` and at least one blank.
  if (lineText.startsWith('assert', indent) && isSpace(lineText[indent + 6])) {
    let column = skipSpaces(lineText, indent + 6);
    if (lineText.startsWith('not', column) && isSpace(lineText[column + 3])) column = skipSpaces(lineText, column + 3);
    const text = body(column);
    if (text !== null) return { kind: 'assert', body: text, column };
  }
  // The first `#` followed (after any blanks) by `ndb:` whose rest holds no line terminator.
  for (let hash = lineText.indexOf('#'); hash >= 0; hash = lineText.indexOf('#', hash + 1)) {
    const at = skipSpaces(lineText, hash + 1);
    if (!lineText.startsWith('ndb:', at)) continue;
    const column = skipSpaces(lineText, at + 4);
    const text = body(column);
    if (text === null) continue;
    if (insideString(lineText, hash)) return null;
    return { kind: 'comment', body: text, column };
  }
  return null;
}

/** Whether column `at` of a line is inside a one-line string literal (a `#` there is no comment). */
function insideString(lineText: string, at: number): boolean {
  let quote: string | null = null;
  for (let i = 0; i < at; i++) {
    const c = lineText[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
  }
  return quote !== null;
}

/**
 * `body` from the `(` that ends at `open` to its matching `)`: the arguments and the length
 * of the call text. Null when the parentheses do not close on this line or text follows
 * the call (other than a comment, or anything with `rest`): then the line is not a plain call.
 */
function splitCall(body: string, open: number, rest = false): { args: string; length: number } | null {
  let depth = 1;
  let quote: string | null = null;
  for (let i = open; i < body.length; i++) {
    const c = body[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (body.startsWith(quote, i)) {
        i += quote.length - 1;
        quote = null;
      }
      continue;
    }
    if (c === '"' || c === "'") quote = body.startsWith(c.repeat(3), i) ? c.repeat(3) : c;
    if (quote && quote.length === 3) i += 2;
    else if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      depth--;
      if (depth === 0) {
        const after = body.slice(i + 1).trim();
        if (!rest && after !== '' && !after.startsWith('#')) return null;
        return { args: body.slice(open, i).trim(), length: i + 1 };
      }
    }
  }
  return null;
}

const NUMBER = /(?:0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?[jJ]?)/y;
const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;
const STRING_PREFIX = /[rRbBuUfF]{0,2}(?=['"])/y;
const LITERAL_NAMES = new Set(['True', 'False', 'None']);

/** A match of the sticky pattern `re` at `i` (read once per character: linear). */
function matchAt(re: RegExp, text: string, i: number): string | null {
  re.lastIndex = i;
  const m = re.exec(text);
  return m ? m[0] : null;
}

/** Where the string literal whose quote is at `i` ends (past its closing quote), or -1 (unterminated). */
function stringEnd(text: string, i: number): number {
  const q = text[i]!;
  const quote = text.startsWith(q.repeat(3), i) ? q.repeat(3) : q;
  for (let j = i + quote.length; j < text.length; j++) {
    if (text[j] === '\\') j++;
    else if (text.startsWith(quote, j)) return j + quote.length;
    else if (quote.length === 1 && text[j] === '\n') return -1;
  }
  return -1;
}

/**
 * Why `args` is certainly not a list of Python literals (a name, a call, an f-string, an
 * unpacking), or null. What passes may still be refused by Python (`1 + 2` is no literal).
 */
export function literalProblem(args: string): string | null {
  let depth = 0;
  for (let i = 0; i < args.length; ) {
    const prefix = matchAt(STRING_PREFIX, args, i);
    if (prefix !== null) {
      if (/[fF]/.test(prefix)) return 'an f-string is not a literal';
      const end = stringEnd(args, i + prefix.length);
      if (end < 0) return 'an unterminated string is not a literal';
      i = end;
      continue;
    }
    const number = matchAt(NUMBER, args, i);
    if (number) {
      i += number.length;
      continue;
    }
    const word = matchAt(NAME, args, i);
    if (word) {
      const after = skipSpaces(args, i + word.length);
      // `key=value` at the top level names a keyword argument, not a value.
      const keyword = depth === 0 && args[after] === '=' && args[after + 1] !== '=';
      if (!keyword && !LITERAL_NAMES.has(word)) return `'${word}' is not a literal`;
      i += word.length;
      continue;
    }
    const c = args[i]!;
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    else if (c === '*' && depth === 0) {
      // A star that starts an argument (after a comma, or first) unpacks; one after a value multiplies.
      let before = i - 1;
      while (before >= 0 && isSpace(args[before])) before--;
      if (before < 0 || args[before] === ',') return 'argument unpacking (* or **) is not a literal';
    }
    i++;
  }
  return null;
}

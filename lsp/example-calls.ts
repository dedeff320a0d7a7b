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

const COMMENT = /#\s*ndb:\s*(.*?)\s*$/;
const DOCTEST = /^(\s*)>>>\s+(.*?)\s*$/;
const ASSERT = /^(\s*assert\s+(?:not\s+)?)(.*?)\s*$/;
const CALL_HEAD = /^([A-Za-z_][A-Za-z0-9_.]*)\s*\(/;

/**
 * The example calls of `text`, given the file's functions. Duplicates (the same function
 * and arguments) are kept once: one run serves both.
 */
export function findExampleCalls(text: string, functions: readonly FunctionInfo[]): ExampleCalls {
  const topLevel = new Set(functions.filter((f) => f.qualname === f.name).map((f) => f.name));
  const calls: ExampleCall[] = [];
  const skipped: SkippedCall[] = [];
  const seen = new Set<string>();
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
      if (kind === 'comment') skipped.push({ ...span, reason: 'an ndb example call is written `# ndb: function(arguments)`, with Python literals as arguments' });
      return;
    }
    const entry = head[1]!;
    if (!topLevel.has(entry)) {
      // A doctest may call anything (a builtin, an imported name); a comment means this file's function.
      if (kind === 'comment') skipped.push({ ...span, reason: `'${entry}' is not a top-level function of this file` });
      return;
    }
    const call = { ...span, end: column + parsed.length, text: body.slice(0, parsed.length) };
    const problem = literalProblem(parsed.args);
    if (problem) {
      // An assert with names in its call is the program's own check, not a test case: no note.
      if (kind === 'assert') return;
      skipped.push({ ...call, reason: `${problem}: ndb predicts a run only from Python literals (nothing is executed to compute an argument)` });
      return;
    }
    const key = `${entry}\u0000${parsed.args}`;
    if (seen.has(key)) return;
    seen.add(key);
    calls.push({ entry, args: parsed.args, text: call.text, line, start: call.start, end: call.end, kind });
  });
  return { calls, skipped };
}

/** The text after `# ndb:` or `>>>` on a line, with the column it starts at. */
function scanLine(lineText: string): { kind: ExampleCall['kind']; body: string; column: number } | null {
  const doctest = DOCTEST.exec(lineText);
  if (doctest) {
    const body = doctest[2]!;
    return { kind: 'doctest', body, column: lineText.indexOf(body, doctest[1]!.length + 3) };
  }
  const assertion = ASSERT.exec(lineText);
  if (assertion) return { kind: 'assert', body: assertion[2]!, column: assertion[1]!.length };
  const comment = COMMENT.exec(lineText);
  if (comment && !insideString(lineText, comment.index)) {
    const body = comment[1]!;
    return { kind: 'comment', body, column: lineText.lastIndexOf(body) };
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

const STRING = /^[rRbBuU]{0,2}('''[\s\S]*?'''|"""[\s\S]*?"""|'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*")/;
const NUMBER = /^(?:0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?[jJ]?)/;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;
const LITERAL_NAMES = new Set(['True', 'False', 'None']);

/**
 * Why `args` is certainly not a list of Python literals (a name, a call, an f-string, an
 * unpacking), or null. What passes may still be refused by Python (`1 + 2` is no literal).
 */
export function literalProblem(args: string): string | null {
  let depth = 0;
  for (let i = 0; i < args.length; ) {
    const rest = args.slice(i);
    const string = STRING.exec(rest);
    if (string) {
      if (/^[rRbBuU]*[fF]/.test(rest)) return 'an f-string is not a literal';
      i += string[0].length;
      continue;
    }
    if (/^[fF][rR]?['"]/.test(rest) || /^[rR][fF]['"]/.test(rest)) return 'an f-string is not a literal';
    const number = NUMBER.exec(rest);
    if (number && number[0] !== '') {
      i += number[0].length;
      continue;
    }
    const name = NAME.exec(rest);
    if (name) {
      const word = name[0];
      const after = args.slice(i + word.length).trimStart();
      // `key=value` at the top level names a keyword argument, not a value.
      const keyword = depth === 0 && after.startsWith('=') && !after.startsWith('==');
      if (!keyword && !LITERAL_NAMES.has(word)) return `'${word}' is not a literal`;
      i += word.length;
      continue;
    }
    const c = args[i]!;
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    else if (c === '*' && depth === 0 && /^(,|$)/.test(args.slice(0, i).trimEnd().slice(-1))) return 'argument unpacking (* or **) is not a literal';
    i++;
  }
  return null;
}

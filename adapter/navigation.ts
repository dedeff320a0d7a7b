/**
 * What the debug adapter's navigation and console requests read from the program and the
 * predicted state, without the protocol: debugpy's exception filters, the calls of a line
 * (step-in targets), and the Debug Console's completions over predicted names and values.
 */
import type { DebugProtocol } from '@vscode/debugprotocol';
import type { ProgramInfo } from '../program-analysis/program-info.js';
import { MORE_LOCALS_KEY } from '../grammar/truncate.js';
import { evaluateExpression } from './evaluate.js';

/**
 * debugpy's exception breakpoint filters, with its ids and defaults, on predicted exceptions:
 * `raised` stops a continue at every exception the predicted run raises; `uncaught` and
 * `userUnhandled` stop at a run predicted to end raising (ndb debugs one file, all of it the
 * user's code, so an exception that leaves it is both).
 */
export const EXCEPTION_FILTERS: readonly DebugProtocol.ExceptionBreakpointsFilter[] = [
  { filter: 'raised', label: 'Raised Exceptions', default: false, description: 'Break at every exception the predicted run raises (a continue then steps through the run).' },
  { filter: 'uncaught', label: 'Uncaught Exceptions', default: true, description: 'Break where the predicted run ends raising an exception.' },
  { filter: 'userUnhandled', label: 'User Uncaught Exceptions', default: false, description: 'Break where an exception leaves your code: in ndb, all of the one file debugged, so as Uncaught Exceptions.' },
];

export interface StepTarget {
  /** The function entered (its code name, as a frame shows it). */
  function: string;
  label: string;
  /** 1-based columns of the call's name on the line. */
  column: number;
  endColumn: number;
}

/**
 * The calls a line makes into the program's own functions, in the order they appear (a
 * builtin's or a library's call has no predicted frame to step into). Read from the text:
 * `name(` and `.name(` where the program defines a function of that name.
 */
export function stepInTargets(line: string, info: ProgramInfo | null): StepTarget[] {
  if (info?.kind !== 'ok') return [];
  const names = new Set(info.functions.map((f) => f.name));
  const code = stripStringsAndComment(line);
  const targets: StepTarget[] = [];
  for (const m of code.matchAll(/(\.)?\b([A-Za-z_]\w*)\s*\(/g)) {
    const name = m[2]!;
    // `def f(` defines, it does not call.
    if (!names.has(name) || /\b(def|class)\s+$/.test(code.slice(0, m.index))) continue;
    const column = m.index + (m[1] ? 1 : 0) + 1;
    targets.push({ function: name, label: `${m[1] ? '.' : ''}${name}()`, column, endColumn: column + name.length });
  }
  return targets;
}

/** The line with its strings' contents blanked and its comment cut (same length up to the comment), so `"f("` is no call. */
function stripStringsAndComment(line: string): string {
  let out = '';
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === '\\') {
        out += '  ';
        i++;
      } else if (line.startsWith(quote, i)) {
        out += quote;
        i += quote.length - 1;
        quote = null;
      } else out += ' ';
    } else if (c === '#') {
      break;
    } else if (c === '"' || c === "'") {
      quote = line.startsWith(c.repeat(3), i) ? c.repeat(3) : c;
      out += quote;
      i += quote.length - 1;
    } else out += c;
  }
  return out;
}

/** The builtins the expression walker allows (semantics/pure.py's BUILTIN_NAMES). */
const BUILTINS = ['abs', 'all', 'any', 'ascii', 'bin', 'bool', 'bytes', 'callable', 'chr', 'complex', 'dict', 'divmod', 'enumerate', 'filter', 'float', 'format', 'frozenset', 'hash', 'hex', 'int', 'isinstance', 'iter', 'len', 'list', 'map', 'max', 'min', 'next', 'oct', 'ord', 'pow', 'range', 'repr', 'reversed', 'round', 'set', 'slice', 'sorted', 'str', 'sum', 'tuple', 'zip'];
const KEYWORDS = ['and', 'else', 'False', 'for', 'if', 'in', 'is', 'lambda', 'None', 'not', 'or', 'True'];

/** The public attributes of the builtin types a predicted value can have. */
const INT_ATTRS = ['as_integer_ratio', 'bit_count', 'bit_length', 'conjugate', 'denominator', 'imag', 'numerator', 'real', 'to_bytes'];
const STR_ATTRS = ['capitalize', 'casefold', 'center', 'count', 'encode', 'endswith', 'expandtabs', 'find', 'format', 'index', 'isalnum', 'isalpha', 'isascii', 'isdecimal', 'isdigit', 'isidentifier', 'islower', 'isnumeric', 'isprintable', 'isspace', 'istitle', 'isupper', 'join', 'ljust', 'lower', 'lstrip', 'partition', 'removeprefix', 'removesuffix', 'replace', 'rfind', 'rindex', 'rjust', 'rpartition', 'rsplit', 'rstrip', 'split', 'splitlines', 'startswith', 'strip', 'swapcase', 'title', 'upper', 'zfill'];
const SET_ATTRS = ['copy', 'difference', 'intersection', 'isdisjoint', 'issubset', 'issuperset', 'symmetric_difference', 'union'];
const TYPE_ATTRS: Record<string, readonly string[]> = {
  int: INT_ATTRS,
  bool: INT_ATTRS,
  float: ['as_integer_ratio', 'conjugate', 'hex', 'imag', 'is_integer', 'real'],
  complex: ['conjugate', 'imag', 'real'],
  str: STR_ATTRS,
  bytes: ['count', 'decode', 'endswith', 'find', 'hex', 'index', 'isalnum', 'isalpha', 'isdigit', 'join', 'lower', 'lstrip', 'partition', 'replace', 'rfind', 'rstrip', 'split', 'startswith', 'strip', 'upper'],
  list: ['append', 'clear', 'copy', 'count', 'extend', 'index', 'insert', 'pop', 'remove', 'reverse', 'sort'],
  tuple: ['count', 'index'],
  dict: ['clear', 'copy', 'fromkeys', 'get', 'items', 'keys', 'pop', 'popitem', 'setdefault', 'update', 'values'],
  set: [...SET_ATTRS, 'add', 'clear', 'difference_update', 'discard', 'intersection_update', 'pop', 'remove', 'symmetric_difference_update', 'update'],
  frozenset: SET_ATTRS,
};
const IDENTIFIER = /^[\p{ID_Start}_][\p{ID_Continue}]*$/u;

export interface Completions {
  items: DebugProtocol.CompletionItem[];
  /** 0-based index in the text where the completed word starts, and its length (what an item replaces). */
  start: number;
  length: number;
}

/**
 * Completions for the text before the cursor: after `expr.` the attributes of the value
 * `expr` has over the predicted locals (a builtin type's methods, or the fields of a value
 * written `Name(field=…)`); otherwise the locals, the builtins and the expression keywords.
 */
export async function completionItems(before: string, locals: Record<string, string>): Promise<Completions> {
  const word = /[\p{ID_Start}_]?[\p{ID_Continue}]*$/u.exec(before)![0];
  const start = before.length - word.length;
  const head = before.slice(0, start);
  const dotted = /((?:[\p{ID_Start}_][\p{ID_Continue}]*|[\])'"])[^\s=(,:]*)\.\s*$/u.exec(head);
  let items: DebugProtocol.CompletionItem[];
  if (dotted) {
    const object = dotted[1]!;
    items = (await attributes(object, locals)).map((label) => ({ label, type: 'method' as const }));
  } else {
    const names = Object.keys(locals).filter((n) => n !== MORE_LOCALS_KEY && IDENTIFIER.test(n));
    items = [
      ...names.map((label) => ({ label, type: 'variable' as const, detail: locals[label]!.slice(0, 80) })),
      ...BUILTINS.filter((b) => !names.includes(b)).map((label) => ({ label, type: 'function' as const })),
      ...KEYWORDS.map((label) => ({ label, type: 'keyword' as const })),
    ];
  }
  const matching = items.filter((i) => i.label.startsWith(word)).map((i, k) => ({ ...i, sortText: String(k).padStart(4, '0') }));
  return { items: matching, start, length: word.length };
}

/** The attribute names of the value an expression has over the locals (none when it does not evaluate). */
async function attributes(expression: string, locals: Record<string, string>): Promise<string[]> {
  const r = await evaluateExpression(expression, locals);
  if (r.kind === 'error') return [];
  const known = r.type ? TYPE_ATTRS[r.type] : undefined;
  if (known) return [...known];
  // A value written as a call with keywords (a dataclass, a namedtuple): its fields.
  const fields = /^[A-Za-z_][\w.]*\((.*)\)$/s.exec(r.repr);
  if (!fields) return [];
  return [...fields[1]!.matchAll(/(?:^|,\s*)([A-Za-z_]\w*)=/g)].map((m) => m[1]!);
}

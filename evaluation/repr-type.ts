/**
 * The type of a Python value, read from its repr (as pdb or the tracer writes it, possibly
 * truncated with `…` and address-masked). `ndb eval environment` compares the type of each
 * predicted value with the real one's this way, on both sides, so neither is privileged.
 *
 *   None / True, False / 12, -3 / 1.5, 2e-05, inf, nan / (1+2j)      NoneType, bool, int, float, complex
 *   'x', "x" / b'x' / [..] / (..) / {} {k: v} / {1, 2}, set()       str, bytes, list, tuple, dict, set
 *   <mod.Class object at 0x…>, <re.Match object; span=…>             Class, Match
 *   <Response [200]>, <function f at 0x…>, <class 'int'>, <module…>  Response, function, type, module
 *   Class(...), mod.Class(...) (dataclasses, namedtuples, datetime,  Class (the last dotted name)
 *   PosixPath('a'), array([...]), Counter({...}), ValueError('x'))
 *
 * Anything else is `other`: two reprs of unknown shape are never counted as the same type.
 */

export type ReprType = string;

/** `other`: a repr of no shape the classifier knows (never equal to anything in {@link sameType}). */
export const OTHER = 'other';

const INT = /^[-+]?\d[\d_]*$/;
const FLOAT = /^[-+]?((\d[\d_]*)?\.\d*|\d[\d_]*\.?\d*[eE][-+]?\d+|\d+\.)$|^[-+]?(inf|nan)$/;
const COMPLEX = /^\(?[-+]?[\d.e+-]*[-+]?[\d.e]*j\)?$/;
const CALL = /^([A-Za-z_][\w.]*)\(/;

const lastName = (dotted: string) => dotted.slice(dotted.lastIndexOf('.') + 1);

/** `{…}`: a dict when a `:` stands at the top level of the braces (outside strings), else a set. */
function braceType(repr: string): 'dict' | 'set' {
  if (/^\{\s*\}$/.test(repr)) return 'dict';
  let depth = 0;
  let quote: string | null = null;
  for (let i = 0; i < repr.length; i++) {
    const c = repr[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
      continue;
    }
    if (c === "'" || c === '"') quote = c;
    else if ('[({'.includes(c)) depth++;
    else if (')]}'.includes(c)) depth--;
    else if (c === ':' && depth === 1) return 'dict';
    else if (c === ',' && depth === 1) return 'set';
  }
  return 'set';
}

/** `<…>` reprs: objects without a repr of their own, functions, classes, modules, and `<Name …>` shapes. */
function angleType(repr: string): ReprType {
  if (/^<class '/.test(repr)) return 'type';
  if (/^<module '/.test(repr)) return 'module';
  if (/^<(function|lambda) /.test(repr) || /^<function /.test(repr)) return 'function';
  if (/^<bound method /.test(repr)) return 'method';
  if (/^<built-in (function|method) /.test(repr)) return 'builtin_function_or_method';
  const object = /^<([A-Za-z_][\w.]*) object\b/.exec(repr);
  if (object) return lastName(object[1]!);
  const named = /^<([A-Za-z_][\w.]*)[\s:>]/.exec(repr);
  if (named) return lastName(named[1]!);
  return OTHER;
}

/** The type a repr shows (see the file comment). */
export function reprType(repr: string): ReprType {
  const r = repr.trim();
  if (r === '') return OTHER;
  if (r === 'None') return 'NoneType';
  if (r === 'True' || r === 'False') return 'bool';
  if (r === 'Ellipsis') return 'ellipsis';
  if (INT.test(r)) return 'int';
  if (FLOAT.test(r)) return 'float';
  if (/j\)?$/.test(r) && COMPLEX.test(r) && /\d/.test(r)) return 'complex';
  const c = r[0]!;
  if (c === "'" || c === '"') return 'str';
  if (/^[bB]['"]/.test(r)) return 'bytes';
  if (/^[rRuU]?['"]/.test(r)) return 'str';
  if (c === '[') return 'list';
  if (c === '(') return 'tuple';
  if (c === '{') return braceType(r);
  if (c === '<') return angleType(r);
  if (r === 'set()') return 'set';
  const call = CALL.exec(r);
  if (call) return lastName(call[1]!);
  return OTHER;
}

/** Whether two reprs show the same type (`other` matches nothing). */
export function sameType(a: string, b: string): boolean {
  const ta = reprType(a);
  return ta !== OTHER && ta === reprType(b);
}

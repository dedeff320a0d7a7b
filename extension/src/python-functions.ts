/**
 * The functions of a Python file, found by indentation (no Python needed, so F5 answers at
 * once): each `def` with the lines of its body. Good enough to name "the function under the
 * cursor"; the adapter checks the name against CPython's own view when it launches.
 */

export interface PyFunction {
  name: string;
  /** Dotted with enclosing classes and functions, e.g. `Shape.area`. */
  qualname: string;
  /** 1-based line of the `def`. */
  line: number;
  /** 1-based last line of the body. */
  endLine: number;
  /** The parameter list as written (between the parentheses, one line only). */
  params: string;
  /** Indentation of the `def`: 0 for a module-level function. */
  indent: number;
  /** Inside a class: a method (debugging it needs `self`). */
  inClass: boolean;
}

const DEF = /^(\s*)(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(([^)]*)\)?/;
const CLASS = /^(\s*)class\s+([A-Za-z_]\w*)/;

function indentOf(line: string): number {
  return /^\s*/.exec(line)![0].replace(/\t/g, '        ').length;
}

function isCode(line: string): boolean {
  const t = line.trim();
  return t !== '' && !t.startsWith('#');
}

export function pythonFunctions(text: string): PyFunction[] {
  const lines = text.split(/\r?\n/);
  const out: PyFunction[] = [];
  // Open scopes (classes and functions) by indentation.
  const scopes: { name: string; indent: number; kind: 'class' | 'def'; fn?: PyFunction }[] = [];
  lines.forEach((line, i) => {
    if (!isCode(line)) return;
    const indent = indentOf(line);
    while (scopes.length > 0 && indent <= scopes[scopes.length - 1]!.indent) scopes.pop();
    const def = DEF.exec(line);
    const cls = def ? null : CLASS.exec(line);
    for (const s of scopes) if (s.fn) s.fn.endLine = i + 1;
    if (def) {
      const fn: PyFunction = {
        name: def[2]!,
        qualname: [...scopes.map((s) => s.name), def[2]!].join('.'),
        line: i + 1,
        endLine: i + 1,
        params: (def[3] ?? '').trim(),
        indent,
        inClass: scopes.at(-1)?.kind === 'class',
      };
      out.push(fn);
      scopes.push({ name: fn.name, indent, kind: 'def', fn });
    } else if (cls) {
      scopes.push({ name: cls[2]!, indent, kind: 'class' });
    }
  });
  return out;
}

/** The innermost function whose `def` or body holds `line` (1-based). */
export function functionAt(functions: readonly PyFunction[], line: number): PyFunction | undefined {
  return functions.filter((f) => f.line <= line && line <= f.endLine).sort((a, b) => b.line - a.line)[0];
}

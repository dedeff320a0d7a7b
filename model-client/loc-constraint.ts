/**
 * The LOC segment of a frame: the whole stack `name:line name:line` (outermost first) or,
 * where the scope is kept, a bare line number. Line numbers must exist in the program
 * (1 .. number of lines, no leading zero). Names must be frames the tracer can record: a
 * function or class defined in the program (a class body runs as a frame of its own), the
 * module, or one of the code objects Python names in angle brackets.
 */
import { type Segment, cp } from './segment.js';

const ANONYMOUS_FRAMES = ['<module>', '<lambda>', '<listcomp>', '<dictcomp>', '<setcomp>', '<genexpr>'];
const DEFINITION = /^\s*(?:async\s+def|def|class)\s+([^\s(:]+)/u;

/** The names a stack entry may carry, with all their prefixes (for prefix validation). */
export class FrameNames {
  readonly names: ReadonlySet<string>;
  private readonly prefixes: ReadonlySet<string>;

  constructor(names: Iterable<string>) {
    this.names = new Set(names);
    const prefixes = new Set<string>();
    for (const name of this.names) for (let i = 1; i <= name.length; i++) prefixes.add(name.slice(0, i));
    this.prefixes = prefixes;
  }

  /** Every def and class of the program (found by their header lines) and the anonymous frames. */
  static ofProgram(lines: readonly string[]): FrameNames {
    const names = [...ANONYMOUS_FRAMES];
    for (const line of lines) {
      const m = DEFINITION.exec(line);
      if (m) names.push(m[1]!);
    }
    return new FrameNames(names);
  }

  isPrefix(text: string): boolean {
    return this.prefixes.has(text);
  }
}

export interface LocRules {
  lineCount: number;
  names: FrameNames;
  /** Whether a bare line number (same frame as the state before) may be written. */
  bareAllowed: boolean;
  /**
   * The lines the innermost frame may end on, by its function (undefined: any of its lines). A
   * call sits on its function's call line; an exception on a line that can raise.
   */
  innermostLines?: (name: string) => ReadonlySet<number> | undefined;
  /** Where the innermost frame must end up (a breakpoint's line, in the function that holds it). */
  innermost?: { line: number; function?: string };
  /** Lines by frame (program-analysis/control-flow.ts): the lines a frame of this name can report; undefined: any. */
  frameLines?: (name: string) => ReadonlySet<number> | undefined;
  /** Where the action can land (program-analysis/control-flow.ts): the bare lines allowed; undefined: any. */
  bareLines?: ReadonlySet<number>;
  /** Where the action can land: the whole stacks allowed (`f:3 g:7`); undefined: any. */
  stacks?: ReadonlySet<string>;
}

const PREFIXES = new WeakMap<ReadonlySet<string>, ReadonlySet<string>>();

/** Every prefix of every string of the set (memoized per set). */
function prefixesOf(set: ReadonlySet<string>): ReadonlySet<string> {
  let p = PREFIXES.get(set);
  if (!p) {
    const out = new Set<string>();
    for (const s of set) for (let i = 0; i <= s.length; i++) out.add(s.slice(0, i));
    PREFIXES.set(set, (p = out));
  }
  return p;
}

/** Whether some line of the set is written with these leading digits. */
function someLineStartsWith(lines: ReadonlySet<number>, digits: string): boolean {
  for (const l of lines) if (String(l).startsWith(digits)) return true;
  return false;
}

const DIGIT_0 = cp('0');
const DIGIT_9 = cp('9');

export class LocSegment implements Segment {
  private mode: 'start' | 'bare' | 'name' | 'line' = 'start';
  private name = '';
  private digits = '';
  /** The whole text so far (for the stacks rule). */
  private text = '';

  constructor(private readonly rules: LocRules) {}

  /** The line of the innermost frame, once one is written. */
  get line(): number | undefined {
    return this.digits === '' ? undefined : Number(this.digits);
  }

  /** The innermost frame's function, once written (undefined for a bare line: the same frame as before). */
  get innermost(): string | undefined {
    return this.mode === 'line' ? this.name : undefined;
  }

  get bare(): boolean {
    return this.mode === 'bare';
  }

  push(c: number): boolean {
    if (!this.pushChar(c)) return false;
    this.text += String.fromCodePoint(c);
    const { stacks, bareLines, frameLines } = this.rules;
    if (this.mode === 'bare') return !bareLines || someLineStartsWith(bareLines, this.digits);
    if (stacks) return prefixesOf(stacks).has(this.text);
    if (this.mode === 'line' && this.digits !== '' && frameLines) {
      const lines = frameLines(this.name);
      return !lines || someLineStartsWith(lines, this.digits);
    }
    if (this.mode === 'name' && this.name === '' && frameLines) {
      // An entry just ended (the space after its line): its line must be one of its frame's.
      return this.entryOk(this.prevName, this.prevDigits);
    }
    return true;
  }

  private prevName = '';
  private prevDigits = '';

  private entryOk(name: string, digits: string): boolean {
    const lines = this.rules.frameLines?.(name);
    return !lines || lines.has(Number(digits));
  }

  private pushChar(c: number): boolean {
    const isDigit = c >= DIGIT_0 && c <= DIGIT_9;
    switch (this.mode) {
      case 'start':
        if (isDigit) {
          if (!this.rules.bareAllowed) return false;
          this.mode = 'bare';
          return this.addDigit(c);
        }
        this.mode = 'name';
        return this.addNameChar(c);
      case 'bare':
        return isDigit && this.addDigit(c);
      case 'name':
        if (c === cp(':')) {
          if (!this.rules.names.names.has(this.name)) return false;
          this.mode = 'line';
          this.digits = '';
          return true;
        }
        return this.addNameChar(c);
      case 'line':
        if (isDigit) return this.addDigit(c);
        if (c !== cp(' ') || this.digits === '') return false;
        this.prevName = this.name;
        this.prevDigits = this.digits;
        this.mode = 'name';
        this.name = '';
        return true;
    }
  }

  private addNameChar(c: number): boolean {
    const next = this.name + String.fromCodePoint(c);
    if (!this.rules.names.isPrefix(next)) return false;
    this.name = next;
    return true;
  }

  /** A line number stays in 1 .. lineCount: no leading zero, and appending digits only grows it. */
  private addDigit(c: number): boolean {
    const next = this.digits + String.fromCodePoint(c);
    if (next === '0' || Number(next) > this.rules.lineCount) return false;
    this.digits = next;
    return true;
  }

  canEnd(): boolean {
    if (!((this.mode === 'bare' || this.mode === 'line') && this.digits !== '')) return false;
    const { innermost } = this.rules;
    if (innermost && (Number(this.digits) !== innermost.line || (this.mode === 'line' && innermost.function !== undefined && this.name !== innermost.function))) return false;
    const { stacks, bareLines } = this.rules;
    // Whole stacks, where given, already hold the innermost lines (a generator's resumption included).
    const lines = this.mode === 'line' && !stacks ? this.rules.innermostLines?.(this.name) : undefined;
    if (lines && !lines.has(Number(this.digits))) return false;
    if (this.mode === 'bare') return !bareLines || bareLines.has(Number(this.digits));
    if (stacks) return stacks.has(this.text);
    return this.entryOk(this.name, this.digits);
  }

  forced(): string | null {
    return null;
  }

  clone(): LocSegment {
    const c = new LocSegment(this.rules);
    c.mode = this.mode;
    c.name = this.name;
    c.digits = this.digits;
    c.text = this.text;
    c.prevName = this.prevName;
    c.prevDigits = this.prevDigits;
    return c;
  }
}

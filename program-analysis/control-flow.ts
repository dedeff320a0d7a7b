/**
 * Where a frame of the program can stop, and where an action can take it, from the program's
 * bytecode (control_flow.py: compile() only, nothing runs). Two constraints for decoding:
 *
 * - **Lines by frame.** A frame named `f` reports only lines of a code object named `f`
 *   (the lines its bytecode carries, and its first line for a call); a module-level frame
 *   only module-level statements, never a line inside a def or class body.
 * - **Where an action lands** (landing()): from the state before and the action, which
 *   locations each head (line, call, return, exception) can take, following the state tree's
 *   moves (state-tree/tree.ts) over the bytecode's control-flow graph (next() and prev()),
 *   the functions a line can call (canCall: a plain function the program only calls by
 *   name, from a line that loads the name; any other from anywhere, since calls hide behind
 *   callbacks, properties and methods), and the caller's line after a return. Where the analysis
 *   cannot tell, it leaves the location free under the first rule.
 *
 * And on values: a return event on a line with no return or yield instruction is an
 * exception leaving the frame, whose value is `None` (returnsValue()); the names each line
 * binds, for semantics/rules/kept.ts; the names a frame cannot hold yet before a line
 * (unboundBefore()); the repr a line that only assigns literals gives each name (`literals`);
 * where a loop target's next value comes from (`loops`, semantics/rules/loop.ts); the
 * value a line that is only `return LITERAL` returns (returnValues()); the `if` and `while`
 * tests a state decides (`branches`, semantics/rules/branch.ts) and the values of
 * statements and returns it decides (`statements`, `returned`: their sources, which the
 * symbolic stepper has CPython's walker evaluate, semantics/python-session.ts).
 * A line event never lands on a function's first line that carries only its preamble
 * (`quiet`), and stepping back reaches the call only from a line a call can run first.
 *
 * The rules over-approximate: test/control-flow.test.ts checks that every real next state of
 * thousands of traced programs passes.
 */
import { z } from 'zod';
import type { Action, Event, Frame, State } from '../grammar/state.js';
import { helperPath, runPythonHelper } from '../python/python-helper.js';

const FrameFlowSchema = z.object({
  lines: z.array(z.number().int()),
  first: z.array(z.number().int()),
  next: z.record(z.string(), z.array(z.number().int())),
  returns: z.array(z.number().int()),
  valued: z.array(z.number().int()),
  resumes: z.array(z.number().int()),
  starts: z.array(z.number().int()),
  stores: z.record(z.string(), z.array(z.string())),
  loads: z.record(z.string(), z.array(z.string())),
  shared: z.array(z.string()),
  raises: z.array(z.number().int()),
  params: z.array(z.string()).nullable(),
  quiet: z.array(z.number().int()),
  shown: z.array(z.string()).nullable(),
  lineless: z.boolean(),
  codes: z.array(z.object({ first: z.number().int(), lines: z.array(z.number().int()), starts: z.array(z.number().int()) })),
});
/** Where a range's stop is shown: a literal, a local, the length of a local. */
const RangeStop = { stop: z.number().int().optional(), stop_name: z.string().optional(), stop_len: z.string().optional() };
/** Where a loop target's next value comes from (control_flow.py's `loops`). */
const IterationSourceSchema = z.union([
  /** `expr`: the elements are `list(expr)`'s, which the walker works out (seq names them, `<iter LINE>`). */
  z.object({
    seq: z.string(),
    reversed: z.literal(true).optional(),
    expr: z.string().optional(),
    /** `for a, b in pairs:` this target is item `item` of each element, which unpacks into `of`. */
    item: z.number().int().optional(),
    of: z.number().int().optional(),
  }),
  z.object({ values: z.string() }),
  z.object({ count: z.number().int(), step: z.number().int(), ...RangeStop }),
  z.object({ count_from: z.string(), offset: z.number().int().optional(), step: z.number().int(), ...RangeStop }),
]);
export type IterationSource = z.infer<typeof IterationSourceSchema>;
const LoopSchema = z.object({
  /** `for` (the frame holding the loop), or the comprehension's frame (`<listcomp>`…). */
  kind: z.string(),
  sources: z.record(z.string(), IterationSourceSchema),
  /** A `for`'s body's first and last lines. */
  body: z.number().int().optional(),
  body_end: z.number().int().optional(),
  /** A `for` whose bound target on its header means it is going on, not entered again. */
  fresh: z.boolean().optional(),
  /** A `for` whose body rebinds a target: back on the header, only the count of iterations tells the next element. */
  rebound: z.boolean().optional(),
  /** A comprehension that walks only parameters of its function, never rebound or changed there: any state of the call shows what it walks. */
  settled: z.boolean().optional(),
  /** A list comprehension's source, an expression of its caller's values: what its frame returns. */
  value: z.string().optional(),
  /** A comprehension's free variables: the names it reads from the function around it, which its frame shows. */
  free: z.array(z.string()).optional(),
});
export type Loop = z.infer<typeof LoopSchema>;

/**
 * An `if`, `elif` or `while` header whose test the walker may decide on a state's values (its
 * source), and its body's first line; `opens`: evaluating it opens a frame of the program's
 * (a comprehension, a lambda, a function of the program), where step_into stops first;
 * `changes`: it may call a method (`stack.pop()`), which may change what it reads, so that the
 * state after the header does not tell what the test read.
 */
const BranchSchema = z.object({ test: z.string(), body: z.number().int(), opens: z.literal(true).optional(), changes: z.literal(true).optional() });
export type Branch = z.infer<typeof BranchSchema>;
/**
 * A line that is only a simple statement the walker can run on a state's values (`i += 1`,
 * `a, b = b, a + b`, `xs.append(x)`, `d[k] = v`, `if n < 0: n = -n`): its source, the locals it
 * may bind or change, and for `x += part` (or `x = x - part`) what stepping back undoes.
 */
const StatementSchema = z.object({
  source: z.string(),
  binds: z.array(z.string()),
  undo: z.object({ name: z.string(), op: z.enum(['+', '-']), part: z.string() }).optional(),
  /** Running it opens a frame of the program's (a lambda, a comprehension, a pure function): step_into stops there first. */
  opens: z.literal(true).optional(),
});
export type Statement = z.infer<typeof StatementSchema>;
/**
 * A line whose one call of the program's is `callee(ARGS)`, where each parameter's value is an
 * expression of the caller's values (an argument's source, or a literal default), in the order
 * the call frame holds them.
 */
const CallSiteSchema = z.object({
  callee: z.string(),
  /** The callee's first line (its call event's). */
  line: z.number().int(),
  params: z.record(z.string(), z.string()),
  /** A method's call `obj.m(ARGS)`: obj's name, and the classes whose instances run this def. */
  receiver: z.object({ name: z.string(), classes: z.array(z.string()) }).optional(),
  /** A class's call `K(ARGS)`: K, whose new instance is `self` (null: K prints its own repr, not known yet). */
  instance: z.string().nullable().optional(),
  /** A method's or `__init__`'s first parameter. */
  self: z.string().optional(),
});
export type CallSite = z.infer<typeof CallSiteSchema>;
/** A line that only assigns (`name`) or returns a call's value (`y = helper(x)`, `return [c for c in s]`): only `callee`'s frame returns into it. */
const ReceivedSchema = z.object({
  name: z.string().optional(),
  /** A tuple of names the value unpacks into (`a, b = f(x)`). */
  names: z.array(z.string()).optional(),
  callee: z.string(),
  /** `NAME = K(ARGS)`: `__init__`'s first parameter, the new object NAME receives. */
  instance: z.string().optional(),
  /** `XS.append(CALL)`: XS, which gets the value at its end; `args`, the names CALL reads. */
  appends: z.string().optional(),
  args: z.array(z.string()).optional(),
});
export type Received = z.infer<typeof ReceivedSchema>;
/** A function of the program a call of shown values may evaluate: its body is only `return EXPR` of its parameters (the source). */
const PureFunctionSchema = z.object({ params: z.array(z.string()), body: z.string() });
/** The program's module-level imports of modules and of their attributes, by the name each binds. */
const ImportsSchema = z.object({ modules: z.record(z.string(), z.string()), names: z.record(z.string(), z.string()) });
/** What an expression of the program may call besides builtins: its imports and pure functions (semantics/python-session.ts Bindings). */
export interface ProgramBindings {
  modules: Readonly<Record<string, string>>;
  names: Readonly<Record<string, string>>;
  functions: Readonly<Record<string, { params: string[]; body: string }>>;
}

const FlowSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('ok'),
    frames: z.record(z.string(), FrameFlowSchema),
    unstable: z.array(z.string()),
    direct_only: z.array(z.string()),
    literals: z.record(z.string(), z.record(z.string(), z.string())),
    loops: z.record(z.string(), z.array(LoopSchema)),
    returns_literal: z.record(z.string(), z.string()),
    branches: z.record(z.string(), BranchSchema),
    statements: z.record(z.string(), StatementSchema),
    returned: z.record(z.string(), z.string()),
    pure: z.record(z.string(), PureFunctionSchema),
    imports: ImportsSchema,
    received: z.record(z.string(), ReceivedSchema),
    calls: z.record(z.string(), CallSiteSchema),
    classes: z.record(z.string(), z.string()),
    constants: z.record(z.string(), z.object({ read_only: z.boolean(), line: z.number().int(), straight: z.boolean(), literal: z.string().optional() })),
    pure_lines: z.array(z.number().int()),
    literal_spans: z.record(z.string(), z.number().int()),
    changes: z.record(z.string(), z.array(z.string())),
    class_state: z.boolean(),
    hides_calls: z.boolean(),
    own_reprs: z.boolean(),
    vanishes: z.boolean(),
    class_lines: z.record(z.string(), z.array(z.number().int())),
    frames_by_code: z.boolean(),
  }),
  z.object({ kind: z.literal('error'), message: z.string() }),
]);

const HELPER_TIMEOUT_MS = 10_000;

/** One frame name's code objects, merged. */
export interface FrameFlow {
  lines: ReadonlySet<number>;
  first: ReadonlySet<number>;
  next: ReadonlyMap<number, ReadonlySet<number>>;
  prev: ReadonlyMap<number, ReadonlySet<number>>;
  returns: ReadonlySet<number>;
  /** The lines of `returns` whose return can carry a value other than None (not a bare `return` or a body's end). */
  valued: ReadonlySet<number>;
  resumes: ReadonlySet<number>;
  /** Lines the first line event after a call or a resumption can report. */
  starts: ReadonlySet<number>;
  /** Each code object of the name apart (methods of two classes share a frame name): its first line, lines and starts. */
  codes: readonly { first: number; lines: ReadonlySet<number>; starts: ReadonlySet<number> }[];
  /** Line -> the names its instructions bind or unbind. */
  stores: ReadonlyMap<number, ReadonlySet<string>>;
  /** Every name bound or unbound anywhere in the frame's code. */
  storedAnywhere: ReadonlySet<string>;
  /** Line -> the names its instructions (and its comprehensions') load. */
  loads: ReadonlyMap<number, ReadonlySet<string>>;
  /** Cell and free variables: another frame can rebind them. */
  shared: ReadonlySet<string>;
  /** Lines an exception event can report: a line that can raise, or a callee's exception can pass through. */
  raises: ReadonlySet<number>;
  /** The parameters; null for a frame that is not a function's (a module or class body). */
  params: ReadonlySet<string> | null;
  /** First lines that carry only the preamble: a call reports them, a line event never does. */
  quiet: ReadonlySet<number>;
  /** A module's or class body's: the names its locals can show (its data, not its defs); null for a function's frame. */
  shown: ReadonlySet<string> | null;
  /** Whether the frame has code without a line (handlers' clean-up), reported as its first line. */
  lineless: boolean;
}

/** What the program's text says about its names, beside each frame's code. */
export interface ProgramNames {
  /** Names declared global or nonlocal anywhere. */
  unstable: ReadonlySet<string>;
  /** Plain functions only ever called by name: called only from a line that loads the name. */
  directOnly: ReadonlySet<string>;
  /**
   * Whether a local's value can change only through its own frame's bytecode: not where the
   * program writes its own reprs or can reach frames by hand (locals(), exec, f_locals,
   * __class__ assignment…), see keptNames().
   */
  localsByCodeOnly: boolean;
}

const NO_NAMES: ProgramNames = { unstable: new Set(), directOnly: new Set(), localsByCodeOnly: false };

/** The locations a head may take: bare line numbers (same frame) and whole stacks (`f:1 g:5`); undefined: free. */
export interface HeadLanding {
  bare?: ReadonlySet<number>;
  stacks?: ReadonlySet<string>;
}

export type Landing = Partial<Record<Event, HeadLanding>>;

const EMPTY: ReadonlySet<number> = new Set();
const EMPTY_NAMES: ReadonlySet<string> = new Set();
/** A head that cannot come at all (no line, no stack): what a rule narrows a landing with. */
export const NONE_HEAD: HeadLanding = { bare: new Set(), stacks: new Set() };

/** `from` and every line reachable from it over `edges`. */
function closure(from: Iterable<number>, edges: ReadonlyMap<number, ReadonlySet<number>>): Set<number> {
  const seen = new Set(from);
  const todo = [...seen];
  while (todo.length > 0) for (const to of edges.get(todo.pop()!) ?? EMPTY) if (!seen.has(to)) (seen.add(to), todo.push(to));
  return seen;
}

export function stackText(frames: readonly Frame[]): string {
  return frames.map((f) => `${f.function}:${f.line}`).join(' ');
}

/** What the lines of a program decide of values (control_flow.py), for the symbolic stepper. */
export interface ValueFacts {
  literals: ReadonlyMap<number, Readonly<Record<string, string>>>;
  loops: ReadonlyMap<number, readonly Loop[]>;
  returnsLiteral: ReadonlyMap<number, string>;
  branches: ReadonlyMap<number, Branch>;
  statements: ReadonlyMap<number, Statement>;
  returned: ReadonlyMap<number, string>;
  bindings: ProgramBindings;
  received: ReadonlyMap<number, Received>;
  calls: ReadonlyMap<number, CallSite>;
  classes: ReadonlyMap<number, string>;
  classLines: ReadonlyMap<string, ReadonlySet<number>>;
  constants: ReadonlyMap<string, ModuleConstant>;
  pureLines: ReadonlySet<number>;
  literalSpans: ReadonlyMap<number, number>;
  changes: ReadonlyMap<number, ReadonlySet<string>>;
  classState: boolean;
  hidesCalls: boolean;
  vanishes: boolean;
}

/** A module-level name bound once: whether every use only reads it; the literal it is bound to, whole. */
export interface ModuleConstant {
  read_only: boolean;
  /** The line that binds it; `straight`: one of the top level's first statements, before any that branches or loops. */
  line: number;
  straight: boolean;
  literal?: string | undefined;
}

export class ControlFlow {
  /**
   * @param ownReprs the program defines `__repr__` (its values may print as anything; otherwise
   *   a repr must be shaped like a value's, repr-constraint.ts)
   */
  constructor(
    readonly frames: ReadonlyMap<string, FrameFlow>,
    readonly ownReprs = false,
    readonly programNames: ProgramNames = NO_NAMES,
    /** What lines decide of values, for the symbolic stepper (semantics/rules/). */
    values: Partial<ValueFacts> = {},
  ) {
    this.literals = values.literals ?? new Map();
    this.loops = values.loops ?? new Map();
    this.returnsLiteral = values.returnsLiteral ?? new Map();
    this.branches = values.branches ?? new Map();
    this.statements = values.statements ?? new Map();
    this.returned = values.returned ?? new Map();
    this.bindings = values.bindings ?? { modules: {}, names: {}, functions: {} };
    this.received = values.received ?? new Map();
    this.calls = values.calls ?? new Map();
    this.classes = values.classes ?? new Map();
    this.classLines = values.classLines ?? new Map();
    this.constants = values.constants ?? new Map();
    this.pureLines = values.pureLines ?? new Set();
    this.literalSpans = values.literalSpans ?? new Map();
    this.changes = values.changes ?? new Map();
    this.classState = values.classState ?? true;
    this.hidesCalls = values.hidesCalls ?? true;
    this.vanishes = values.vanishes ?? true;
  }

  /** Line -> the repr each name holds after it: a line that only assigns literals (`acc = []`), from control_flow.py. */
  readonly literals: ReadonlyMap<number, Readonly<Record<string, string>>>;
  /** Line -> the loops whose targets' next values a state tells (`for x in xs:`), from control_flow.py. */
  readonly loops: ReadonlyMap<number, readonly Loop[]>;
  /** Line -> the repr a line that is only `return LITERAL` returns (control_flow.py's `returns_literal`). */
  readonly returnsLiteral: ReadonlyMap<number, string>;
  /** Line -> the `if`/`elif`/`while` test a state decides there (control_flow.py's `branches`, semantics/rules/branch.ts). */
  readonly branches: ReadonlyMap<number, Branch>;
  /** Line -> the simple statement it is, which the walker may run on a state's values (control_flow.py's `statements`). */
  readonly statements: ReadonlyMap<number, Statement>;
  /** Line -> the source of EXPR on a line that is only `return EXPR` (control_flow.py's `returned`). */
  readonly returned: ReadonlyMap<number, string>;
  /** The imports and pure functions those expressions may call (control_flow.py's `imports` and `pure`). */
  readonly bindings: ProgramBindings;
  /** Line -> the name that holds a call's return value after it, or the line returns it (control_flow.py's `received`). */
  readonly received: ReadonlyMap<number, Received>;
  /** Line -> its one call of the program's, with the parameters' values as expressions of the caller's (control_flow.py's `calls`). */
  readonly calls: ReadonlyMap<number, CallSite>;
  /** Line -> the class body a `class` statement there enters first (control_flow.py's `classes`). */
  readonly classes: ReadonlyMap<number, string>;
  /** Class name -> the lines of its `class` statements: the only lines that run its body (control_flow.py's `class_lines`). */
  readonly classLines: ReadonlyMap<string, ReadonlySet<number>>;
  /** Module-level name bound once -> whether every use only reads it, and its literal (control_flow.py's `constants`). */
  readonly constants: ReadonlyMap<string, ModuleConstant>;
  /** The lines that change no object: a name they do not bind holds the same value after them (control_flow.py's `pure_lines`). */
  readonly pureLines: ReadonlySet<number>;
  /** Line -> the last line of a literal of `literals` whose other lines report events: it binds on a step that lands past them (control_flow.py's `literal_spans`). */
  readonly literalSpans: ReadonlyMap<number, number>;
  /** Line (with one call of the program's) -> the names it may change in place besides through that call (control_flow.py's `changes`). */
  readonly changes: ReadonlyMap<number, ReadonlySet<string>>;
  /** A class body binds a name to a value some local may also be (control_flow.py's `class_state`). */
  readonly classState: boolean;
  /** A line can run the program's code besides through its visible calls: a property, an operator of its classes (control_flow.py's `hides_calls`). */
  readonly hidesCalls: boolean;
  /** The program names what ends a process without an event (control_flow.py's `vanishes`). */
  readonly vanishes: boolean;

  /**
   * Whether a step forward from `prev` cannot end the run as it ends (normally or by an
   * uncaught exception): every frame has yet to return or to pass the exception on, each an
   * event (the outermost's return event comes before the end, an uncaught exception's too).
   * A run cut by a limit (`never`) may end anywhere.
   */
  runGoesOn(action: Action | null, prev: State | undefined): boolean {
    const step = action?.kind === 'step_into' || action?.kind === 'step_over' || action?.kind === 'step_return';
    // The outermost frame too, but for its return: the run ends right after it.
    return step && prev !== undefined && (prev.stack.length >= 2 || prev.event !== 'return') && !this.vanishes;
  }

  /** unboundBefore's answers, by frame name and line. */
  private readonly unbound = new Map<string, ReadonlySet<string>>();
  /** By frame name, the lines its first line event (after a call or a resumption) can reach. */
  private readonly reached = new Map<string, ReadonlySet<number>>();

  /** Compiles (never runs) the program; null when it does not compile. */
  static async of(source: string): Promise<ControlFlow | null> {
    const run = await runPythonHelper({ script: helperPath('control_flow.py', import.meta.url), input: source, timeoutMs: HELPER_TIMEOUT_MS });
    if (run.timedOut) throw new Error(`control_flow.py took longer than ${HELPER_TIMEOUT_MS / 1000} s`);
    const out = FlowSchema.parse(run.output);
    if (out.kind === 'error') return null;
    const frames = new Map<string, FrameFlow>();
    for (const [name, f] of Object.entries(out.frames)) {
      const next = new Map<number, Set<number>>();
      const prev = new Map<number, Set<number>>();
      for (const [from, tos] of Object.entries(f.next)) {
        const k = Number(from);
        next.set(k, new Set(tos));
        for (const to of tos) prev.set(to, (prev.get(to) ?? new Set()).add(k));
      }
      const byLine = (m: Record<string, string[]>) => new Map(Object.entries(m).map(([k, v]) => [Number(k), new Set(v)]));
      frames.set(name, {
        lines: new Set(f.lines),
        first: new Set(f.first),
        next,
        prev,
        returns: new Set(f.returns),
        valued: new Set(f.valued),
        resumes: new Set(f.resumes),
        starts: new Set(f.starts),
        codes: f.codes.map((c) => ({ first: c.first, lines: new Set(c.lines), starts: new Set(c.starts) })),
        stores: byLine(f.stores),
        storedAnywhere: new Set(Object.values(f.stores).flat()),
        loads: byLine(f.loads),
        shared: new Set(f.shared),
        raises: new Set(f.raises),
        params: f.params === null ? null : new Set(f.params),
        quiet: new Set(f.quiet),
        shown: f.shown === null ? null : new Set(f.shown),
        lineless: f.lineless,
      });
    }
    // Any `__repr__` frees the repr grammar; only one that may print a value as anything (not
    // `f"Node({self.key})"`) stops reading values off reprs.
    const ownReprs = source.includes('__repr__');
    const localsByCodeOnly = !out.own_reprs && out.frames_by_code;
    const literals = new Map(Object.entries(out.literals).map(([line, values]) => [Number(line), values] as const));
    const loops = new Map(Object.entries(out.loops).map(([line, found]) => [Number(line), found] as const));
    const returnsLiteral = new Map(Object.entries(out.returns_literal).map(([line, text]) => [Number(line), text] as const));
    const branches = new Map(Object.entries(out.branches).map(([line, branch]) => [Number(line), branch] as const));
    const statements = new Map(Object.entries(out.statements).map(([line, st]) => [Number(line), st] as const));
    const returned = new Map(Object.entries(out.returned).map(([line, value]) => [Number(line), value] as const));
    const bindings = { ...out.imports, functions: out.pure };
    const names = { unstable: new Set(out.unstable), directOnly: new Set(out.direct_only), localsByCodeOnly };
    const received = new Map(Object.entries(out.received).map(([line, r]) => [Number(line), r] as const));
    const calls = new Map(Object.entries(out.calls).map(([line, c]) => [Number(line), c] as const));
    const classes = new Map(Object.entries(out.classes).map(([line, name]) => [Number(line), name] as const));
    const classLines = new Map(Object.entries(out.class_lines).map(([name, lines]) => [name, new Set(lines)] as const));
    const constants = new Map(Object.entries(out.constants));
    const pureLines = new Set(out.pure_lines);
    const literalSpans = new Map(Object.entries(out.literal_spans).map(([line, end]) => [Number(line), end] as const));
    const changes = new Map(Object.entries(out.changes).map(([line, names]) => [Number(line), new Set(names)] as const));
    return new ControlFlow(frames, ownReprs, names, {
      literals, loops, returnsLiteral, branches, statements, returned, bindings, received, calls, classes, classLines, constants, pureLines, literalSpans, changes, classState: out.class_state, hidesCalls: out.hides_calls, vanishes: out.vanishes,
    });
  }

  /**
   * Whether a frame of `caller` on `line` can call `callee`: a function the program only calls
   * by name is called from a line that loads that name; anything else from anywhere.
   */
  canCall(caller: string, line: number, callee: string): boolean {
    const f = this.frames.get(caller);
    // A line none of whose instructions can raise runs no callee (`def f(x):`, `n = 0`).
    if (f && !f.raises.has(line)) return false;
    // A class body (a namespace of that name, no function's) runs only from its `class` statement.
    const body = this.frames.get(callee);
    if (body?.shown && callee !== '<module>' && this.classLines.has(callee)) return this.classLines.get(callee)!.has(line);
    if (!this.programNames.directOnly.has(callee)) return true;
    if (!f || f.loads.get(line)?.has(callee)) return true;
    // On its first line a frame may be running code without a line: any of its loads.
    return f.first.has(line) && [...f.loads.values()].some((names) => names.has(callee));
  }

  /** The lines a frame of this name can report (undefined: a name the program does not compile, e.g. a library's). */
  linesOf(name: string): ReadonlySet<number> | undefined {
    return this.frames.get(name)?.lines;
  }

  /** The lines an exception event of a frame of this name can report (undefined: not the program's). */
  raisesOf(name: string): ReadonlySet<number> | undefined {
    return this.frames.get(name)?.raises;
  }

  /**
   * The values a return event of `name` on a line that is only `return LITERAL` can carry:
   * that literal's repr, and None where an exception can pass through the line (undefined:
   * any value, not such a line).
   */
  returnValues(name: string, line: number): readonly string[] | undefined {
    const literal = this.returnsLiteral.get(line);
    const f = this.frames.get(name);
    if (literal === undefined || !f?.returns.has(line)) return undefined;
    return f.raises.has(line) ? [literal, 'None'] : [literal];
  }

  /** Whether a return event of `name` on `line` can carry a value other than None. */
  returnsValue(name: string, line: number): boolean {
    const f = this.frames.get(name);
    return !f || f.valued.has(line);
  }

  /**
   * The names a frame of `name` cannot have bound when it stops on `line` before running it
   * (a line event): names the function binds somewhere, but on no line that can run before
   * this one in the same call (a line the call's first line event can reach, and that can
   * reach `line` again), and that are neither parameters nor cell or free variables nor
   * declared global or nonlocal. So stepping back over `s = t[0]` unbinds `s` where no
   * earlier line can have bound it. A module or class body starts empty too: there the names
   * are its data (`shown`), less any another frame can bind (a function's `global`). Empty
   * where nothing is known: a line the graph does not reach, a program that can reach frames
   * by hand.
   */
  unboundBefore(name: string, line: number): ReadonlySet<string> {
    const f = this.frames.get(name);
    if (!f || (f.params === null && f.shown === null) || !this.programNames.localsByCodeOnly) return EMPTY_NAMES;
    const key = `${name}\u0000${line}`;
    const cached = this.unbound.get(key);
    if (cached) return cached;
    let reached = this.reached.get(name);
    if (!reached) this.reached.set(name, (reached = closure(f.starts, f.next)));
    const before = closure(f.prev.get(line) ?? EMPTY, f.prev);
    let out: ReadonlySet<string> = EMPTY_NAMES;
    if (reached.has(line)) {
      const mayBeBound = new Set([...(f.params ?? this.storedElsewhere(name)), ...f.shared, ...this.programNames.unstable]);
      for (const l of before) if (reached.has(l)) for (const n of f.stores.get(l) ?? []) mayBeBound.add(n);
      const names = f.shown ? [...f.storedAnywhere].filter((n) => f.shown!.has(n)) : f.storedAnywhere;
      out = new Set([...names].filter((n) => !mayBeBound.has(n)));
    }
    this.unbound.set(key, out);
    return out;
  }

  /**
   * The names a frame's first call event cannot show, where the program reaches frames only
   * by code: a module or class body's every name (it starts empty; `shown`); a function's
   * every name but its parameters and cell or free variables (not a generator's, whose call
   * event may be a resumption, with its locals bound).
   */
  unboundOnCall(name: string): ReadonlySet<string> {
    const f = this.frames.get(name);
    if (!f || !this.programNames.localsByCodeOnly) return EMPTY_NAMES;
    if (f.shown) return f.shown;
    if (!f.params || f.resumes.size > 0) return EMPTY_NAMES;
    const key = `${name}\u0000call`;
    let out = this.unbound.get(key);
    if (!out) this.unbound.set(key, (out = new Set([...f.storedAnywhere].filter((n) => !f.params!.has(n) && !f.shared.has(n)))));
    return out;
  }

  /**
   * The names a frame cannot hold after a step forward within it from a line event on `line`
   * whose state showed `before` (every name, none left out): only that line ran in the frame,
   * and only the frame's own code binds its names (the program reaches frames only by code),
   * so it holds no name but those and the line's stores, cell or free variables, and names
   * declared global or nonlocal (a namespace: also names another frame binds).
   */
  unboundAfter(name: string, line: number, before: readonly string[]): ReadonlySet<string> {
    const f = this.frames.get(name);
    if (!f || !this.programNames.localsByCodeOnly) return EMPTY_NAMES;
    const known = f.params ? [...f.params, ...f.storedAnywhere] : f.shown ? [...f.shown] : [];
    const mayBe = new Set([...before, ...(f.stores.get(line) ?? []), ...f.shared, ...this.programNames.unstable, ...(f.params ? [] : this.storedElsewhere(name))]);
    return new Set(known.filter((n) => !mayBe.has(n)));
  }

  /** Names a frame other than `name`'s binds: a namespace's names another frame can fill. */
  storedElsewhere(name: string): ReadonlySet<string> {
    const out = new Set<string>();
    for (const [other, f] of this.frames) if (other !== name) for (const n of f.storedAnywhere) out.add(n);
    return out;
  }

  /** Whether a frame text `f:1 g:2` names only lines its frames can report. */
  stackPossible(frames: readonly Frame[]): boolean {
    return frames.every((f) => this.linesOf(f.function)?.has(f.line) ?? true);
  }

  /**
   * Whether step_into from `prev` moves exactly as step_over does: from a return (both go on
   * to the caller's next event) or where no call can start before the frame's next event
   * (pdb's `s` on `s = 0` is its `n`).
   */
  stepIntoIsStepOver(prev: State): boolean {
    return prev.event === 'return' || headImpossible(this.landingByMoves({ kind: 'step_into' }, prev).call);
  }

  /**
   * Whether inv_step_into from `prev` moves exactly as inv_step_over does, its mirror: from
   * a call (both go back to the caller's line) or where no callee's return can come just
   * before (no line that can run before this one makes a call). Never from a `line_call`:
   * there inv_step_into goes into the callee, inv_step_over to the line.
   */
  invStepIntoIsInvStepOver(prev: State): boolean {
    if (prev.event === 'call') return true;
    return prev.event !== 'line_call' && headImpossible(this.landingByMoves({ kind: 'inv_step_into' }, prev).return);
  }

  /**
   * Where `action` from `prev` can land, head by head (a head not listed: free under lines by
   * frame). Exits are not constrained here.
   */
  landing(action: Action | null, prev: State | undefined): Landing {
    const landing: Landing = { ...this.landingByMoves(action, prev) };
    const own = prev?.stack[prev.stack.length - 1]?.function;
    if (own === undefined) return landing;
    // An exception only on a line that can raise (`acc = []`, `return n` cannot).
    if (landing.exception) landing.exception = this.keepLines(landing.exception, own, (f, line) => f.raises.has(line));
    // A step from a line event returns on that line only where the line returns: an exception
    // leaving the frame reports an exception event first (`def f(x):` at a module's top level never returns).
    if (landing.return && prev!.event === 'line' && (action?.kind === 'step_into' || action?.kind === 'step_over')) {
      landing.return = { bare: landing.return.bare && new Set([...landing.return.bare].filter((line) => this.frames.get(own)?.returns.has(line) ?? true)), stacks: landing.return.stacks };
    }
    // A callee's return goes back to a caller's line that returns only where that line returns.
    if (landing.return && prev!.event === 'return' && (action?.kind === 'step_into' || action?.kind === 'step_over' || action?.kind === 'step_return')) {
      landing.return = this.keepLines(landing.return, own, (f, line) => f.returns.has(line));
    }
    // `class C:` runs its body first: a step into from its line event enters it, on the class's line.
    const body = action?.kind === 'step_into' && prev!.event === 'line' && own !== this.classes.get(prev!.line) ? this.classes.get(prev!.line) : undefined;
    const entry = body === undefined ? undefined : stackText([...prev!.stack, { function: body, line: prev!.line }]);
    if (entry !== undefined && landing.call?.stacks?.has(entry)) {
      const none = { bare: EMPTY, stacks: new Set<string>() };
      return { line: none, exception: none, return: none, call: { bare: EMPTY, stacks: new Set([entry]) } };
    }
    // A line event never on a first line that carries only the preamble (`def f(n):`).
    for (const head of ['line', 'line_call'] as const) {
      const h = landing[head];
      if (h) landing[head] = this.keepLines(h, own, (f, line) => !f.quiet.has(line));
    }
    return landing;
  }

  /** A head's locations whose innermost frame and line pass `keep` (bare lines are of frame `own`, the innermost before the action). */
  private keepLines(h: HeadLanding, own: string, keep: (f: FrameFlow, line: number) => boolean): HeadLanding {
    const ok = (name: string, line: number) => {
      const f = this.frames.get(name);
      return f === undefined || keep(f, line);
    };
    const innermost = (stack: string) => {
      const last = stack.slice(stack.lastIndexOf(' ') + 1);
      const colon = last.lastIndexOf(':');
      return { name: last.slice(0, colon), line: Number(last.slice(colon + 1)) };
    };
    return {
      bare: h.bare && new Set([...h.bare].filter((line) => ok(own, line))),
      stacks: h.stacks && new Set([...h.stacks].filter((s) => { const f = innermost(s); return ok(f.name, f.line); })),
    };
  }

  private landingByMoves(action: Action | null, prev: State | undefined): Landing {
    if (!action || !prev) return {};
    const S = prev.stack;
    const n = S.length;
    const inner = S[n - 1]!;
    const f = this.frames.get(inner.function);
    const L = prev.line;
    const e = prev.event;
    const caller = n >= 2 ? S[n - 2]! : undefined;
    const c = caller ? this.frames.get(caller.function) : undefined;
    const base = S.slice(0, -2);
    const outer = S.slice(0, -1);
    if (!f || (caller && !c)) return {};
    const firstF = f.first;
    const union = (...sets: Iterable<number>[]) => {
      const out = new Set<number>();
      for (const s of sets) for (const x of s) out.add(x);
      return out;
    };
    const nextOf = (fl: FrameFlow, lines: Iterable<number>) => union(...[...lines].map((k) => fl.next.get(k) ?? EMPTY));
    const prevOf = (fl: FrameFlow, lines: Iterable<number>) => union(...[...lines].map((k) => fl.prev.get(k) ?? EMPTY));
    const stacks = (prefix: readonly Frame[], name: string, lines: Iterable<number>) => new Set([...lines].map((k) => stackText([...prefix, { function: name, line: k }])));
    /** Any function's frame (a call, or a callee's return) that the innermost frame of `prefix` can call. */
    const anyFrame = (prefix: readonly Frame[], which: (fl: FrameFlow) => Iterable<number>) => {
      const out = new Set<string>();
      const by = prefix[prefix.length - 1];
      for (const [name, fl] of this.frames) {
        if (name === '<module>' || (by && !this.canCall(by.function, by.line, name))) continue;
        for (const k of which(fl)) out.add(stackText([...prefix, { function: name, line: k }]));
      }
      return out;
    };
    const callsUnder = (prefixes: readonly (readonly Frame[])[]) => new Set(prefixes.flatMap((p) => [...anyFrame(p, (fl) => union(fl.first, fl.resumes))]));
    const returnsUnder = (prefixes: readonly (readonly Frame[])[]) => new Set(prefixes.flatMap((p) => [...anyFrame(p, (fl) => fl.lines)]));
    /** The frame `frame` of flow `fl` as a stack entry on each of `lines`. */
    const at = (prefix: readonly Frame[], frame: Frame, lines: Iterable<number>) => [...lines].map((k) => [...prefix, { function: frame.function, line: k }]);
    // A frame's own line, and its first line where it has code without a line (reported there).
    const here = (fl: FrameFlow, line: number) => (fl.lineless ? union([line], fl.first) : new Set([line]));
    // Lines before `line` in the frame, including every line when it is the first line (code without a line).
    const before = (fl: FrameFlow, line: number) => (fl.first.has(line) ? union(prevOf(fl, [line]), fl.lines) : prevOf(fl, [line]));

    switch (action.kind) {
      case 'step_into':
      case 'step_over': {
        if (e === 'return') {
          // After the module's return the run is over; after an entry function's, a finalizer may run.
          if (!caller || !c) return { line: NONE_HEAD, exception: NONE_HEAD, return: NONE_HEAD, call: inner.function === '<module>' ? NONE_HEAD : { bare: EMPTY, stacks: callsUnder([[]]) } };
          const cl = here(c, caller.line);
          return {
            line: { bare: EMPTY, stacks: stacks(base, caller.function, nextOf(c, [caller.line])) },
            exception: { bare: EMPTY, stacks: stacks(base, caller.function, cl) },
            return: { bare: EMPTY, stacks: stacks(base, caller.function, cl) },
            call: { bare: EMPTY, stacks: callsUnder(at(base, caller, cl)) },
          };
        }
        const fromLines = e === 'exception' ? union([L], firstF) : [L];
        // A first call (not a resumption) reports its first line event at one of `starts`.
        const fresh = e === 'call' && f.first.has(L) && !f.resumes.has(L);
        // A first call starts in the code object whose first line it reports (not another class's method of the name).
        const lineNext = fresh ? startsOf(f, L) : e === 'call' ? union(nextOf(f, fromLines), f.starts, f.resumes.has(L) ? [L] : []) : nextOf(f, fromLines);
        // A first call runs nothing before its first line event: no code of a line comes before it (lineless code only sets the frame up).
        if (fresh) return { line: { bare: lineNext, stacks: new Set() }, exception: NONE_HEAD, return: NONE_HEAD, call: NONE_HEAD };
        return {
          line: { bare: lineNext, stacks: new Set() },
          exception: { bare: here(f, L), stacks: new Set() },
          return: { bare: here(f, L), stacks: new Set() },
          call: action.kind === 'step_into' ? { bare: EMPTY, stacks: callsUnder(at(outer, inner, here(f, L))) } : NONE_HEAD,
        };
      }
      case 'step_return': {
        if (e !== 'return') return { return: { bare: EMPTY, stacks: stacks(outer, inner.function, ownLines(f, L)) } };
        if (!caller || !c) return { line: NONE_HEAD, exception: NONE_HEAD, return: NONE_HEAD, call: NONE_HEAD };
        const cl = here(c, caller.line);
        return {
          line: { bare: EMPTY, stacks: stacks(base, caller.function, nextOf(c, [caller.line])) },
          exception: { bare: EMPTY, stacks: stacks(base, caller.function, cl) },
          return: { bare: EMPTY, stacks: stacks(base, caller.function, cl) },
          call: NONE_HEAD,
        };
      }
      case 'inv_step_into':
      case 'inv_step_over':
      case 'inv_step_call': {
        const into = action.kind === 'inv_step_into';
        if (e === 'call' || action.kind === 'inv_step_call') {
          if (action.kind === 'inv_step_call' && e !== 'call') return { call: { bare: EMPTY, stacks: stacks(outer, inner.function, union(f.first, f.resumes)) } };
          if (!caller || !c) return { line: NONE_HEAD, line_call: NONE_HEAD, exception: NONE_HEAD, return: NONE_HEAD, call: NONE_HEAD };
          const cl = here(c, caller.line);
          const lineLines = c.first.has(caller.line) ? union(cl, c.lines) : cl;
          return {
            line: { bare: EMPTY, stacks: stacks(base, caller.function, lineLines) },
            line_call: { bare: EMPTY, stacks: stacks(base, caller.function, lineLines) },
            exception: { bare: EMPTY, stacks: stacks(base, caller.function, lineLines) },
            call: { bare: EMPTY, stacks: stacks(base, caller.function, union(c.first, c.resumes)) },
            // A sibling's return; one of the same name (recursion, a generator's last yield) is the same frame to the grammar.
            return: { bare: f.lines, stacks: returnsUnder(at(base, caller, cl)) },
          };
        }
        if (e === 'line_call') {
          if (!into) return { line: { bare: new Set([L]), stacks: new Set() }, line_call: NONE_HEAD, exception: NONE_HEAD, return: NONE_HEAD, call: NONE_HEAD };
          // The callee's last state: its return (or, in a run cut by a limit, any state of it: left free).
          return { return: { bare: EMPTY, stacks: returnsUnder(at(outer, inner, here(f, L))) } };
        }
        // A line, return or exception of f: the state before it in f, or a callee's return.
        const own = e === 'line' ? before(f, L) : f.first.has(L) ? union([L], f.lines) : new Set([L]);
        const ownExc = e === 'line' ? union(own, f.first) : own;
        const calleeLines = e === 'line' ? union(prevOf(f, [L]), f.first) : here(f, L);
        // The call comes just before a line only if that line can be the first a call (or a resumption) runs.
        const call = e !== 'line' || f.starts.has(L) ? { bare: EMPTY, stacks: stacks(outer, inner.function, union(f.first, f.resumes)) } : NONE_HEAD;
        return {
          line: { bare: own, stacks: new Set() },
          line_call: { bare: own, stacks: new Set() },
          exception: { bare: ownExc, stacks: new Set() },
          call,
          return: into ? { bare: EMPTY, stacks: returnsUnder(at(outer, inner, calleeLines)) } : NONE_HEAD,
        };
      }
      default:
        return {};
    }
  }
}

/**
 * Whether a frame of this name runs statements (a function's or the module's), not only an
 * expression (a comprehension, a generator expression, a lambda, reported on the line of the
 * statement they are in): the rules keyed by a statement's line (`branches`, `assigned`,
 * `returned`, `mutated`) are that statement's frame's only.
 */
export function runsStatements(fn: string): boolean {
  return fn === '<module>' || !fn.startsWith('<');
}

/** Whether a head has no location at all (so the head itself cannot come). */
/** The starts of the code objects whose first line is `first` (all the name's where none is). */
function startsOf(f: FrameFlow, first: number): ReadonlySet<number> {
  const own = f.codes.filter((c) => c.first === first);
  return own.length === 0 ? f.starts : new Set(own.flatMap((c) => [...c.starts]));
}

/** The lines of the code objects holding `line` (all the name's where none does). */
function ownLines(f: FrameFlow, line: number): ReadonlySet<number> {
  const own = f.codes.filter((c) => c.lines.has(line) || c.first === line);
  return own.length === 0 ? f.lines : new Set(own.flatMap((c) => [...c.lines, c.first]));
}

export function headImpossible(h: HeadLanding | undefined): boolean {
  return h !== undefined && h.bare !== undefined && h.bare.size === 0 && h.stacks !== undefined && h.stacks.size === 0;
}


/**
 * The state tree's forward moves, checked against the real pdb.
 *
 * Each program below is run twice: under our tracer (module top level, no entry, so depth 0
 * is `<module>`) to build a StateTree, and under `python3 -m pdb` driven by scripted
 * commands (evaluation/pdb-driver.ts). After every command, pdb's stop and the tree's landing must
 * agree on: the event (pdb shows `--Call--`, `--Return--`, an exception line, or a plain
 * location for a line event), the line, the function, the stack of the program's frames,
 * the return value or exception, and the locals.
 *
 * Alignment:
 *  - pdb's first stop is the module's first `line` event; the tree's node 0 is the module's
 *    `call` event, so both start at node 1.
 *  - pdb command -> tree move: step -> step_into, next -> step_over, return -> step_return,
 *    `break N` (set, continue, clear) -> breakpoint(N), continue -> continue,
 *    `until N` -> breakpoint(N) (only where the two coincide; see KNOWN_DIFFERENCES).
 *  - The program's end: pdb says "The program finished", enters post-mortem debugging on an
 *    uncaught exception, or (after a step past the module's return) stops in its own runner
 *    (`<string>`, bdb.py). All three are the tree's exit.
 *  - Locals: pdb's are filtered the way the tracer filters them (tracer.py, locals_of):
 *    no dunder names (pdb also stores `__return__`/`__exception__` there), no non-identifiers
 *    (a comprehension's `.0`), no modules, and in the module frame no functions or classes.
 *    Object addresses (`at 0x7f...`) differ between the two processes and are masked.
 *
 * Where pdb and the tree genuinely differ, the case is not in the asserted scripts but in
 * KNOWN_DIFFERENCES, which checks that the difference is still there (so the list stays
 * true). docs/pdb-semantics.md explains each one.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ForwardAction } from '../grammar/state.js';
import { StateTree, type Landing } from '../state-tree/tree.js';
import { traceFile } from '../tracer/run-tracer.js';
import { observePdb, type PdbCommand, type PdbObservation } from '../evaluation/pdb-driver.js';

// ---- the programs and their scripts -----------------------------------------------------------

interface Program {
  source: string;
  /** Each scenario starts from the module's first line. */
  scenarios: PdbCommand[][];
}

/** The line number of the one line of `source` that contains `text`. */
function at(source: string, text: string): number {
  const hits = source.split('\n').flatMap((l, i) => (l.includes(text) ? [i + 1] : []));
  if (hits.length !== 1) throw new Error(`"${text}" is on ${hits.length} lines of the program`);
  return hits[0]!;
}

const repeat = (n: number, command: PdbCommand): PdbCommand[] => new Array<PdbCommand>(n).fill(command);

const NESTED = `
def square(x):
    y = x * x
    return y

def add_squares(a, b):
    s = square(a)
    t = square(b)
    return s + t

def by_length(word):
    return len(word)

def main():
    total = add_squares(2, 3)
    words = sorted(['ccc', 'a', 'bb'], key=by_length)
    return total, words

result = main()
`.slice(1);

const LOOPS = `
def collatz_steps(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps

def main():
    counts = {}
    for start in range(1, 4):
        counts[start] = collatz_steps(start)
    best = max(counts, key=counts.get)
    return best

main()
`.slice(1);

const RECURSION = `
def fact(n):
    if n <= 1:
        return 1
    rest = fact(n - 1)
    return n * rest

def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)

def main():
    a = fact(3)
    b = fib(3)
    return a + b

main()
`.slice(1);

const EXCEPTIONS = `
def parse(text):
    if not text.isdigit():
        raise ValueError('not a number: ' + text)
    return int(text)

def parse_all(items):
    values = []
    for item in items:
        try:
            values.append(parse(item))
        except ValueError as err:
            values.append(-1)
    return values

def main():
    got = parse_all(['1', 'x', '3'])
    return sum(got)

total = main()
`.slice(1);

const UNCAUGHT = `
def check(n):
    if n > 1:
        raise RuntimeError('too deep')
    return check(n + 1)

def main():
    depth = 0
    check(depth)
    return depth

main()
`.slice(1);

const GENERATORS = `
def countdown(n):
    while n > 0:
        yield n
        n -= 1

def main():
    seen = []
    for value in countdown(2):
        seen.append(value)
    squares = [v * v for v in seen]
    evens = list(v for v in squares if v % 2 == 0)
    return squares, evens

main()
`.slice(1);

const LIBRARY = `
import statistics

def main():
    data = [1, 2, 3]
    m = statistics.mean(data)
    return m

main()
`.slice(1);

const PROGRAMS = {
  nested_calls: {
    source: NESTED,
    scenarios: [
      // Every event, one step at a time; the last step leaves the module (pdb: its runner).
      repeat(33, 'step'),
      [
        ...repeat(4, 'next'), // the module's def lines, to `result = main()`
        'step', // --Call-- main
        'next',
        'step', // --Call-- add_squares
        'next',
        'next', // over square(a)
        'step', // --Call-- square
        'return', // --Return-- square
        'return', // from --Return--: the caller's next stop
        'next', // --Return-- add_squares
        'next', // from --Return--: main's next line
        'step', // --Call-- by_length, called back from sorted()
        'next',
        'next', // --Return-- by_length
        'next', // from --Return--: like step, the next callback's --Call--
        'return',
        ...repeat(4, 'step'),
        'return', // --Return-- main
        'next', // --Return-- <module>
        'next', // the exit
      ],
      [`break ${at(NESTED, 'y = x * x')}`, 'next', 'next', 'next', `break ${at(NESTED, 'return len(word)')}`, 'return', 'continue'],
      [`break ${at(NESTED, 'return total, words')}`, 'step', 'step', 'step'],
      // A breakpoint on a def line is never hit again: calls have no line event there.
      [`break ${at(NESTED, 'result = main()')}`, `break ${at(NESTED, 'def by_length')}`],
      // return at a callback's --Return--: up to main, past the callbacks sorted() still makes.
      [`break ${at(NESTED, 'return len(word)')}`, 'next', 'return'],
    ],
  },
  loops: {
    source: LOOPS,
    scenarios: [
      [
        `break ${at(LOOPS, 'n = 3 * n + 1')}`,
        ...repeat(4, 'next'),
        `until ${at(LOOPS, 'return steps')}`, // out of the while loop
        'next',
        'next', // back in main's for loop
        'next',
        'next',
        'return',
        'next',
        'next', // the exit
      ],
      ['next', 'next', 'step', 'next', 'next', 'next', `until ${at(LOOPS, 'best = max')}`, 'step', 'return', 'continue'],
      ['next', 'next', 'step', ...repeat(5, 'next'), 'step', ...repeat(16, 'next')],
    ],
  },
  recursion: {
    source: RECURSION,
    scenarios: [
      [`break ${at(RECURSION, 'return 1')}`, 'return', 'return', 'next', 'next', 'return', 'step', 'step', 'return', 'return', 'next', 'next'],
      [`break ${at(RECURSION, 'return n if n < 2')}`, 'continue'],
      // return at fib(2)'s --Return--: up to fib(3)'s return, past its call of fib(1).
      [`break ${at(RECURSION, 'b = fib(3)')}`, ...repeat(5, 'step'), 'next', 'return', 'next', 'next', 'step', 'step', 'return'],
      [
        `break ${at(RECURSION, 'b = fib(3)')}`,
        ...repeat(5, 'step'), // down to fib(1)
        'next',
        'return',
        'next', // from fib(1)'s --Return--: fib(0)'s --Call--
        'next',
        'step',
        'step', // --Return-- fib(2)
        'next', // from --Return--: fib(1)'s --Call--, the second operand of fib(3)'s +
        'return',
        'return',
        'return',
        'continue',
      ],
    ],
  },
  exceptions: {
    source: EXCEPTIONS,
    scenarios: [
      // The raise, the exception event in parse, its return, the exception reaching
      // parse_all, the handler.
      [`break ${at(EXCEPTIONS, 'raise ValueError')}`, ...repeat(6, 'step'), ...repeat(6, 'next')],
      [`break ${at(EXCEPTIONS, 'raise ValueError')}`, ...repeat(5, 'next')],
      [`break ${at(EXCEPTIONS, 'values.append(parse(item))')}`, 'step', 'return', ...repeat(4, 'next'), ...repeat(5, 'return')],
      [`break ${at(EXCEPTIONS, 'raise ValueError')}`, 'return', 'return', 'next', `until ${at(EXCEPTIONS, 'return values')}`, 'step', 'next', 'next', 'next'],
    ],
  },
  uncaught: {
    source: UNCAUGHT,
    scenarios: [
      // Down to the raise, then the exception climbing frame by frame, out of the module.
      ['next', 'next', ...repeat(23, 'step')],
      ['next', 'next', 'next', 'step', 'step'],
      [`break ${at(UNCAUGHT, 'raise RuntimeError')}`, 'next', 'next', 'next', 'return', 'return', 'return', 'continue'],
      ['continue'],
    ],
  },
  generators: {
    source: GENERATORS,
    scenarios: [
      // Through the generator's resumptions (--Call--) and yields (--Return--), a list
      // comprehension and a generator expression.
      ['next', 'next', 'step', 'next', 'next', ...repeat(35, 'step')],
      [
        `break ${at(GENERATORS, 'seen.append(value)')}`,
        'step',
        'step', // --Call-- countdown: the for loop resumes it
        'next', // from the resumption's --Call--: its next line
        'next',
        'next', // on the yield (a `next` from here is a known difference)
        'step', // --Return-- countdown: the yield
        ...repeat(3, 'next'),
        `until ${at(GENERATORS, 'return squares')}`,
      ],
      [`break ${at(GENERATORS, 'squares = [')}`, 'step', ...repeat(5, 'next'), 'step', 'next', 'step', 'next', 'next', 'step'],
      [`break ${at(GENERATORS, 'yield n')}`, 'continue'],
    ],
  },
  library_call: {
    source: LIBRARY,
    scenarios: [['next', 'next', 'step', ...repeat(6, 'next')]],
  },
} satisfies Record<string, Program>;

// ---- known differences ------------------------------------------------------------------------

interface KnownDifference {
  program: keyof typeof PROGRAMS;
  /** Every command agrees but the last, where pdb and the tree part ways. */
  script: PdbCommand[];
  /** Where each one lands after the last command (see `landmark`). */
  pdb: string;
  tree: string;
  why: string;
}

/** Cases where the real pdb and the tree's move disagree; docs/pdb-semantics.md tells each. */
const KNOWN_DIFFERENCES: Record<string, KnownDifference> = {
  until_stops_at_the_first_line_at_or_after_n: {
    program: 'loops',
    script: [`break ${at(LOOPS, 'n = 3 * n + 1')}`, 'next', 'next', `until ${at(LOOPS, 'n = 3 * n + 1')}`],
    pdb: 'line <module>:18 > main:14 > collatz_steps:8', // n is even this time: line 7 is skipped, 8 is >= 7
    tree: 'line <module>:18 > main:14 > collatz_steps:7', // line 7 itself, an iteration later
    why: 'until N stops at the first line >= N of the current frame; breakpoint(N) waits for line N itself.',
  },
  until_is_frame_local: {
    program: 'recursion',
    script: [`break ${at(RECURSION, 'rest = fact(n - 1)')}`, `until ${at(RECURSION, 'return n * rest')}`],
    pdb: 'line <module>:15 > main:11 > fact:5', // in fact(3), after the whole recursion
    tree: 'line <module>:15 > main:11 > fact:4 > fact:5', // in fact(2), the first frame to reach line 5
    why: 'until N only stops in the frame it was given in (or at its return); breakpoint(N) stops at any depth.',
  },
  next_on_a_yield_follows_the_generator: {
    program: 'generators',
    script: [`break ${at(GENERATORS, 'yield n')}`, 'next'],
    pdb: 'line <module>:14 > main:8 > countdown:4', // n -= 1, once the for loop resumes the generator
    tree: 'return <module>:14 > main:8 > countdown:3', // the yield: the generator's return event
    why: "pdb ignores a generator's return events under next: it stops at the generator's next line, whenever it is resumed.",
  },
  next_at_the_end_of_a_generator_runs_to_the_exit: {
    program: 'generators',
    script: [`break ${at(GENERATORS, 'squares = [')}`, 'next', 'step', 'next', 'step', 'next', 'next', 'step', 'next'],
    pdb: 'exit', // the generator expression is never resumed again: nothing stops pdb
    tree: 'return <module>:14 > main:11 > <genexpr>:11',
    why: 'The same rule at the last line of a generator: its final return is ignored too, and the frame it waits for is gone.',
  },
  return_in_a_generator_runs_to_the_exit: {
    program: 'generators',
    script: [`break ${at(GENERATORS, 'yield n')}`, 'return'],
    pdb: 'exit',
    tree: 'return <module>:14 > main:8 > countdown:3',
    why: "In a generator frame pdb's return only stops at a StopIteration raised in Python code; a for loop raises none.",
  },
  step_enters_library_code: {
    program: 'library_call',
    script: ['next', 'next', 'step', 'next', 'next', 'step'],
    pdb: 'outside statistics.py',
    tree: 'line <module>:8 > main:6',
    why: "pdb steps into any Python code, the standard library's included; the tracer records only the program's frames.",
  },
};

// ---- comparing ----------------------------------------------------------------------------------

type View =
  | { at: 'exit'; kind?: string }
  | { at: 'outside'; file: string; function: string }
  | { at: 'stop'; event: string; function: string; line: number; stack: string[]; locals: Record<string, string>; value?: string };

const maskAddresses = (repr: string) => repr.replace(/ at 0x[0-9a-f]+/g, ' at 0x…');

/** pdb's runner: a stop there means the module has returned. */
const PDB_RUNNER = /^<string>$|\/bdb\.py$/;

function pdbView(obs: PdbObservation): View {
  if (obs.at === 'exit') return { at: 'exit', kind: obs.kind };
  if (obs.at === 'outside') return PDB_RUNNER.test(obs.file) ? { at: 'exit' } : { at: 'outside', file: obs.file, function: obs.function };
  const namespace = obs.function === '<module>';
  const locals: Record<string, string> = {};
  for (const l of obs.locals) {
    if (l.name.startsWith('__') || !/^[A-Za-z_]\w*$/.test(l.name) || l.kind === 'module') continue;
    if (namespace && l.kind === 'def') continue;
    locals[l.name] = maskAddresses(l.repr);
  }
  return {
    at: 'stop',
    event: obs.event,
    function: obs.function,
    line: obs.line,
    stack: obs.stack.map((f) => `${f.function}:${f.line}`),
    locals,
    ...(obs.value === undefined ? {} : { value: maskAddresses(obs.value) }),
  };
}

function treeView(tree: StateTree, landing: Landing, pdbSide: View): View {
  if ('exit' in landing) {
    // A stop in pdb's runner does not say how the program ended.
    return pdbSide.at === 'exit' && pdbSide.kind === undefined ? { at: 'exit' } : { at: 'exit', kind: landing.exit.kind };
  }
  const s = tree.states[landing.node]!;
  const locals: Record<string, string> = {};
  for (const [name, repr] of Object.entries(s.locals)) locals[name] = maskAddresses(repr);
  return {
    at: 'stop',
    event: s.event,
    function: s.stack[s.stack.length - 1]!.function,
    line: s.line,
    stack: s.stack.map((f) => `${f.function}:${f.line}`),
    locals,
    ...(s.value === undefined ? {} : { value: maskAddresses(s.value) }),
  };
}

/** A stop in short: `event` and the stack, or `exit`, or `outside FILE`. */
function landmark(view: View): string {
  if (view.at === 'exit') return 'exit';
  if (view.at === 'outside') return `outside ${view.file.split('/').pop()}`;
  return `${view.event} ${view.stack.join(' > ')}`;
}

function actionOf(command: PdbCommand, lines: readonly string[]): ForwardAction {
  const [name, arg] = command.split(' ');
  switch (name) {
    case 'step':
      return { kind: 'step_into' };
    case 'next':
      return { kind: 'step_over' };
    case 'return':
      return { kind: 'step_return' };
    case 'continue':
      return { kind: 'continue' };
    case 'break':
    case 'until': {
      const line = Number(arg);
      return { kind: 'breakpoint', line, source: lines[line - 1] ?? '' };
    }
  }
  throw new Error(`unknown pdb command ${command}`);
}

// ---- the tests ----------------------------------------------------------------------------------

const dir = mkdtempSync(join(tmpdir(), 'ndb-pdb-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function runBoth(name: string, source: string, scenarios: PdbCommand[][]) {
  // A prefix no standard-library module has: the file's directory goes first on sys.path.
  const file = join(dir, `prog_${name}.py`);
  writeFileSync(file, source);
  const [trace, observed] = await Promise.all([traceFile({ file }), observePdb(file, scenarios)]);
  const tree = new StateTree(trace);
  expect(tree.states[0]).toMatchObject({ event: 'call', stack: [{ function: '<module>' }] });
  expect(tree.states[1]).toMatchObject({ event: 'line', stack: [{ function: '<module>' }] });
  return { tree, observed };
}

/** Replays a script on the tree next to pdb's stops; returns both views after each command. */
function replay(tree: StateTree, script: readonly PdbCommand[], observed: { start: PdbObservation; after: PdbObservation[] }) {
  const start = pdbView(observed.start);
  expect(start).toMatchObject({ at: 'stop', line: tree.states[1]!.line, function: '<module>' });
  let landing: Landing = { node: 1 };
  return script.map((command, i) => {
    // Past the exit the tree stays there (and pdb, which is somewhere, will not match it).
    if (!('exit' in landing)) landing = tree.forward(landing.node, actionOf(command, tree.trace.lines));
    const pdb = pdbView(observed.after[i]!);
    return { command, pdb, tree: treeView(tree, landing, pdb) };
  });
}

describe('the state tree agrees with pdb', () => {
  for (const [name, program] of Object.entries(PROGRAMS)) {
    const differences = Object.entries(KNOWN_DIFFERENCES).filter(([, d]) => d.program === name);
    it(name, async () => {
      const { tree, observed } = await runBoth(name, program.source, [...program.scenarios, ...differences.map(([, d]) => d.script)]);

      program.scenarios.forEach((script, k) => {
        replay(tree, script, observed[k]!).forEach(({ command, pdb, tree: ours }, i) => {
          expect(pdb, `${name}, scenario ${k}, command ${i} (${command})`).toEqual(ours);
        });
      });

      differences.forEach(([id, d], j) => {
        const steps = replay(tree, d.script, observed[program.scenarios.length + j]!);
        const last = steps.pop()!;
        for (const [i, { command, pdb, tree: ours }] of steps.entries()) {
          expect(pdb, `${id}: command ${i} (${command}) should still agree`).toEqual(ours);
        }
        expect({ pdb: landmark(last.pdb), tree: landmark(last.tree) }, `${id}: ${d.why}`).toEqual({ pdb: d.pdb, tree: d.tree });
        expect(last.pdb).not.toEqual(last.tree);
      });
    });
  }

  it('the scripts use every pdb command', () => {
    const used = new Set(Object.values(PROGRAMS).flatMap((p) => p.scenarios.flat().map((c) => c.split(' ')[0])));
    expect([...used].sort()).toEqual(['break', 'continue', 'next', 'return', 'step', 'until']);
  });
});

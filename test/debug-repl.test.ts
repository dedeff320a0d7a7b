/**
 * `ndb debug`, the pdb look-alike: scripted sessions through a pipe, as a user would script
 * pdb (`ndb debug … < commands`).
 *
 * The sessions on the shipped model check structure and consistency, never particular
 * predicted values (the model may be wrong; the debugger must still be coherent): every stop
 * names a line of the file and a function of the program with that line's text, `list` and
 * `where` agree with the stop, `p` prints a value or one clear error, breakpoints on blank
 * lines are refused and the session goes on, and the process exits 0. One session runs on the
 * real tracer as its predictor instead, in process, where every value is known and the output
 * can be checked exactly. Bad input at launch gives one `ndb: error:` line and exit code 2.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { DebugRepl } from '../cli/debug-repl.js';
import { NeuralRuntime } from '../adapter/runtime.js';
import { TracerPredictor } from '../evaluation/tracer-predictor.js';
import { COUNT_PY, COUNT_SOURCE, EMBEDDED_MODEL, HAS_EMBEDDED_MODEL, modelContext, ROOT } from './fixtures.js';

const NDB = join(ROOT, 'bin', 'ndb.js');
const EXAMPLE_LINES = COUNT_SOURCE.split('\n');
const FUNCTIONS = ['count', 'is_match'];
const PROMPT = '(ndb) ';
/** A loaded two-core machine: model loading, Python helpers and ~100 predictions per session. */
const SESSION_TIMEOUT_MS = 150_000;

const dir = mkdtempSync(join(tmpdir(), 'ndb-debug-'));

function ndbDebug(args: string[], commands: string[] | string) {
  const input = typeof commands === 'string' ? commands : commands.map((c) => c + '\n').join('');
  const r = spawnSync(process.execPath, [NDB, 'debug', ...args], { input, encoding: 'utf8', timeout: SESSION_TIMEOUT_MS });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The output of each command: chunk 0 is the launch, chunk k the k-th command's (prompts are not echoed). */
function chunks(stdout: string): string[] {
  return stdout.split(PROMPT).map((c) => c.replace(/\n$/, ''));
}

const LOCATION = /^(> |  )(.+)\((\d+)\)([^()]+)\(\)(->.*)?$/;

/** Every location line names the program, a line of it and one of its functions, followed by that line's text. */
function expectConsistentStops(output: string): number {
  const lines = output.split('\n');
  let stops = 0;
  lines.forEach((line, i) => {
    const m = LOCATION.exec(line);
    if (!m) return;
    stops++;
    const [, , path, n, fn] = m as unknown as [string, string, string, string, string];
    expect(path).toBe(COUNT_PY);
    expect(Number(n)).toBeGreaterThanOrEqual(1);
    expect(Number(n)).toBeLessThanOrEqual(10);
    // A function of the program, or a frame Python names in angle brackets (the grammar allows those too).
    expect(FUNCTIONS.includes(fn) || /^<\w+>$/.test(fn), fn).toBe(true);
    expect(lines[i + 1]).toBe(`-> ${EXAMPLE_LINES[Number(n) - 1]!.trim()}`);
  });
  return stops;
}

/** A command that moves: it shows a stop, or the predicted end. */
function expectStopOrEnd(chunk: string): void {
  const stopped = chunk.split('\n').some((l) => l.startsWith('> '));
  const ended = /^The program finished( \(predicted\))?: count (returned|raised|did not end)/m.test(chunk);
  expect(stopped || ended, chunk).toBe(true);
}

/** `name = repr   (tag)` lines, the tag a percentage or a provenance. */
function expectLocals(chunk: string): void {
  const lines = chunk.split('\n').filter((l) => !l.startsWith('(the run has ended') && !l.startsWith('verify:'));
  expect(lines.length).toBeGreaterThan(0);
  for (const line of lines) expect(line).toMatch(/^(\(no locals\)|[\w.]+ = .*\((\d+%|decided: [\w-]+|your input|set by you|unchanged|missing|real run)\)(   real: .*)?|\(the prediction leaves out .*\))$/);
}

describe.skipIf(!HAS_EMBEDDED_MODEL)('ndb debug on the shipped model', () => {
  const ARGS = [COUNT_PY, '--entry', 'count', '--args', "'berry', 'r'"];

  it('runs a scripted session: steps, breakpoints, p, locals, where, list, back, rc, set, until, return, resample, help', () => {
    const script = [
      's', // 1
      'n', // 2
      'b 8', // 3
      'b', // 4
      'c', // 5
      'p s', // 6
      'p no_such_name', // 7
      'locals', // 8
      'w', // 9
      'l', // 10
      'back', // 11
      'rc', // 12
      'restart', // 13
      "set s = 'cherry'", // 14
      'locals', // 15
      'n', // 16
      'n', // 17
      'set n = 5', // 18
      'n', // 19
      'unt', // 20
      'r', // 21
      'resample', // 22
      'b 3', // 23
      'b', // 24
      'cl 1', // 25
      'b', // 26
      'foo', // 27
      '', // 28: repeats foo
      'help', // 29
      'help s', // 30
      'll', // 31
      'pp s', // 32
      'unt 2', // 33
      'q', // 34
    ];
    const r = ndbDebug(ARGS, script);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = chunks(r.stdout);
    expect(out).toHaveLength(script.length + 1);
    expect(out.at(-1)).toBe(''); // q: nothing after the last prompt
    expect(expectConsistentStops(out.join('\n'))).toBeGreaterThanOrEqual(10);

    // The launch: the entry's call, with the user's arguments.
    expect(out[0]).toContain(`--Call--\n> ${COUNT_PY}(5)count()\n-> def count(s, t):\n   s = 'berry', t = 'r'   [your input]`);
    for (const k of [1, 2, 5, 11, 12, 13, 16, 17, 19, 20, 21, 22]) expectStopOrEnd(out[k]!);
    // A new prediction says so, with its latency; a stop seen before says it is replayed.
    expect(out[1]).toMatch(/\[predicted, \d+ ms, state \d+%\]$/);

    expect(out[3]).toBe(`Breakpoint 1 at ${COUNT_PY}:8`);
    expect(out[4]).toBe(`Num Type         Disp Enb   Where\n1   breakpoint   keep yes   at ${COUNT_PY}:8`);
    expect(out[6]!.split('\n')).toHaveLength(1);
    expect(out[6]).not.toBe('');
    expect(out[7]).toBe("*** NameError: name 'no_such_name' is not defined");
    expectLocals(out[8]!);

    // where: outermost first, the current frame last and marked.
    const where = out[9]!.split('\n');
    expect(where.length % 2).toBe(0);
    expect(where.at(-2)).toMatch(/^> /);
    where.forEach((line, i) => expect(line).toMatch(i % 2 === 0 ? LOCATION : /^-> /));

    // list: consecutive numbered lines around the stop, the breakpoint marked B.
    const listed = out[10]!.split('\n').filter((l) => l !== '[EOF]');
    const numbers = listed.map((l) => Number(/^\s*(\d+)/.exec(l)?.[1]));
    numbers.forEach((n, i) => expect(n).toBe(numbers[0]! + i));
    expect(listed.filter((l) => /^\s*\d+ [ B]->\t/.test(l))).toHaveLength(1);
    expect(listed.find((l) => /^\s+8 /.test(l))).toMatch(/^\s+8 B/);

    // restart, then a what-if on the user's own argument.
    expect(out[13]).toMatch(new RegExp(`^Restarting ${COUNT_PY} at count\\('berry', 'r'\\)\\n--Call--\\n> `));
    expect(out[14]).toBe("s = 'cherry'   (set by you: what follows is predicted from it)");
    expect(out[15]).toMatch(/^s = 'cherry'\s+\(set by you\)$/m);
    expectLocals(out[15]!);
    // n exists only if the model predicted it: the edit takes, or says why not.
    expect(out[18]).toMatch(/^(n = 5   \(set by you: what follows is predicted from it\)|\*\*\* (no variable 'n' in \w+ at this stop|the run has ended.*))$/);

    expect(out[23]).toBe('*** line 3 is a blank line: no stop can happen there');
    expect(out[24]).toBe(`Num Type         Disp Enb   Where\n1   breakpoint   keep yes   at ${COUNT_PY}:8`);
    expect(out[25]).toBe(`Deleted breakpoint 1 at ${COUNT_PY}:8`);
    expect(out[26]).toBe('No breakpoints.');
    expect(out[27]).toMatch(/^\*\*\* unknown command "foo"/);
    expect(out[28]).toBe(out[27]);
    for (const usage of ['s(tep)', 'n(ext)', 'r(eturn)', 'c(ont(inue))', 'unt(il)', 'b(reak)', 'cl(ear)', 'back', 'rc', 'pp expression', 'l(ist)', 'll', 'w(here)', 'locals', 'set name = value', 'resample', 'restart', 'q(uit)']) {
      expect(out[29]).toContain(usage);
    }
    expect(out[30]).toMatch(/^s\(tep\)\n {8}Step into/);
    // longlist: the whole of one function (or an error if the run has ended before any stop).
    const ll = out[31]!.split('\n');
    expect(ll[0]).toMatch(/^\s+(1|5)  \tdef /);
    expect(out[32]).not.toBe('');
    // until a line before the current one is refused, as pdb does (or it is the end).
    expect(out[33]).toMatch(/^(\*\*\* "until" line number is smaller than current line number|The program finished|> |--)/);
  });

  it('ends on EOF like pdb, and keeps the session usable after the predicted end', () => {
    const r = ndbDebug(ARGS, ['c', 'p s', 'locals', 'back', 'c', 's']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = chunks(r.stdout);
    expectConsistentStops(out.join('\n'));
    expect(out).toHaveLength(8);
    expect(out[7]).toBe(''); // EOF: the last prompt's line ended, nothing more
    expect(out[1]).toMatch(/^The program finished \(predicted\): count (returned|raised|did not end).*\(confidence \d\.\d\d\)\n {3}\(back or rc/);
    expect(out[2]).not.toBe('');
    expect(out[3]).toMatch(/^\(the run has ended: the locals of its last stop\)\n/);
    expectStopOrEnd(out[4]!);
    expect(out[4]).not.toMatch(/^The program finished/);
    expect(out[5]).toMatch(/^The program finished \(predicted\)/);
    expect(r.stdout.endsWith(PROMPT + '\n')).toBe(true);
  });

  it('flags what the model got wrong in verify mode', () => {
    const r = ndbDebug([...ARGS, '--verify'], ['s', 's', 's', 'locals', 'c', 'q']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = chunks(r.stdout);
    expectConsistentStops(out.join('\n'));
    expect(out[0]).toMatch(/--verify runs it once/);
    expectLocals(out[4]!);
    // The end: either the model's value is the real one (2), or verify says what the real one is.
    const end = /^The program finished \(predicted\): count (.*) \(confidence/m.exec(out[5]!);
    expect(end).not.toBeNull();
    if (end![1] !== 'returned 2') expect(out[5]).toContain('verify: the real run returned 2');
  });

  it("pdb's breakpoint, frame and jump commands through a pipe on the model: each answers as pdb does, whatever the model predicts", () => {
    const r = ndbDebug(ARGS, ['b 9, n >= 0', 'tbreak 8', 'condition 1', 'ignore 1 0', 'b', 'display n', 'c', 'w', 'u', 'd', 'a', 'retval', 'j 6', 'unt', 'display', 'undisplay n', 'q']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = chunks(r.stdout);
    expectConsistentStops(out.join('\n'));
    expect(out[1]).toBe(`Breakpoint 1 at ${COUNT_PY}:9`);
    expect(out[2]).toBe(`Breakpoint 2 at ${COUNT_PY}:8`);
    expect(out[3]).toBe('Breakpoint 1 is now unconditional.');
    expect(out[4]).toBe('Will stop next time breakpoint 1 is reached.');
    expect(out[5]).toMatch(/^Num Type {9}Disp Enb {3}Where\n1 {3}breakpoint {3}keep yes {3}at .*:9\n2 {3}breakpoint {3}del  yes {3}at .*:8$/);
    expect(out[6]).toMatch(/^display n: /);
    expectStopOrEnd(out[7]!);
    for (const chunk of out.slice(8, 16)) expect(chunk).not.toMatch(/internal error/);
    expect(out[9]).toMatch(/^(\*\*\* Oldest frame|> )/);
    expect(out[10]).toMatch(/^(\*\*\* Newest frame|> )/);
    expect(out[12]).toMatch(/^(\*\*\* Not yet returned!|.+)$/);
    expect(out[15]).toMatch(/^Currently displaying:/);
  });

  it('debugs on the int8 model when asked (--precision int8)', () => {
    const r = ndbDebug([COUNT_PY, '--entry', 'count', '--args', "'rr', 'r'", '--precision', 'int8'], ['s', 'n', 'q']);
    expect(r.code).toBe(0);
    expect(expectConsistentStops(chunks(r.stdout).join("\n"))).toBe(3);
  });

  it('debugs a module top level', () => {
    const r = ndbDebug([join(ROOT, 'examples', 'shapes.py')], ['n', 'w', 'q']);
    expect(r.code).toBe(0);
    expect(chunks(r.stdout)[0]).toContain('> ' + resolve(ROOT, 'examples', 'shapes.py') + '(1)<module>()');
  });
});

/** test/fixtures/long_module.py: 804 lines, entries near the end, callees hundreds of lines above. */
const LONG = resolve(ROOT, 'test', 'fixtures', 'long_module.py');
const LONG_LINES = readFileSync(LONG, 'utf8').split('\n');
const longLine = (text: string) => LONG_LINES.findIndex((l) => l.startsWith(text)) + 1;

/** Every stop names the long file, one of its lines and that line's own text. */
function expectFileStops(output: string): number {
  let stops = 0;
  output.split('\n').forEach((line, i, lines) => {
    const m = LOCATION.exec(line);
    if (!m) return;
    stops++;
    expect(m[2]).toBe(LONG);
    const n = Number(m[3]);
    expect(n).toBeGreaterThanOrEqual(1);
    expect(n).toBeLessThanOrEqual(LONG_LINES.length);
    // The source line follows the location (a return's `->VALUE` on the location line is its value, not the source).
    const arrow = lines[i + 1]?.startsWith('-> ') ? lines[i + 1] : undefined;
    if (arrow) expect(arrow.slice(3)).toBe(LONG_LINES[n - 1]!.trim());
  });
  return stops;
}

describe.skipIf(!HAS_EMBEDDED_MODEL)('ndb debug on a long file (the cut)', () => {
  it("debugs a function of an 804-line file with the file's line numbers; a breakpoint outside the cut is refused with the reason", () => {
    const r = ndbDebug([LONG, '--entry', 'summarize', '--args', "['Banana', 'kiwi']"], ['w', 'll', 'b 50', `b ${longLine('        total += points')}`, 's', 'n', 'c', 'q']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = chunks(r.stdout);
    const def = longLine('def summarize');
    expect(def).toBeGreaterThan(600);
    expect(out[0]).toContain(`> ${LONG}(${def})summarize()\n-> def summarize(words):`);
    expect(out[1]).toContain(`> ${LONG}(${def})summarize()`);
    // ll: the entry's own lines, numbered as in the file.
    const ll = out[2]!.split('\n');
    expect(ll[0]).toMatch(new RegExp(`^${def}\\s+->\\s*def summarize\\(words\\):$`));
    expect(ll).toHaveLength(9);
    expect(ll.at(-1)).toMatch(new RegExp(`^${def + 8}\\s+return tally.best\\(\\), total$`));
    expect(out[3]).toBe('*** line 50 is in histogram, which summarize does not reach (the model sees the cut to summarize\'s scope): no predicted stop can happen there');
    expect(out[4]).toBe(`Breakpoint 1 at ${LONG}:${longLine('        total += points')}`);
    expect(expectFileStops(out.join('\n'))).toBeGreaterThanOrEqual(4);
  });

  it('says once how the cut shrank a scope too big to show whole', () => {
    const r = ndbDebug([LONG, '--entry', 'report', '--args', "['kiwi']"], ['b 45', 'n', 'n', 'q']);
    expect(r.code).toBe(0);
    const notes = r.stdout.split('\n').filter((l) => l.startsWith('the program is cut to'));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/^the program is cut to report's scope for the model: callees cut to signatures: .*histogram/);
    expect(chunks(r.stdout)[1]).toBe('*** line 45 is in the body of histogram, which the model sees cut to its signature: no predicted stop can happen there');
    expectFileStops(r.stdout);
  });
});

describe.skipIf(!HAS_EMBEDDED_MODEL)('ndb debug: bad input at launch', () => {
  const syntaxFile = join(dir, 'bad.py');
  writeFileSync(syntaxFile, 'def f(:\n    pass\n');
  it.each([
    ['a syntax error', [syntaxFile, '--entry', 'f', '--args', '1'], /SyntaxError at line 1/],
    ['an unknown entry', [COUNT_PY, '--entry', 'nope', '--args', '1'], /no function named 'nope'.*is_match, count/],
    ['arguments that are not literals', [COUNT_PY, '--entry', 'count', '--args', 'open("x")'], /not a Python literal/],
    ['an entry without arguments', [COUNT_PY, '--entry', 'count'], /needs its arguments: --args .* or --infer-args/],
    ['both --args and --infer-args', [COUNT_PY, '--entry', 'count', '--args', '1', '--infer-args'], /either --args or --infer-args/],
    ['a missing model folder', [COUNT_PY, '--entry', 'count', '--args', "'a', 'b'", '--model', join(dir, 'no-model')], /no model folder at/],
    ['a missing program', [join(dir, 'missing.py')], /cannot read the program/],
    ['a bad --samples', [COUNT_PY, '--samples', 'many'], /--samples must be a positive integer/],
    ['an unknown --precision', [COUNT_PY, '--precision', 'fp16'], /unknown precision "fp16": use fp32 or int8/],
  ])('%s: one clear line, exit code 2', (_name, args, pattern) => {
    const r = ndbDebug(args, ['q']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^ndb: error: /);
    expect(r.stderr).toMatch(pattern);
  });

  it('an entry too long for the model even cut to its scope: one clear line naming the sizes, exit code 2', () => {
    const file = join(dir, 'long.py');
    writeFileSync(file, ['def f(x):', ...Array.from({ length: 400 }, (_, i) => `    x = x + ${i}`), '    return x', ''].join('\n'));
    const r = ndbDebug([file, '--entry', 'f', '--args', '1'], ['q']);
    expect(r.code).toBe(2);
    const context = modelContext(EMBEDDED_MODEL);
    expect(r.stderr).toMatch(
      new RegExp(
        `^ndb: error: the program is too long for the model, even cut to f's scope: f alone takes \\d+ tokens \\(with all it reaches, \\d+\\), ` +
          `more than the ${context - 256 - 192} the model has for the program \\(its context holds ${context} tokens, 256 kept for the frame and 192 for the states before it\\)\n$`,
      ),
    );
  });
});

/** The REPL in process, on the real tracer as its predictor: every state is the real one. */
async function tracerSession(commands: string[]): Promise<string[]> {
  const input = new PassThrough();
  const output = new PassThrough();
  let text = '';
  output.on('data', (d: Buffer) => (text += d.toString('utf8')));
  const repl = new DebugRepl(new NeuralRuntime(new TracerPredictor()), { input, output });
  await repl.launch({ program: COUNT_PY, entry: 'count', args: "'berry', 'r'" });
  input.end(commands.map((c) => c + '\n').join(''));
  await repl.run();
  if (process.env.NDB_TEST_SHOW) process.stdout.write(text);
  return chunks(text);
}

describe('ndb debug on the real run (the tracer as predictor)', () => {
  it('prints exactly what pdb would, plus the provenance line', async () => {
    const out = await tracerSession(['b 9', 'c', 'p n', 'p c', 'p n + 10', 'pp s', 'locals', 'w', 'l', 'a', 'c', 'rc', 'p n', 's', 's', 's', 'retval', 'r', 'locals', 'unt', 'c', 'cl', 'c', 'q']);
    expect(out[1]).toBe(`Breakpoint 1 at ${COUNT_PY}:9`);
    expect(out[2]).toBe(`> ${COUNT_PY}(9)count()\n-> n += 1\n   s = 'berry', t = 'r', n = 0, c = 'r'   [real run; breakpoint 1]`);
    expect(out.slice(3, 7)).toEqual(['0', "'r'", '10', "'berry'"]);
    expect(out[7]).toBe("s = 'berry'   (real run)\nt = 'r'       (real run)\nn = 0         (real run)\nc = 'r'       (real run)");
    expect(out[8]).toBe(`> ${COUNT_PY}(9)count()\n-> n += 1`);
    expect(out[9]).toBe(
      ['  4  \t', '  5  \tdef count(s, t):', '  6  \t    n = 0', '  7  \t    for c in s:', '  8  \t        if is_match(c, t):', '  9 B->\t            n += 1', ' 10  \t    return n', '[EOF]'].join('\n'),
    );
    expect(out[10]).toBe("s = 'berry'\nt = 'r'");
    expect(out[11]).toMatch(/^> .*\(9\)count\(\)\n-> n \+= 1\n {3}s = 'berry', t = 'r', n = 1, c = 'r'/); // the second 'r'
    expect(out[12]).toBe(out[2]); // rc: back to the first hit
    expect(out[13]).toBe('0');
    expect(out[16]).toBe(`--Call--\n> ${COUNT_PY}(1)is_match()\n-> def is_match(c, t):\n   c = 'r', t = 'r'   [real run]`);
    expect(out[17]).toBe('*** Not yet returned!');
    expect(out[18]).toMatch(/^--Return--\n> .*\(2\)is_match\(\)->True\n-> return c == t\n/);
    expect(out[19]).toBe("c = 'r'             (real run)\nt = 'r'             (real run)\n__return__ = True   (real run)");
    expect(out[20]).toMatch(/^> .*\(9\)count\(\)\n-> n \+= 1\n {3}s = 'berry', t = 'r', n = 1, c = 'r'   \[real run\]$/); // unt: out of the call
    // No 'r' after this one: continue runs to the end of the real run.
    expect(out[21]).toBe('The program finished: count returned 2\n   (back or rc to step back into the run, restart to predict it again, q to quit)');
    expect(out[22]).toBe(`Deleted breakpoint 1 at ${COUNT_PY}:9`);
    expect(out[23]).toBe('The program finished: count returned 2');
    expect(out[24]).toBe('');
  });
});

describe("ndb debug's pdb commands for breakpoints, frames and jumps (the tracer as predictor)", () => {
  it('b with a condition, condition, ignore, tbreak, display, w/u/d, a, retval, j', async () => {
    const out = await tracerSession([
      'b 8, c == "r"', // 1
      'c', // 2
      'p c', // 3
      'condition 1 c == "y"', // 4
      'b', // 5
      'c', // 6
      'condition 1', // 7
      'ignore 1 1', // 8
      'restart', // 9
      'c', // 10
      'p c', // 11
      'cl 1', // 12
      'tbreak 9', // 13
      'c', // 14
      'b', // 15
      'display n', // 16
      'n', // 17
      's', // 18
      's', // 19
      'u', // 20
      'p n', // 21
      'a', // 22
      'w', // 23
      'u', // 24
      'd', // 25
      'd', // 26
      'r', // 27
      'retval', // 28
      'j 6', // 29
      'n', // 30
      'j 6', // 31
      'p n', // 32
      'display', // 33
      'b 9, c ==', // 34
      'condition 7 x', // 35
      'ignore 1 x', // 36
      'q',
    ]);
    expect(out[1]).toBe(`Breakpoint 1 at ${COUNT_PY}:8`);
    expect(out[2]).toMatch(/^> .*\(8\)count\(\)\n-> if is_match\(c, t\):\n {3}.*c = 'r'.*\[real run; breakpoint 1\]$/);
    expect(out[3]).toBe("'r'");
    expect(out[4]).toBe('New condition set for breakpoint 1.');
    expect(out[5]).toBe(['Num Type         Disp Enb   Where', `1   breakpoint   keep yes   at ${COUNT_PY}:8`, '\tstop only if c == "y"', '\tbreakpoint already hit 1 time'].join('\n'));
    expect(out[6]).toMatch(/c = 'y'/);
    expect(out[7]).toBe('Breakpoint 1 is now unconditional.');
    expect(out[8]).toBe('Will ignore next 1 crossing of breakpoint 1.');
    // A restart counts hits afresh: the ignore passes the first reach ('b'), it stops at 'e'.
    expect(out[11]).toBe("'e'");
    expect(out[12]).toBe(`Deleted breakpoint 1 at ${COUNT_PY}:8`);
    expect(out[13]).toBe(`Breakpoint 2 at ${COUNT_PY}:9`);
    expect(out[14]).toMatch(new RegExp(`^Deleted breakpoint 2 at ${COUNT_PY}:9\\n> .*\\(9\\)count\\(\\)\\n-> n \\+= 1`));
    expect(out[15]).toBe('No breakpoints.');
    expect(out[16]).toBe('display n: 0');
    expect(out[17]).toMatch(/\(7\)count\(\)[\s\S]*\ndisplay n: 1 {2}\[old: 0\]$/);
    expect(out[18]).not.toMatch(/display/);
    expect(out[19]).toMatch(/^--Call--\n> .*\(1\)is_match\(\)/);
    expect(out[20]).toBe(`> ${COUNT_PY}(8)count()\n-> if is_match(c, t):`);
    expect(out[21]).toBe('1');
    expect(out[22]).toBe("s = 'berry'\nt = 'r'");
    expect(out[23]).toBe([`> ${COUNT_PY}(8)count()`, '-> if is_match(c, t):', `  ${COUNT_PY}(1)is_match()`, '-> def is_match(c, t):'].join('\n'));
    expect(out[24]).toBe('*** Oldest frame');
    expect(out[25]).toBe(`> ${COUNT_PY}(1)is_match()\n-> def is_match(c, t):`);
    expect(out[26]).toBe('*** Newest frame');
    expect(out[27]).toMatch(/^--Return--\n> .*\(2\)is_match\(\)->True/);
    expect(out[28]).toBe('True');
    expect(out[29]).toBe('*** cannot jump to line 6: it is in function count, not in is_match (a jump stays in the current frame)');
    expect(out[30]).toMatch(/\(9\)count\(\)/);
    expect(out[31]).toMatch(/^> .*\(6\)count\(\)\n-> n = 0\n.*jumped to line 6, the values kept/);
    expect(out[32]).toBe('1');
    expect(out[33]).toBe('Currently displaying:\nn: 1');
    expect(out[34]).toMatch(/^\*\*\* the condition "c ==" does not parse: SyntaxError/);
    expect(out[35]).toBe('*** Breakpoint number 7 out of range');
    expect(out[36]).toBe('*** Breakpoint number 1 out of range');
  });
});

describe("ndb debug's tab completion", () => {
  it('completes command names, then predicted names and a value\'s attributes', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const repl = new DebugRepl(new NeuralRuntime(new TracerPredictor()), { input, output });
    await repl.launch({ program: COUNT_PY, entry: 'count', args: "'berry', 'r'" });
    expect(await repl.complete('con')).toEqual([['condition', 'cont', 'continue'], 'con']);
    expect(await repl.complete('p ')).toEqual([expect.arrayContaining(['s', 't', 'len', 'sorted']), '']);
    expect(await repl.complete('p s.up')).toEqual([['upper'], 'up']);
    expect(await repl.complete('display len(t.st')).toEqual([['startswith', 'strip'], 'st']);
    expect(await repl.complete('p nothing.x')).toEqual([[], 'x']);
    await repl.runtime.close();
  });
});

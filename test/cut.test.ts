/**
 * The cut (program-analysis/cut.ts, cut.py): which definitions a cut keeps, the line map both
 * ways, breakpoints outside the scope, callees cut to their signatures, a scope too large,
 * module entries, and the data pipeline's cut of a traced run. The budget is the shipped
 * model's own (its tokenizer, the context NeuralPredictor leaves for the program) unless a
 * test needs a tighter one. The fixture test/fixtures/long_module.py (804 lines) has its
 * entries near the end, their callees hundreds of lines above, among unrelated code.
 */
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { excerptTrace } from '../data-pipeline/excerpt.js';
import { serializeContext } from '../grammar/serialize.js';
import type { State } from '../grammar/state.js';
import { CUT_GAP, type CutBudget, CutError, cutInfo, cutProgram } from '../program-analysis/cut.js';
import { loadModelFolder, loadTokenizer } from '../model-client/model-folder.js';
import { NeuralPredictor, programRoom } from '../model-client/neural-predictor.js';
import { programInfo } from '../program-analysis/program-info.js';
import { sourceLines } from '../python/source.js';
import { traceFile } from '../tracer/run-tracer.js';
import { EMBEDDED_MODEL } from './fixtures.js';

const FIXTURE = join(import.meta.dirname, 'fixtures', 'long_module.py');
const SOURCE = readFileSync(FIXTURE, 'utf8');
const FILE = sourceLines(SOURCE);
/** The file line of the first line that starts with `text`. */
const lineOf = (text: string) => FILE.findIndex((l) => l.startsWith(text)) + 1;

let measure: (text: string) => number;
/** NeuralPredictor's: the model's positions less what is kept for the frame and the states before it. */
let MODEL_LIMIT: number;
const budget = (limit = MODEL_LIMIT): CutBudget => ({ measure, limit, unit: 'tokens' });

beforeAll(async () => {
  const folder = await loadModelFolder(EMBEDDED_MODEL);
  const tokenizer = await loadTokenizer(folder);
  measure = (text) => tokenizer.encode(serializeContext(text)).length;
  MODEL_LIMIT = programRoom(folder.config.max_position_embeddings);
});

describe('what the entry reaches (cut.py)', () => {
  it('a function entry: its callees, their imports and constants, the class it names; nothing else', async () => {
    const info = await cutInfo(SOURCE, 'summarize');
    if (info.kind !== 'ok') throw new Error(info.message);
    const reached = Object.fromEntries(info.units.filter((u) => u.depth !== null).map((u) => [u.name, u.depth]));
    expect(reached).toMatchObject({ summarize: 0, score: 1, Tally: 1, 'Tally.__init__': 2, 'Tally.add': 2, 'Tally.best': 2, normalize: 2, vowel_count: 2, LIMIT: 2, math: 2, VOWELS: 3, Counter: 3 });
    for (const name of ['re', 'UNUSED_TABLE', 'filler_0', 'Tally.unused_report', 'shout', 'report', 'Unused0', 'histogram']) expect(reached).not.toHaveProperty(name);
    expect(FILE.length).toBeGreaterThan(600);
  });

  it('a method entry keeps its class (header, class attributes, __init__) and the methods it calls', async () => {
    const info = await cutInfo(SOURCE, 'Tally.add');
    if (info.kind !== 'ok') throw new Error(info.message);
    const reached = info.units.filter((u) => u.depth !== null).map((u) => u.name);
    expect(reached).toEqual(expect.arrayContaining(['Tally', 'Tally.<body>', 'Tally.__init__', 'Tally.add', 'Counter']));
    for (const name of ['Tally.best', 'Tally.unused_report', 'score', 'summarize']) expect(reached).not.toContain(name);
  });

  it('an unknown entry or a syntax error is a clear CutError', async () => {
    await expect(cutProgram(SOURCE, 'nope', { budget: budget() })).rejects.toThrow(/no function named 'nope' to cut the program to; functions defined: normalize, vowel_count/);
    await expect(cutProgram('def f(:\n', 'f', { budget: budget() })).rejects.toThrow(CutError);
  });
});

describe('the cut and its line map', () => {
  it('keeps the reachable definitions whole when they fit, in file order, with the file text', async () => {
    const cut = await cutProgram(SOURCE, 'summarize', { budget: budget() });
    expect(cut.whole).toEqual(['math', 'Counter', 'VOWELS', 'LIMIT', 'normalize', 'vowel_count', 'score', 'Tally', 'Tally.__init__', 'Tally.add', 'Tally.best', 'summarize']);
    expect(cut.signatures).toEqual([]);
    expect(cut.note).toBeNull();
    expect(cut.size).toBeLessThanOrEqual(MODEL_LIMIT);
    expect(cut.size).toBe(measure(cut.text));
    const lines = sourceLines(cut.text);
    expect(lines.length).toBeLessThan(80);
    expect(lines).toContain(CUT_GAP);
    expect(cut.text).not.toContain('filler_');
    expect(cut.text).not.toContain('import re');
    expect(cut.text).not.toContain('def unused_report');
    // Both ways: each copied line is the file's line, and comes back to itself.
    lines.forEach((text, i) => {
      const f = cut.fileLine(i + 1)!;
      expect(cut.cutLine(f)).toBe(i + 1);
      // A gap stands for the first line it leaves out, which the model does not see.
      if (text === CUT_GAP) return expect(cut.sees(f)).toBe(false);
      expect(text).toBe(FILE[f - 1]);
      expect(cut.sees(f)).toBe(true);
    });
    expect(cut.fileLine(lines.indexOf(CUT_GAP) + 1)).toBe(3); // import re, between import math and Counter
    const def = lineOf('def summarize');
    expect(def).toBe(779);
    expect(lines[cut.cutLine(def)! - 1]).toBe('def summarize(words):');
    expect(cut.cutLine(lineOf('def score'))).toBeLessThan(cut.cutLine(def)!);
    // What the entry never reaches has no line in the cut, and says why.
    const filler = lineOf('def filler_3');
    expect(cut.cutLine(filler)).toBeUndefined();
    expect(cut.sees(filler)).toBe(false);
    expect(cut.whyHidden(filler + 2)).toBe(`line ${filler + 2} is in filler_3, which summarize does not reach (the model sees the cut to summarize's scope): no predicted stop can happen there`);
    // The cut compiles: the model sees valid Python.
    expect((await programInfo(cut.text)).kind).toBe('ok');
  });

  it('states cross the map both ways (line, stack, source)', async () => {
    const cut = await cutProgram(SOURCE, 'summarize', { budget: budget() });
    const inScore = lineOf('    clean = normalize(word)');
    const inSummarize = lineOf('        points = score(word)');
    const fileState: State = { event: 'line', line: inScore, source: FILE[inScore - 1]!.trim() ? FILE[inScore - 1]! : '', stack: [{ function: 'summarize', line: inSummarize }, { function: 'score', line: inScore }], locals: { word: "'kiwi'" } };
    const modelState = cut.stateToCut(fileState);
    expect(modelState.line).toBe(cut.cutLine(inScore));
    expect(modelState.line).toBeLessThan(60);
    expect(modelState.stack.map((f) => f.line)).toEqual([cut.cutLine(inSummarize), cut.cutLine(inScore)]);
    expect(modelState.source).toBe('    clean = normalize(word)');
    expect(cut.stateToFile(modelState, FILE)).toEqual(fileState);
    // A state on a line the model does not see cannot be shown to it.
    expect(() => cut.stateToCut({ ...fileState, line: lineOf('def filler_3') + 2 })).toThrow(/filler_3, which summarize does not reach/);
  });

  it('a method entry: the class with __init__ and the method, compiled', async () => {
    const cut = await cutProgram(SOURCE, 'Tally.add', { budget: budget() });
    expect(cut.whole).toEqual(['Counter', 'Tally', 'Tally.__init__', 'Tally.add']);
    expect(cut.text).toContain('class Tally:\n    """Counts scores by word."""\n\n    kind = "tally"\n\n    def __init__(self):');
    expect(cut.text).not.toContain('def best');
    expect((await programInfo(cut.text)).kind).toBe('ok');
  });

  it('a scope that does not fit: the farthest callees cut to signature and docstring, said once', async () => {
    const cut = await cutProgram(SOURCE, 'report', { budget: budget() });
    expect(cut.size).toBeLessThanOrEqual(MODEL_LIMIT);
    // The nearest bodies stay: report's own and summarize's (depth 1, small).
    expect(cut.whole).toContain('report');
    expect(cut.whole).toContain('summarize');
    expect(cut.signatures).toEqual(expect.arrayContaining(['histogram', 'table_rows', 'format_row', 'score', 'normalize']));
    expect(cut.note).toBe(`the program is cut to report's scope for the model: callees cut to signatures: ${cut.signatures.join(', ')}`);
    const lines = sourceLines(cut.text);
    // histogram: its signature and docstring, then `...` for the body.
    const def = cut.cutLine(lineOf('def histogram'))!;
    expect(lines.slice(def - 1, def + 2)).toEqual(['def histogram(words):', '    """A long helper (histogram) that report uses, far above it."""', '    ...']);
    // The `...` stands for the body's first line; a breakpoint there or deeper has no stop.
    const body = lineOf('def histogram') + 2;
    expect(cut.fileLine(def + 2)).toBe(body);
    expect(cut.sees(body)).toBe(false);
    expect(cut.sees(body + 5)).toBe(false);
    expect(cut.whyHidden(body + 5)).toBe(`line ${body + 5} is in the body of histogram, which the model sees cut to its signature: no predicted stop can happen there`);
    expect(cut.sees(lineOf('    best, total = summarize(words)'))).toBe(true);
    expect((await programInfo(cut.text)).kind).toBe('ok');
  });

  it('tighter still: the farthest units are left out; the entry alone too large is an error naming the sizes', async () => {
    const tight = await cutProgram(SOURCE, 'summarize', { budget: budget(150) });
    expect(tight.size).toBeLessThanOrEqual(150);
    expect(tight.leftOut.length).toBeGreaterThan(0);
    expect(tight.whole).toContain('summarize');
    expect(tight.note).toMatch(/left out to fit: /);
    await expect(cutProgram(SOURCE, 'summarize', { budget: budget(60) })).rejects.toThrow(
      /^the program is too long for the model, even cut to summarize's scope: summarize alone takes \d+ tokens \(with all it reaches, \d+\), more than the 60 the model has for the program$/,
    );
  });

  it('module entries: the statements up to the first stop asked for, or the longest prefix that fits', async () => {
    const stop = lineOf('def vowel_count') + 1;
    const cut = await cutProgram(SOURCE, null, { budget: budget(), stopLine: stop });
    expect(cut.text).toBe(FILE.slice(0, lineOf('def vowel_count') + 5).join('\n') + '\n');
    expect(cut.cutLine(stop)).toBe(stop);
    expect(cut.sees(lineOf('def histogram'))).toBe(false);
    expect(cut.whyHidden(lineOf('def histogram'))).toMatch(/is past line 35, where the model's view of the program ends/);
    const longest = await cutProgram(SOURCE, null, { budget: budget() });
    expect(longest.size).toBeLessThanOrEqual(MODEL_LIMIT);
    expect(longest.note).toMatch(/^the program is cut to the first statements for the model: the model sees lines 1-\d+ of 804$/);
    await expect(cutProgram(SOURCE, null, { budget: budget(), stopLine: lineOf('def report') + 2 })).rejects.toThrow(/^the module's statements up to line 792 \(lines 1-796\) take \d+ tokens, more than the 576/);
  });
});

describe('a model that declares the program length it trained on (config.json ndb.program_tokens)', () => {
  const copies: string[] = [];
  afterAll(() => {
    for (const dir of copies) rmSync(dir, { recursive: true, force: true });
  });

  /**
   * A copy of the embedded model (removed after the tests) whose config.json declares
   * `programTokens`, the manifest rewritten to match; its onnx/ is a link to the embedded one's
   * (40 MB not copied).
   */
  function declaring(programTokens: number): string {
    const root = mkdtempSync(join(tmpdir(), 'ndb-model-'));
    copies.push(root);
    const dir = join(root, 'model');
    cpSync(EMBEDDED_MODEL, dir, { recursive: true, filter: (src) => src !== join(EMBEDDED_MODEL, 'onnx') });
    symlinkSync(join(EMBEDDED_MODEL, 'onnx'), join(dir, 'onnx'));
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    const text = JSON.stringify({ ...config, ndb: { ...config.ndb, program_tokens: programTokens } });
    writeFileSync(join(dir, 'config.json'), text);
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    manifest.files['config.json'] = { sha256: createHash('sha256').update(text).digest('hex'), size: Buffer.byteLength(text) };
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
    return dir;
  }

  it('the inference cut holds the program to it where the context would hold more', async () => {
    const whole = await NeuralPredictor.load(EMBEDDED_MODEL);
    const held = await NeuralPredictor.load(declaring(150));
    const tooShort = await NeuralPredictor.load(declaring(60));
    try {
      await whole.show(SOURCE, 'summarize');
      expect(whole.programCut()!.size).toBeGreaterThan(150);
      expect(whole.programCut()!.leftOut).toEqual([]);
      await held.show(SOURCE, 'summarize');
      expect(held.programCut()!.size).toBeLessThanOrEqual(150);
      expect(held.programCut()!.leftOut.length).toBeGreaterThan(0);
      await expect(tooShort.show(SOURCE, 'summarize')).rejects.toThrow(
        /more than the 60 the model has for the program \(95% of the programs it was trained on are within 60 tokens\)$/,
      );
    } finally {
      await Promise.all([whole.release(), held.release(), tooShort.release()]);
    }
  });
});

describe('the data pipeline cuts a traced run with the same module', () => {
  it('the excerpt is the entry\'s cut, every line the run touched kept whole, events renumbered into it', async () => {
    const traced = await traceFile({ file: FIXTURE, entry: 'summarize', args: "['Banana', 'kiwi']" });
    // A budget the touched functions alone exceed: they stay whole all the same (the tokenizer step drops what is too long).
    const trace = await excerptTrace(traced, 'summarize', budget(150));
    const cut = await cutProgram(SOURCE, 'summarize', { budget: budget(150), keepLines: traced.events.map((e) => e.line), smallestIfTooLarge: true });
    expect(trace.program).toBe(cut.text);
    expect(cut.signatures).toEqual([]);
    expect(trace.program).toContain('            n += 1');
    expect(trace.program).not.toContain('import re');
    expect(trace.events.length).toBe(traced.events.length);
    const lines = sourceLines(trace.program);
    trace.events.forEach((e, i) => {
      const real = traced.events[i]!;
      expect(cut.fileLine(e.line)).toBe(real.line);
      expect(lines[e.line - 1]).toBe(FILE[real.line - 1]);
      expect(e.stack.map((f) => cut.fileLine(f.line))).toEqual(real.stack.map((f) => f.line));
    });
  });
});

describe('a stdlib module as the data pipeline cuts it', () => {
  it('textwrap.dedent: the excerpt fits its character budget or holds only what ran, and every event points at its own text', async () => {
    const traced = await traceFile({ file: '/usr/lib/python3.11/textwrap.py', entry: 'dedent', args: "'    a\\n      b\\n'" });
    const trace = await excerptTrace(traced, 'dedent');
    expect(trace.program.length).toBeLessThan(traced.program.length / 4);
    expect(trace.program).toContain('def dedent(text):');
    expect(trace.program).not.toContain('class TextWrapper');
    // dedent alone (its docstring is long) is over the budget: the cut is what ran, nothing more.
    expect(trace.program).not.toContain('_whitespace_only_re = ');
    // With room, the module constants it uses come too.
    const roomy = await excerptTrace(traced, 'dedent', { measure: (t) => t.length, limit: 4000, unit: 'characters' });
    expect(roomy.program).toMatch(/^import re\n# \.\.\.\n_whitespace_only_re = /);
    const lines = sourceLines(trace.program);
    trace.events.forEach((e, i) => expect(lines[e.line - 1]).toBe(traced.lines[traced.events[i]!.line - 1]));
    expect((await programInfo(trace.program)).kind).toBe('ok');
  });
});

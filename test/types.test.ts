/**
 * Types from pyright (program-analysis/types.ts, semantics/rules/typed.ts): the facts on small
 * programs, the decoder refusing a repr of the wrong type for a typed local, and, on real runs,
 * every value a line event shows having the shape of the type the checker gave it (a type fact
 * must never refuse a real value). NDB_TYPES_PROGRAMS=N checks N programs of the generated and
 * benchmark corpora besides the pdb corpus (default 24).
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { loadCorpus } from '../data-pipeline/corpora/index.js';
import type { ProgramSpec } from '../data-pipeline/program.js';
import { generateSemanticsProgram } from '../data-pipeline/semantics.js';
import { generateSyntheticProgram } from '../data-pipeline/synthetic.js';
import { checkTree, feedText } from '../evaluation/control-flow-check.js';
import type { State } from '../grammar/state.js';
import { TOKENS as L } from '../grammar/tokens.js';
import { truncateRepr } from '../grammar/truncate.js';
import { FrameConstraint } from '../model-client/frame-constraint.js';
import { FrameNames } from '../model-client/loc-constraint.js';
import { typeRule } from '../model-client/value-rules.js';
import { ControlFlow } from '../program-analysis/control-flow.js';
import { attachTypes, programTypes, pyTypes } from '../program-analysis/types.js';
import { sourceLines } from '../python/source.js';
import { parseRuleSelection } from '../semantics/rule.js';
import { StateTree } from '../state-tree/tree.js';
import { traceSource } from '../tracer/run-tracer.js';
import { oracle } from './oracle.js';

const PROGRAM = [
  'import nosuchlib_for_ndb', //                  1
  'class Stock:', //                              2
  '    def __init__(self, n):', //                3
  '        self.n = n', //                        4
  'class Loud:', //                               5
  '    def __repr__(self):', //                   6
  '        return "loud"', //                     7
  'def f(x, xs, k=0):', //                        8
  '    y = float(x)', //                          9
  '    xs.append(y)', //                          10
  '    out = []', //                              11
  '    out.append(y)', //                         12
  "    d = {'a': 1, 'b': 2}", //                  13
  '    s = Stock(2)', //                          14
  '    loud = Loud()', //                         15
  '    r = nosuchlib_for_ndb.get(x)', //          16
  '    n: int = len(out)', //                     17
  '    t = (n, str(y))', //                       18
  '    m = None if n else 1', //                  19
  '    return y', //                              20
  '',
].join('\n');
/** The same lines, no class with a repr of its own (where one prints as it likes, no rule reads values: Step.byCode). */
const PLAIN = PROGRAM.replace('def __repr__(self):', 'def speak(self):');
const lines = sourceLines(PLAIN);

describe('type facts from pyright', () => {
  it('a float(...) is a float, a list stays a list after append, a dict literal, a class instance; no fact from an unknown import or a parameter', { timeout: 120_000 }, async () => {
    const types = await programTypes(PROGRAM);
    const at = (line: number, name: string) => types.at('f', line)?.get(name);
    expect(at(10, 'y')).toEqual(['float']);
    expect(at(13, 'out')).toEqual(['list']);
    expect(at(14, 'd')).toEqual(['dict']);
    expect(at(15, 's')).toEqual(['object']);
    // A class with its own __repr__ prints as it likes: no fact.
    expect(at(16, 'loud')).toBeUndefined();
    expect(at(17, 'r')).toBeUndefined();
    // `n: int = len(out)`: the value's type, not the declaration's.
    expect(at(18, 'n')).toEqual(['int']);
    expect(at(19, 't')).toEqual(['tuple']);
    expect(new Set(at(20, 'm'))).toEqual(new Set(['none', 'int']));
    // Parameters are what callers pass: never typed, a default notwithstanding.
    for (const p of ['x', 'xs', 'k']) expect(at(10, p)).toBeUndefined();
    // A loop's header runs again from the body's end: no fact there.
    const loop = await programTypes('def g(xs):\n    total = 0\n    for x in xs:\n        total = total + 0.5\n    return total\n');
    expect(loop.at('g', 3)).toBeUndefined();
  });

  it("reads pyright's types only where certain", () => {
    const classes = new Set(['Stock']);
    expect(pyTypes('Literal[0]', classes)).toEqual(['int']);
    expect(pyTypes("Literal['a|b', 'c']", classes)).toEqual(['str']);
    expect(pyTypes('Unbound | dict[str, list[int]]', classes)).toEqual(['dict']);
    expect(pyTypes('Stock | None', classes)).toEqual(['object', 'none']);
    for (const t of ['Unknown', 'Any', 'int | Unknown', 'Response', 'type[Stock]', 'Literal[Color.RED]', "Literal[b'x']", 'list[int] | Response', 'Never']) expect(pyTypes(t, classes), t).toBeUndefined();
  });

  it('nothing where pyright cannot read the program', async () => {
    expect((await programTypes('def f(:\n')).size).toBe(0);
  });
});

describe('the decoder under a type fact', () => {
  it('refuses a repr of the wrong type for a typed local, and lets through every repr of the right one', { timeout: 120_000 }, async () => {
    const flow = (await ControlFlow.of(PLAIN))!;
    attachTypes(flow, await programTypes(PLAIN));
    const prev: State = { event: 'line', line: 17, source: lines[16]!, stack: [{ function: 'f', line: 17 }], locals: { x: "'2'", xs: '[2.0]', y: '2.0', out: '[2.0]' } };
    const over = { kind: 'step_over' } as const;
    // The type family alone: no rule decides the value itself.
    const rules = parseRuleSelection('type');
    const allowed = async (locals: Record<string, string>) => {
      const c = new FrameConstraint({ action: over, lines, names: FrameNames.ofProgram(lines), prevFunction: 'f', oracle: await oracle(flow, over, prev, {}, rules) });
      const text = `${L.lineSep}${L.locSep}18${L.argSep}${JSON.stringify({ '..': '..', ...locals }).replace(/":"/g, '": "').replace(/","/g, '", "')}${L.srcSep}${lines[17]}${L.actionSep}`;
      return feedText(c, text) && c.done;
    };
    expect(await allowed({ n: '1' })).toBe(true);
    expect(await allowed({ n: 'True' })).toBe(true);
    expect(await allowed({ n: "'1'" })).toBe(false);
    expect(await allowed({ n: '1.0' })).toBe(false);
    expect(await allowed({ n: '[1]' })).toBe(false);
    expect(await allowed({ y: '2.5' })).toBe(true);
    expect(await allowed({ y: "'2.5'" })).toBe(false);
    expect(await allowed({ out: '[2.0, 3]' })).toBe(true);
    expect(await allowed({ out: '(2.0,)' })).toBe(false);
    expect(await allowed({ s: '<__main__.Stock object at 0x…>' })).toBe(true);
    expect(await allowed({ s: '3' })).toBe(false);
    // Without the type family, anything a repr may be.
    const free = new FrameConstraint({ action: over, lines, names: FrameNames.ofProgram(lines), prevFunction: 'f', oracle: await oracle(flow, over, prev, {}, parseRuleSelection('control-flow')) });
    expect(feedText(free, `${L.lineSep}${L.locSep}18${L.argSep}{"..": "..", "n": "'1'"}${L.srcSep}${lines[17]}${L.actionSep}`) && free.done).toBe(true);
  });
});

/** `per` programs of each source: synthetic, semantics, HumanEval, MBPP (as test/control-flow.test.ts's soundness check). */
async function programs(per: number): Promise<ProgramSpec[]> {
  const out: ProgramSpec[] = [];
  for (let i = 0; i < per; i++) out.push(generateSyntheticProgram(3, i), generateSemanticsProgram(3, i));
  for (const origin of ['humaneval', 'mbpp'] as const) {
    const specs = await loadCorpus(origin).catch(() => []);
    const step = Math.max(1, Math.floor(specs.length / per));
    for (let i = 0; i < specs.length && out.length < 4 * per; i += step) out.push(specs[i]!);
  }
  return out;
}

describe('type facts against real runs', () => {
  const total = Number(process.env.NDB_TYPES_PROGRAMS ?? 24);

  it(`every value a line event shows has its type's shape: the pdb corpus as scripts and ${total} traced programs`, { timeout: 1_800_000 }, async () => {
    const dir = 'evaluation/pdb-corpus';
    const corpus = JSON.parse(await readFile(`${dir}/corpus.json`, 'utf8')) as { programs: { file: string }[] };
    const specs: { id: string; source: string; entry?: string; args?: string }[] = [];
    for (const { file } of corpus.programs) specs.push({ id: file, source: await readFile(`${dir}/${file}`, 'utf8') });
    for (const s of (await programs(Math.ceil(total / 4))).slice(0, total)) specs.push({ id: s.id, source: s.source, entry: s.entry, args: s.args });
    let checked = 0;
    let typedPrograms = 0;
    const refused: string[] = [];
    const queue = [...specs];
    const worker = async () => {
      for (let spec = queue.shift(); spec; spec = queue.shift()) {
        const [trace, types] = await Promise.all([traceSource(spec.source, spec.entry !== undefined ? { entry: spec.entry, ...(spec.args !== undefined ? { args: spec.args } : {}) } : {}).catch(() => null), programTypes(spec.source)]);
        if (!trace) continue;
        if (types.size > 0) typedPrograms++;
        for (const state of trace.events) {
          if (state.event !== 'line') continue;
          const facts = types.at(state.function, state.line);
          for (const [name, repr] of Object.entries(state.locals)) {
            const t = facts?.get(name);
            if (!t) continue;
            checked++;
            const text = truncateRepr(repr);
            const rule = typeRule(t);
            if (!rule.complete(text) || ![...text].every((_, i) => rule.prefix(text.slice(0, i + 1)))) refused.push(`${spec.id} ${state.stack.map((s) => `${s.function}:${s.line}`).join(' ')} ${name} = ${text.slice(0, 80)} as ${t.join(' | ')}`);
          }
        }
      }
    };
    await Promise.all([worker(), worker()]);
    console.log(`type soundness: ${specs.length} programs (${typedPrograms} typed), ${checked} values checked, ${refused.length} refused`);
    expect(refused.slice(0, 10)).toEqual([]);
    expect(checked).toBeGreaterThan(specs.length * 5);
  });

  // The whole constraint with the types attached, as test/control-flow.test.ts's soundness check feeds it: every move of every state.
  it('every move of the pdb corpus run as scripts passes the constraint with the types attached', { timeout: 1_200_000 }, async () => {
    const dir = 'evaluation/pdb-corpus';
    const corpus = JSON.parse(await readFile(`${dir}/corpus.json`, 'utf8')) as { programs: { file: string }[] };
    const refused: string[] = [];
    let checked = 0;
    for (const { file } of corpus.programs) {
      const source = await readFile(`${dir}/${file}`, 'utf8');
      const [trace, flow, types] = await Promise.all([traceSource(source, {}), ControlFlow.of(source), programTypes(source)]);
      attachTypes(flow!, types);
      const r = await checkTree(new StateTree(trace), flow!, sourceLines(source));
      checked += r.checked;
      for (const x of r.refused.slice(0, 3)) refused.push(`${file} ${x.action.kind} from ${x.prev.event} ${x.prev.stack.map((f) => `${f.function}:${f.line}`).join(' ')}: ${x.text.slice(0, 160)}`);
    }
    console.log(`pdb corpus with types: ${corpus.programs.length} programs, ${checked} moves checked, ${refused.length} refused`);
    expect(checked).toBeGreaterThan(corpus.programs.length * 50);
    expect(refused).toEqual([]);
  });
});

/**
 * The symbolic stepper as one layer (semantics/): its rules registered one per file, in order
 * of precedence; the oracle's answers with every family on, and with each turned off (the
 * ablations of `--rules`); and a decided value marked as such in the decoded frame, with its
 * rule, so that the debugger can show it as Python's semantics rather than the model's guess.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Action, State } from '../grammar/state.js';
import { serializeFrame } from '../grammar/serialize.js';
import { TOKENS as L } from '../grammar/tokens.js';
import { feedText } from '../evaluation/control-flow-check.js';
import { FrameConstraint } from '../model-client/frame-constraint.js';
import { FrameNames } from '../model-client/loc-constraint.js';
import { ControlFlow } from '../program-analysis/control-flow.js';
import { sourceLines } from '../python/source.js';
import { oracle } from './oracle.js';
import { ALL_RULES, parseRuleSelection, RULE_FAMILIES, ruleSelectionText } from '../semantics/rule.js';
import { RULES } from '../semantics/rules/index.js';
import { ROOT } from './fixtures.js';

const PROGRAM = [
  'def f(n):', //          1
  '    i = 0', //          2
  '    i += n', //         3
  '    return i', //       4
  '',
].join('\n');

const lines = sourceLines(PROGRAM);
let flow: ControlFlow;
beforeAll(async () => {
  flow = (await ControlFlow.of(PROGRAM))!;
});

const over: Action = { kind: 'step_over' };
const at = (event: State['event'], line: number, locals: Record<string, string>, value?: string): State => ({
  event,
  line,
  source: lines[line - 1]!,
  stack: [{ function: 'f', line }],
  locals,
  ...(value === undefined ? {} : { value }),
});

describe('the rules registry', () => {
  it('holds every file of semantics/rules/ once, named as its file, each in a family', async () => {
    const files = readdirSync(join(ROOT, 'semantics', 'rules'))
      .filter((f) => f.endsWith('.ts') && f !== 'index.ts')
      .map((f) => f.replace(/\.ts$/, ''))
      .sort();
    expect(RULES.map((r) => r.name).sort()).toEqual(files);
    for (const rule of RULES) expect(RULE_FAMILIES).toContain(rule.family);
  });

  it('--rules takes all, none, or a list of families; a value family brings the control flow', async () => {
    expect(parseRuleSelection('all')).toBe(ALL_RULES);
    expect(parseRuleSelection('none').size).toBe(0);
    expect([...parseRuleSelection('branch')].sort()).toEqual(['branch', 'control-flow']);
    expect(ruleSelectionText(parseRuleSelection('control-flow, loop'))).toBe('control-flow,loop');
    expect(() => parseRuleSelection('branches')).toThrow(/unknown rule family "branches".*control-flow, branch/);
    expect(() => parseRuleSelection(',')).toThrow(/no rule family/);
  });
});

describe('the oracle', () => {
  it('decides `i += n` on the values shown, and only with the assign family on', async () => {
    const prev = at('line', 3, { n: '2', i: '0' });
    const frame = { event: 'line', line: 4, bare: true, function: 'f' } as const;
    const all = (await oracle(flow, over, prev)).frame(frame);
    expect(all.value('i')).toEqual({ kind: 'exact', repr: '2', binds: true, rule: 'assigned' });
    expect(all.mustWrite).toEqual(['i']);
    // n is not bound by the line: the same object, kept.
    expect(all.value('n')).toEqual({ kind: 'kept', before: '2', rule: 'kept' });
    const withoutAssign = (await oracle(flow, over, prev, {}, parseRuleSelection('control-flow,keep'))).frame(frame);
    expect(withoutAssign.value('i')).toBeUndefined();
    expect(withoutAssign.mustWrite).toEqual([]);
    expect((await oracle(flow, over, prev, {}, parseRuleSelection('control-flow'))).frame(frame).value('n')).toBeUndefined();
  });

  it("decides a return's value from the line's expression, and names the rule", async () => {
    const decided = await oracle(flow, over, at('line', 4, { n: '2', i: '2' }));
    expect(decided.frame({ event: 'return', line: 4, bare: true, function: 'f' }).returns).toEqual({ reprs: ['2'], rule: 'returned' });
    expect((await oracle(flow, over, at('line', 4, { n: '2', i: '2' }), {}, parseRuleSelection('control-flow'))).frame({ event: 'return', line: 4, bare: true, function: 'f' }).returns).toBeUndefined();
  });

  it('narrows the landing only with the control flow and the rules it is given', async () => {
    const prev = at('line', 2, { n: '2' });
    const landing = (await oracle(flow, over, prev)).landing();
    expect([...(landing.line?.bare ?? [])]).toEqual([3]);
  });
});

describe('a decided value is marked, with its rule', () => {
  const write = (c: FrameConstraint, text: string) => feedText(c, text) && c.done;
  const rules = async (prev: State, selection = ALL_RULES) => ({ action: over, lines, names: FrameNames.ofProgram(lines), prevFunction: 'f', oracle: await oracle(flow, over, prev, {}, selection) });

  it('the local a rule fixed is decided; with the family off the model wrote it', async () => {
    const prev = at('line', 3, { n: '2', i: '0' });
    const text = `${L.lineSep}${L.locSep}4${L.argSep}{"..": "..", "i": "2"}${L.srcSep}${lines[3]}${L.actionSep}`;
    const c = new FrameConstraint(await rules(prev));
    expect(write(c, text)).toBe(true);
    expect(c.decisions).toEqual({ locals: { i: 'assigned' } });
    const off = new FrameConstraint(await rules(prev, parseRuleSelection('control-flow')));
    expect(write(off, text)).toBe(true);
    expect(off.decisions).toEqual({ locals: {} });
    // With the rule on, another value is not a frame at all.
    expect(write(new FrameConstraint(await rules(prev)), text.replace('"2"', '"3"'))).toBe(false);
  });

  it("a return's value decided by its line is marked too", async () => {
    const prev = at('line', 4, { n: '2', i: '2' });
    const text = serializeFrame('forward', at('return', 4, { n: '2', i: '2' }, '2'), prev, over) + L.actionSep;
    const c = new FrameConstraint(await rules(prev));
    expect(write(c, text)).toBe(true);
    expect(c.decisions.value).toBe('returned');
  });
});

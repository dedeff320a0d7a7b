/**
 * The benchmark's baseline (1), bench/generate-predictor.ts, and the order the bench runs its
 * configurations in (bench/stats.ts balancedOrder).
 *
 * With the model folder (models/default, or $NDB_TEST_MODEL): transformers.js's generate(),
 * as GeneratePredictor calls it, must be plain greedy decoding with a list of stop ids, token
 * for token what PyTorch wrote in the folder's parity.json; and a predicted step must come
 * back whole, with its stats. Without a model folder those tests are skipped, saying so.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GeneratePredictor, parseGenerated } from '../bench/generate-predictor.js';
import { balancedOrder } from '../bench/stats.js';
import { serializeExit, serializeFrame } from '../grammar/serialize.js';
import type { State } from '../grammar/state.js';
import { TOKENS } from '../grammar/tokens.js';
import { COUNT_SOURCE, HAS_MODEL, MODEL_DIR, warnWithoutModel } from './fixtures.js';

warnWithoutModel('generate-baseline tests');


describe('balancedOrder', () => {
  it('over four rounds puts each config first once and right after each other config once', () => {
    const items = ['a', 'b', 'c', 'd'];
    const rounds = [0, 1, 2, 3].map((r) => balancedOrder(items, r));
    for (const order of rounds) expect([...order].sort()).toEqual(items);
    expect(new Set(rounds.map((o) => o[0])).size).toBe(4);
    const pairs = rounds.flatMap((o) => o.slice(1).map((x, i) => `${o[i]}>${x}`));
    expect(new Set(pairs).size).toBe(12); // every ordered pair of distinct items, once
  });

  it('alternates two', () => {
    expect([0, 1, 2].map((r) => balancedOrder(['x', 'y'], r))).toEqual([['x', 'y'], ['y', 'x'], ['x', 'y']]);
  });
});

describe('parseGenerated', () => {
  const prev: State = { event: 'call', line: 5, source: 'def count(s, t):', stack: [{ function: 'count', line: 5 }], locals: { s: "'berry'", t: "'r'" } };
  const next: State = { event: 'line', line: 6, source: '    n = 0', stack: [{ function: 'count', line: 6 }], locals: { s: "'berry'", t: "'r'" } };

  it('reads a state frame up to <|action_sep|>', () => {
    const text = serializeFrame('forward', next, prev, { kind: 'step_over' }) + TOKENS.actionSep;
    expect(parseGenerated(text, prev, { kind: 'step_over' })).toEqual({ kind: 'state', direction: 'forward', state: next });
  });

  it('reads an exit up to <|trace_end|>', () => {
    const text = serializeExit({ kind: 'normal', value: '1' }) + TOKENS.traceEnd;
    expect(parseGenerated(text, prev, { kind: 'continue' })).toEqual({ kind: 'exit', exit: { kind: 'normal', value: '1' } });
  });

  it('refuses a frame that ran out of tokens or stopped at <|end_of_text|>, or does not parse', () => {
    const state = serializeFrame('forward', next, prev, { kind: 'step_over' });
    expect(() => parseGenerated(state.slice(0, 20), prev, { kind: 'step_over' })).toThrow(/wrote no whole frame/);
    expect(() => parseGenerated(state + TOKENS.endOfText, prev, { kind: 'step_over' })).toThrow(/wrote no whole frame/);
    expect(() => parseGenerated(TOKENS.lineSep + TOKENS.argSep + '{"x" 1}' + TOKENS.actionSep, prev, { kind: 'step_over' })).toThrow(/does not parse/);
    // A state frame closed as if it were the run's end.
    expect(() => parseGenerated(state + TOKENS.traceEnd, prev, { kind: 'step_over' })).toThrow(/does not parse/);
  });
});

describe.skipIf(!HAS_MODEL)('GeneratePredictor on the model', () => {
  let predictor: GeneratePredictor;
  beforeAll(async () => {
    predictor = await GeneratePredictor.load(MODEL_DIR);
  });
  afterAll(async () => {
    await predictor?.release();
  });

  it("generate() is greedy decoding with stop ids: parity.json's PyTorch continuations, token for token", async () => {
    const parity = JSON.parse(readFileSync(join(MODEL_DIR, 'parity.json'), 'utf8')) as { max_new_tokens: number; stop_ids: number[]; cases: { prompt: number[]; output: number[] }[] };
    expect(parity.cases.length).toBeGreaterThan(0);
    for (const c of parity.cases) expect(await predictor.generateIds(c.prompt, parity.max_new_tokens, parity.stop_ids)).toEqual(c.output);
  });

  it("stops a frame at <|action_sep|>, <|trace_end|> or <|end_of_text|>", () => {
    expect(predictor.stopIds.map((id) => predictor.tokenizer.decode([id]))).toEqual([TOKENS.actionSep, TOKENS.traceEnd, TOKENS.endOfText]);
  });

  it('starts from the arguments and predicts a step from the whole prompt, with its stats', async () => {
    const first = await predictor.start(COUNT_SOURCE, { entry: 'count', args: "'berry', 'r'" });
    expect(first).toMatchObject({ kind: 'state', origin: 'input', state: { event: 'call', line: 5, locals: { s: "'berry'", t: "'r'" } } });
    if (first.kind !== 'state') return;
    const step = await predictor.predict([{ state: first.state }], { kind: 'step_over' });
    expect(step.origin).toBe('model');
    expect(step.text.endsWith(TOKENS.actionSep) || step.text.endsWith(TOKENS.traceEnd)).toBe(true);
    const s = step.stats!;
    expect(s.prefilledTokens).toBe(s.promptTokens);
    expect(s.forcedTokens).toBe(0);
    expect(s.forwardPasses).toBe(s.sampledTokens);
    expect(predictor.tokenizer.encode(step.text).length).toBe(s.sampledTokens);
    // No token scores from generate(): no confidence is made up.
    expect(step.kind === 'state' ? step.confidence.locals : {}).toEqual({});
    expect(step.confidence.frame).toBeNaN();
  });
});

/**
 * Speculative greedy decoding (decode.ts, drafts by prompt lookup in draft.ts): the drafts
 * only save forward passes, they never change a frame. Checked against plain greedy decoding
 * (one chosen token per pass) on prompts made from real traces, as the model sees them.
 *
 * The model tests use models/default (or $NDB_TEST_MODEL) and are skipped without it.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../util/rng.js';
import { sampleTrajectory } from '../data-pipeline/trajectories.js';
import { serializeTrajectory } from '../grammar/serialize.js';
import type { Action, State } from '../grammar/state.js';
import { TOKENS } from '../grammar/tokens.js';
import { truncateTrajectory } from '../grammar/truncate.js';
import { decodeFrames, type DecodeOutcome } from '../model-client/decode.js';
import { lookupDraft, structuralDraft } from '../model-client/draft.js';
import { assignedNames, type Decide, guessFrame } from '../model-client/frame-guess.js';
import { ControlFlow } from '../program-analysis/control-flow.js';
import { oracle } from './oracle.js';
import { programInfo } from '../program-analysis/program-info.js';
import { FrameNames } from '../model-client/loc-constraint.js';
import { NeuralPredictor } from '../model-client/neural-predictor.js';
import { PrefixCache } from '../model-client/prefix-cache.js';
import { TokenTable } from '../model-client/token-table.js';
import { StateTree } from '../state-tree/tree.js';
import { sourceLines } from '../python/source.js';
import { traceSource } from '../tracer/run-tracer.js';
import { HAS_MODEL, MODEL_DIR } from './fixtures.js';


describe('lookupDraft', () => {
  it('proposes what followed the latest earlier occurrence of the longest suffix', () => {
    // Suffix [1, 2, 3] occurred at 0 (followed by 4, 5) and [2, 3] later at 6 (followed by 9): the longer match wins.
    expect(lookupDraft([1, 2, 3, 4, 5, 7, 2, 3, 9, 1, 2, 3], 2)).toEqual([4, 5]);
    // Only the last token matches: its latest earlier occurrence.
    expect(lookupDraft([5, 6, 5, 7, 8, 5], 3)).toEqual([7, 8, 5]);
    // Stops at max.
    expect(lookupDraft([1, 2, 3, 1], 1)).toEqual([2]);
  });

  it('reads a match near the end on into the draft: the text repeats with that period', () => {
    // [1] last occurred 2 back: period 2, so 2, 1, 2, ... rather than a draft cut at the context's end.
    expect(lookupDraft([1, 2, 1], 5)).toEqual([2, 1, 2, 1, 2]);
    // ", 15" repeating (tokens 7 = ",", 8 = " ", 9 = "15"): the list goes on.
    expect(lookupDraft([3, 9, 7, 8, 9, 7, 8, 9], 7)).toEqual([7, 8, 9, 7, 8, 9, 7]);
  });

  it('proposes nothing without an earlier occurrence, or when asked for none', () => {
    expect(lookupDraft([1, 2, 3], 4)).toEqual([]);
    expect(lookupDraft([1], 4)).toEqual([]);
    expect(lookupDraft([1, 2, 1], 0)).toEqual([]);
  });
});

describe('structuralDraft', () => {
  // Ids 100 and up are special (separators); the rest are field text.
  const special = (id: number) => id >= 100;

  it('guesses the field is complete: what followed the previous field after the same separator', () => {
    // "<101> 1 9 <102> 7 7 <103> ... <101> 2 0": the previous line-number field "1 9" ended at <102>.
    expect(structuralDraft([101, 1, 9, 102, 7, 7, 103, 101, 2, 0], 4, special)).toEqual([102, 7, 7, 103]);
    expect(structuralDraft([101, 1, 9, 102, 7, 7, 103, 101, 2, 0], 2, special)).toEqual([102, 7]);
  });

  it('proposes nothing right after a separator, for a separator seen first, or for an earlier field that never ended', () => {
    expect(structuralDraft([101, 1, 102, 101], 4, special)).toEqual([]);
    expect(structuralDraft([1, 2, 101, 3], 4, special)).toEqual([]);
    expect(structuralDraft([101, 1, 2, 101, 3], 4, special)).toEqual([]);
    expect(structuralDraft([101, 1, 102, 101, 3], 0, special)).toEqual([]);
  });
});

describe('guessFrame', () => {
  const guessFrameStart = (...args: Parameters<typeof guessFrame>) => guessFrame(...args)?.start ?? null;
  const program = 'def count(s, t):\n    n = 0\n    for c in s:\n        if c == t:\n            n += 1\n    return n\n';
  const lines = sourceLines(program);
  const state = (line: number, locals: Record<string, string>, event: 'call' | 'line' = 'line'): State => ({ event, line, source: lines[line - 1]!, stack: [{ function: 'count', line }], locals });
  const over = { kind: 'step_over' } as const;
  /** The symbolic stepper's answers for the step from the last state, as the predictor passes them. */
  const decide = async (steps: readonly { state: State }[], action: Action = over): Promise<Decide> => {
    const o = await oracle((await ControlFlow.of(program))!, action, steps.at(-1)!.state);
    return (at) => o.frame(at);
  };

  it('writes the next executable line with the locals the stepper decided, the others left open', async () => {
    const info = await programInfo(program);
    const call = state(1, { s: "'rr'", t: "'r'" }, 'call');
    // From the call: the body's first line, nothing assigned yet.
    expect(guessFrameStart('forward', [{ state: call, action: over }], over, info, lines)).toBe(`${TOKENS.lineSep}${TOKENS.locSep}2${TOKENS.argSep}{"..": ".."}${TOKENS.srcSep}    n = 0`);
    // From `n = 0`: line 3, and `n` is new, with the literal's repr.
    const steps = [
      { state: call, action: over },
      { state: state(2, { s: "'rr'", t: "'r'" }), action: over },
    ];
    expect(guessFrameStart('forward', steps, over, info, lines, await decide(steps))).toBe(`${TOKENS.lineSep}${TOKENS.locSep}3${TOKENS.argSep}{"..": "..", "n": "0"}${TOKENS.srcSep}    for c in s:`);
    // From `for c in s:`: `c` changes to a value the text does not tell: the guess stops where it starts.
    const loop = [...steps, { state: state(3, { s: "'rr'", t: "'r'", n: '0' }), action: over }];
    expect(guessFrameStart('forward', loop, over, info, lines, await decide(loop))).toBe(`${TOKENS.lineSep}${TOKENS.locSep}4${TOKENS.argSep}{"..": "..", "c": `);
    // From `n += 1` with n 1: the stepper decides 2.
    const add = [{ state: state(5, { s: "'rr'", t: "'r'", n: '1', c: "'r'" }), action: over }];
    expect(guessFrameStart('forward', add, over, info, lines, await decide(add))).toBe(`${TOKENS.lineSep}${TOKENS.locSep}6${TOKENS.argSep}{"..": "..", "n": "2"}${TOKENS.srcSep}    return n`);
    // From `return n`: a return event.
    const ret = [{ state: state(6, { s: "'rr'", t: "'r'", n: '2' }), action: over }];
    expect(guessFrameStart('forward', ret, over, info, lines, await decide(ret))).toBe(`${TOKENS.returnSep}${TOKENS.locSep}6${TOKENS.srcSep}    return n${TOKENS.argSep}"2"${TOKENS.localsSep}{"..": ".."}`);
  });

  it('in a loop, takes the line that followed this one the last time', async () => {
    const info = await programInfo(program);
    const locals = { s: "'rr'", t: "'r'", n: '0', c: "'r'" };
    const steps = [
      { state: state(4, locals), action: over },
      { state: state(5, locals), action: over }, // the `if` was true: line 5 came after 4
      { state: state(3, { ...locals, n: '1' }), action: over },
      { state: state(4, { ...locals, n: '1' }), action: over },
    ];
    expect(guessFrameStart('forward', steps, over, info, lines)).toContain(`${TOKENS.locSep}5${TOKENS.argSep}`);
  });

  it('steps out to the only return line, with the locals as they are; its value, which the stepper does not decide there, left open', async () => {
    const info = await programInfo(program);
    const out = { kind: 'step_return' } as const;
    const steps = [{ state: state(5, { s: "'rr'", t: "'r'", n: '1', c: "'r'" }), action: out }];
    const guess = guessFrame('forward', steps, out, info, lines, await decide(steps, out));
    expect(guess?.start).toBe(`${TOKENS.returnSep}${TOKENS.locSep}count:6${TOKENS.srcSep}    return n${TOKENS.argSep}`);
    expect(guess?.whole).toBe(`${TOKENS.returnSep}${TOKENS.locSep}count:6${TOKENS.srcSep}    return n${TOKENS.argSep}"…"${TOKENS.localsSep}{"s": "'rr'", "t": "'r'", "n": "1", "c": "'r'"}`);
  });

  it('writes an unknown value as … in the whole frame, and guesses nothing for other actions or directions', async () => {
    const info = await programInfo(program);
    const loop = [{ state: state(3, { s: "'rr'", t: "'r'", n: '0' }), action: over }];
    expect(guessFrame('forward', loop, over, info, lines)?.whole).toBe(`${TOKENS.lineSep}${TOKENS.locSep}4${TOKENS.argSep}{"..": "..", "c": "…"}${TOKENS.srcSep}        if c == t:`);
    const steps = [{ state: state(2, { s: "'rr'", t: "'r'" }), action: { kind: 'continue' } as const }];
    expect(guessFrame('forward', steps, { kind: 'continue' }, info, lines)).toBeNull();
    expect(guessFrame('inverse', steps, over, info, lines)).toBeNull();
  });

  it('reads the names a line assigns from its text', () => {
    expect(assignedNames('    n = 0')).toEqual(['n']);
    expect(assignedNames('        n += 1')).toEqual(['n']);
    expect(assignedNames('    x[i] = 3')).toEqual(['x']);
    expect(assignedNames('    x: int = 5')).toEqual(['x']);
    expect(assignedNames('    for i, (k, v) in enumerate(d.items()):')).toEqual(['i', 'k', 'v']);
    expect(assignedNames('    y = f(x=2)')).toEqual(['y']);
    // Comparisons and keyword arguments assign nothing.
    expect(assignedNames('    if n <= 1:')).toEqual([]);
    expect(assignedNames('    foo(a=1)')).toEqual([]);
    expect(assignedNames('    return a == b')).toEqual([]);
  });
});

describe.runIf(HAS_MODEL)('speculative greedy decoding', () => {
  let predictor: NeuralPredictor;
  beforeAll(async () => {
    predictor = await NeuralPredictor.load(MODEL_DIR, { threads: 2 });
  });
  afterAll(() => predictor?.release());

  it('writes token for token the frames of plain greedy decoding, in fewer passes, also with the rest of the prompt in the first pass (12 prompts from real runs)', async () => {
    const shapes = readFileSync('examples/shapes.py', 'utf8');
    const programs = [
      { program: 'def count(s, t):\n    n = 0\n    for c in s:\n        if c == t:\n            n += 1\n    return n\n', entry: 'count', args: "'berry', 'r'" },
      { program: 'def f(xs):\n    out = []\n    for x in xs:\n        out.append(x * 2)\n    return out\n', entry: 'f', args: '[1, 2, 3]' },
      { program: shapes, entry: 'total_area', args: "[('square', 3), ('rect', (2, 4))]" },
    ];
    const { session, tokenizer } = predictor;
    const ctx = { session, tokenizer, table: await TokenTable.load(MODEL_DIR, tokenizer) };
    const rng = new Rng(23);
    let plainPasses = 0;
    let draftedPasses = 0;
    let unfedPasses = 0;
    let frames = 0;
    let guessed = 0;
    for (let k = 0; k < 12; k++) {
      const { program, entry, args } = programs[k % programs.length]!;
      const tree = new StateTree(await traceSource(program, { entry, args }));
      const t = truncateTrajectory(sampleTrajectory(tree, k % 4 === 3 ? 'inverse' : 'forward', rng, { maxSteps: 8 }));
      const history = t.steps.slice(0, rng.int(1, t.steps.length));
      const last = history[history.length - 1]!;
      const ids = tokenizer.encode(serializeTrajectory({ ...t, steps: history, exit: null }));
      const lines = sourceLines(program);
      const rules = { action: last.action, lines, names: FrameNames.ofProgram(lines), prevFunction: last.state.stack[last.state.stack.length - 1]!.function };
      const prompt = await new PrefixCache(session).prompt(ids);

      const decode = async (draftTokens: number): Promise<[DecodeOutcome, number]> => {
        const before = session.passes;
        const [out] = await decodeFrames(ctx, prompt, rules, 1, { maxNewTokens: 200, draftTokens });
        return [out!, session.passes - before];
      };
      const [plain, p] = await decode(0);
      const [drafted, d] = await decode(12);
      plainPasses += p;
      draftedPasses += d;
      // A first draft from guessing the frame's start (frame-guess.ts), and one that is
      // right for a few tokens and then wrong: the frame is still plain greedy decoding's.
      const guess = guessFrame(t.direction, history, last.action, await programInfo(program), lines);
      const right = plain.ok ? plain.frame.ids : tokenizer.encode(guess?.start ?? '');
      const wrong = right.map((id, i) => (i === 3 ? (id === 50 ? 51 : 50) : id));
      const guesses = [...(guess ? [{ start: tokenizer.encode(guess.start), whole: tokenizer.encode(guess.whole) }] : []), { start: wrong, whole: wrong }];
      for (const g of guesses) {
        const [started] = await decodeFrames(ctx, prompt, rules, 1, { maxNewTokens: 200, draftTokens: 12, guess: g });
        expect(started!.ok ? started!.frame.ids : started).toEqual(plain.ok ? plain.frame.ids : plain);
      }
      if (guess) guessed++;
      // The prompt's last tokens unfed (PrefixCache.unfed): they run in the first drafted pass,
      // so the prompt costs no pass of its own. Last: it writes over the full prompt's cache.
      const before = session.passes;
      const [late] = await decodeFrames(ctx, { cache: prompt.cache.truncate(ids.length - 5), unfed: ids.slice(-5), ids }, rules, 1, { maxNewTokens: 200, draftTokens: 12 });
      unfedPasses += session.passes - before;
      expect(late!.ok ? late!.frame.ids : late).toEqual(drafted.ok ? drafted.frame.ids : drafted);
      if (!plain.ok || !drafted.ok) {
        expect(drafted).toEqual(plain); // the same error (a budget error with the same text)
        continue;
      }
      frames++;
      expect(drafted.frame.ids).toEqual(plain.frame.ids);
      expect(drafted.frame.text).toBe(plain.frame.text);
      expect(drafted.frame.forced).toEqual(plain.frame.forced);
      expect(drafted.frame.spans).toEqual(plain.frame.spans);
      drafted.frame.logprobs.forEach((lp, i) => expect(lp).toBeCloseTo(plain.frame.logprobs[i]!, 4));
      expect(d).toBeLessThanOrEqual(p);
    }
    console.info(`speculative decoding: ${frames} of 12 frames complete, ${plainPasses} forward passes plain, ${draftedPasses} with drafts, ${unfedPasses} with drafts and the prompt's last 5 tokens (each prompt's own pass not counted in the first two)`);
    expect(frames).toBeGreaterThan(0);
    expect(guessed).toBeGreaterThan(0);
    expect(draftedPasses).toBeLessThan(plainPasses);
    expect(unfedPasses).toBeLessThan(draftedPasses + 12);
  });
});

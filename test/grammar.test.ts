import { describe, expect, it } from 'vitest';
import {
  type Action,
  type Direction,
  type Event,
  type State,
  type Trajectory,
  TOKENS,
  TraceParseError,
  TrajectorySchema,
  parseFrame,
  parseTrajectory,
  serializeFrame,
  serializeTrajectory,
  truncateTrajectory,
  MAX_REPR_CHARS,
} from '../grammar/index.js';
import { escapePayload, unescapePayload } from '../grammar/escape.js';
import { Rng } from '../util/rng.js';

/** Awkward text: quotes, backslashes, newlines, unicode, token look-alikes. */
const NASTY = [
  "'berry'",
  '"double"',
  "'it\\'s'",
  "'a\\nb'",
  'line\nbreak',
  'tab\there',
  'é ü 漢字 🙂',
  '<|frame_sep|>',
  '<\\|x|>',
  '<\\\\|',
  '\\',
  '',
  '{"..": ".."}',
  '..',
  '[1, 2, 3]',
  "{'k': [1, (2, 3)]}",
  '  leading spaces',
  '<|begin_of_text|> inside',
  '\u2028\u0000',
];

function text(rng: Rng): string {
  if (rng.chance(0.4)) return rng.pick(NASTY);
  if (rng.chance(0.5)) return String(rng.int(-1000, 1000));
  return Array.from({ length: rng.int(0, 12) }, () => String.fromCodePoint(rng.pick([rng.int(32, 126), rng.int(0x80, 0x3000)]))).join('');
}

const FUNCS = ['f', 'helper', '<listcomp>', '<module>', '<lambda>', 'count_words', 'é'];

function randomState(rng: Rng, event: Event, like?: State): State {
  const stack = like && rng.chance(0.7) ? like.stack.map((f) => ({ ...f })) : Array.from({ length: rng.int(1, 4) }, () => ({ function: rng.pick(FUNCS), line: rng.int(1, 80) }));
  const line = rng.int(1, 80);
  stack[stack.length - 1]!.line = line;
  const locals: Record<string, string> = like && rng.chance(0.7) ? { ...like.locals } : {};
  for (let i = rng.int(0, 4); i > 0; i--) locals[rng.chance(0.2) ? rng.pick(NASTY.filter((k) => k !== '..')) : `v${rng.int(0, 6)}`] = text(rng);
  if (rng.chance(0.1)) delete locals[Object.keys(locals)[0] ?? ''];
  const state: State = { event, line, source: text(rng).replace(/\n/g, ' '), stack, locals };
  if (event === 'return' || event === 'exception') state.value = text(rng);
  return state;
}

function randomAction(rng: Rng, direction: Direction): Action {
  if (direction === 'inverse') return { kind: rng.pick(['inv_step_into', 'inv_step_over', 'inv_step_call'] as const) };
  const kind = rng.pick(['step_into', 'step_over', 'step_return', 'continue', 'breakpoint'] as const);
  return kind === 'breakpoint' ? { kind, line: rng.int(1, 50), source: text(rng).replace(/\n/g, ' ') } : { kind };
}

function randomTrajectory(seed: number): Trajectory {
  const rng = new Rng(seed);
  const direction: Direction = rng.chance(0.5) ? 'forward' : 'inverse';
  const events: Event[] = direction === 'forward' ? ['call', 'line', 'return', 'exception'] : ['call', 'line', 'line_call', 'return', 'exception'];
  const steps: Trajectory['steps'] = [];
  let prev: State | undefined;
  for (let i = rng.int(0, 12); i > 0; i--) {
    const state = randomState(rng, rng.pick(events), prev);
    steps.push({ state, action: randomAction(rng, direction) });
    prev = state;
  }
  // An open trajectory with no frame is only the context and has no direction: skip that case.
  const exit: Trajectory['exit'] = rng.chance(0.2) && steps.length > 0
    ? null
    : direction === 'inverse'
      ? { kind: 'entry' }
      : rng.pick([{ kind: 'normal', value: text(rng) }, { kind: 'error', value: "ValueError('bad')" }, { kind: 'never' }] as const);
  return TrajectorySchema.parse({ direction, program: rng.chance(0.8) ? 'def f(x):\n    return x <| 1\n' : text(rng), steps, exit });
}

describe('escaping', () => {
  it('is a bijection that removes every token look-alike', () => {
    for (const s of NASTY) {
      const e = escapePayload(s);
      expect(e).not.toContain('<|');
      expect(unescapePayload(e)).toBe(s);
    }
  });
});

describe('trajectory round trip', () => {
  it('parse(serialize(t)) == t on 2,000 generated trajectories', () => {
    for (let seed = 1; seed <= 2000; seed++) {
      const t = randomTrajectory(seed);
      const text = serializeTrajectory(t);
      expect(parseTrajectory(text), `seed ${seed}`).toEqual(t);
    }
  });

  it('also round-trips after truncation', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const t = randomTrajectory(seed);
      const big = { ...t, steps: t.steps.map((s) => ({ ...s, state: { ...s.state, locals: { big: 'x'.repeat(500), ...s.state.locals } } })) };
      const cut = truncateTrajectory(TrajectorySchema.parse(big));
      for (const { state } of cut.steps) expect(Array.from(state.locals.big!).length).toBe(MAX_REPR_CHARS);
      expect(parseTrajectory(serializeTrajectory(cut))).toEqual(cut);
    }
  });

  it('writes the paper example shape: delta locals with the ".." marker', () => {
    const call: State = { event: 'call', line: 1, source: 'def count(s, t):', stack: [{ function: 'count', line: 1 }], locals: { s: "'berry'", t: "'r'" } };
    const line: State = { event: 'line', line: 2, source: '    n = 0', stack: [{ function: 'count', line: 2 }], locals: { s: "'berry'", t: "'r'" } };
    const line2: State = { ...line, line: 3, source: '    for c in s:', stack: [{ function: 'count', line: 3 }], locals: { ...line.locals, n: '0' } };
    const t: Trajectory = {
      direction: 'forward',
      program: 'def count(s, t):\n    n = 0\n    for c in s:\n        ...\n',
      steps: [
        { state: call, action: { kind: 'step_into' } },
        { state: line, action: { kind: 'step_into' } },
        { state: line2, action: { kind: 'continue' } },
      ],
      exit: { kind: 'normal', value: '2' },
    };
    const text = serializeTrajectory(t);
    expect(text).toContain(`${TOKENS.callSep}${TOKENS.locSep}count:1${TOKENS.srcSep}def count(s, t):${TOKENS.argSep}{"s": "'berry'", "t": "'r'"}`);
    expect(text).toContain(`${TOKENS.lineSep}${TOKENS.locSep}3${TOKENS.argSep}{"..": "..", "n": "0"}${TOKENS.srcSep}    for c in s:`);
    expect(text.endsWith(`${TOKENS.frameSep}${TOKENS.exitNormal}${TOKENS.argSep}"2"${TOKENS.traceEnd}${TOKENS.endOfText}`)).toBe(true);
    expect(parseTrajectory(text)).toEqual(t);
  });

  it('parses a single predicted frame against the state before it', () => {
    const prev: State = { event: 'line', line: 2, source: '    n = 0', stack: [{ function: 'g', line: 2 }], locals: { a: '1' } };
    const next: State = { ...prev, line: 3, source: '    return a', stack: [{ function: 'g', line: 3 }], locals: { a: '1', n: '0' } };
    const action: Action = { kind: 'step_over' };
    const frame = serializeFrame('forward', next, prev, action);
    expect(frame).toContain('{"..": "..", "n": "0"}');
    expect(parseFrame(frame, prev, action)).toEqual({ direction: 'forward', state: next });
  });
});

describe('parse errors say where and what', () => {
  const good = serializeTrajectory(randomTrajectory(7));

  it.each([
    ['an unknown token', `${TOKENS.beginOfText}<|bogus|>`, /unknown token <\|bogus\|>/],
    ['a missing context', TOKENS.beginOfText + TOKENS.frameSep, /expected <\|trace_context_start\|>/],
    ['bad locals JSON', `${TOKENS.beginOfText}${TOKENS.traceContextStart}x${TOKENS.frameSep}${TOKENS.callSep}${TOKENS.locSep}f:1${TOKENS.srcSep}def f():${TOKENS.argSep}{"a": 1`, /locals is not valid JSON/],
    ['a non-string local', `${TOKENS.beginOfText}${TOKENS.traceContextStart}x${TOKENS.frameSep}${TOKENS.callSep}${TOKENS.locSep}f:1${TOKENS.srcSep}def f():${TOKENS.argSep}{"a": 1}`, /must be a repr string/],
    ['a delta with nothing before it', `${TOKENS.beginOfText}${TOKENS.traceContextStart}x${TOKENS.frameSep}${TOKENS.lineSep}${TOKENS.locSep}f:2${TOKENS.argSep}{"..": ".."}`, /needs a state before it/],
    ['a bad stack entry', `${TOKENS.beginOfText}${TOKENS.traceContextStart}x${TOKENS.frameSep}${TOKENS.lineSep}${TOKENS.locSep}f 2${TOKENS.argSep}{}`, /bad stack entry/],
    ['a truncated trajectory', good.slice(0, good.length - TOKENS.endOfText.length), /expected <\|end_of_text\|>/],
    ['a mixed direction', `${TOKENS.beginOfText}${TOKENS.traceContextStart}x${TOKENS.frameSep}${TOKENS.invExitEntry}${TOKENS.traceEnd}${TOKENS.endOfText}`.replace(TOKENS.invExitEntry, TOKENS.exitNever).replace(TOKENS.traceContextStart + 'x', TOKENS.traceContextStart + 'x' + TOKENS.frameSep + TOKENS.invLineSep + TOKENS.locSep + 'f:1' + TOKENS.argSep + '{}' + TOKENS.srcSep + 'y' + TOKENS.actionSep + TOKENS.invStepInto), /cannot end a inverse trajectory/],
  ])('%s', (_name, text, pattern) => {
    let error: unknown;
    try {
      parseTrajectory(text);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(TraceParseError);
    expect((error as TraceParseError).message).toMatch(pattern);
    expect((error as TraceParseError).message).toMatch(/at offset \d+/);
    expect((error as TraceParseError).offset).toBeLessThanOrEqual(text.length);
  });
});

/**
 * The model client's grammar and prompts, no model needed: every frame of real trajectories
 * is accepted as written, wrong frames are refused at the first wrong character, random
 * walks over a real token vocabulary never reach a dead end and always parse, and prompts
 * are written as training wrote trajectories.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../util/rng.js';
import { trainTokenizer } from '../data-pipeline/train-tokenizer.js';
import { TraceTokenizer } from '../tokenizer/trace-tokenizer.js';
import { sampleTrajectory } from '../data-pipeline/trajectories.js';
import { parseFrame, parseTrajectory } from '../grammar/parse.js';
import { serializeContext, serializeExit, serializeFrame, serializeTrajectory } from '../grammar/serialize.js';
import type { Action, State, Trajectory } from '../grammar/state.js';
import { TOKEN_PATTERN, TOKENS } from '../grammar/tokens.js';
import { truncateTrajectory } from '../grammar/truncate.js';
import { FrameConstraint, type FrameRules } from '../model-client/frame-constraint.js';
import { type ContentRule, JsonString, KnownNames, LocalsSegment } from '../model-client/json-constraint.js';
import { FrameNames, type LocRules, LocSegment } from '../model-client/loc-constraint.js';
import { historyText, windowStarts } from '../model-client/prompt.js';
import { TokenTable } from '../model-client/token-table.js';
import { StateTree } from '../state-tree/tree.js';
import { sourceLines } from '../python/source.js';
import { traceSource } from '../tracer/run-tracer.js';

/** Feeds text to a constraint as tokens: each special token alone, payload in random byte chunks. */
function feed(c: FrameConstraint, text: string, rng: Rng): { ok: boolean; at: number } {
  const encoder = new TextEncoder();
  let last = 0;
  const pieces: { special?: string; bytes?: Uint8Array; offset: number }[] = [];
  const payload = (from: number, to: number) => {
    const bytes = encoder.encode(text.slice(from, to));
    for (let i = 0; i < bytes.length; ) {
      const n = rng.int(1, 6);
      pieces.push({ bytes: bytes.slice(i, i + n), offset: from });
      i += n;
    }
  };
  for (const m of text.matchAll(TOKEN_PATTERN)) {
    payload(last, m.index);
    pieces.push({ special: m[0], offset: m.index });
    last = m.index + m[0].length;
  }
  payload(last, text.length);
  for (const p of pieces) {
    const ok = p.special ? c.pushSpecial(p.special) : c.pushBytes(p.bytes!);
    if (!ok) return { ok: false, at: p.offset };
  }
  return { ok: true, at: text.length };
}

function rulesFor(program: string, action: Action): FrameRules {
  const lines = sourceLines(program);
  return { action, lines, names: FrameNames.ofProgram(lines) };
}

/** Every predicted frame of a trajectory (all but the first), with what it is predicted from. */
function* frames(t: Trajectory): Generator<{ text: string; prev: State; action: Action }> {
  for (let i = 1; i <= t.steps.length; i++) {
    const { state: prev, action } = t.steps[i - 1]!;
    const next = t.steps[i];
    if (next) yield { text: serializeFrame(t.direction, next.state, prev, action) + TOKENS.actionSep, prev, action };
    else if (t.exit) yield { text: serializeExit(t.exit) + TOKENS.traceEnd, prev, action };
  }
}

describe('frame constraint', () => {
  // Escapes, unicode, a long repr, a class body, a comprehension, `del`; recursion, caught and uncaught exceptions.
  const PROGRAMS = [
    {
      program: [
        'class Box:',
        '    size = 2',
        'def helper(s):',
        '    return s.upper() + "<|\\\\|>é😀"',
        'def main(xs):',
        '    out = {}',
        '    for i, x in enumerate(xs):',
        '        out[x] = helper(x) if i else [n * 2 for n in range(3)]',
        '    del out[xs[0]]',
        '    del x',
        '    return out, Box()',
      ].join('\n'),
      entry: 'main',
      args: `['a<|b', 'ü\\n\\t\\x00', '${'c'.repeat(120)}']`,
    },
    {
      program: [
        'def fact(n):',
        '    if n <= 1:',
        '        raise ValueError(f"bottom {n}")',
        '    try:',
        '        return n * fact(n - 1)',
        '    except ValueError as e:',
        '        return fact(0) if n == 3 else -1',
      ].join('\n'),
      entry: 'fact',
      args: '4',
    },
  ];

  it.each(PROGRAMS)('accepts every frame of sampled trajectories of a real run of $entry, and finishes exactly at the end', async ({ program, entry, args }) => {
    const tree = new StateTree(await traceSource(program, { entry, args }));
    const rng = new Rng(7);
    let count = 0;
    for (let k = 0; k < 40; k++) {
      const t = truncateTrajectory(sampleTrajectory(tree, k % 2 ? 'inverse' : 'forward', rng, { maxSteps: 30 }));
      for (const f of frames(t)) {
        const c = new FrameConstraint(rulesFor(program, f.action));
        expect(feed(c, f.text, rng), f.text).toEqual({ ok: true, at: f.text.length });
        expect(c.done).toBe(true);
        count++;
      }
    }
    expect(count).toBeGreaterThan(300);
  });

  describe('refuses', () => {
    const program = 'def f(a):\n    b = a + 1\n    return b\n';
    const refused = (text: string, action: Action = { kind: 'step_into' }) => {
      const r = feed(new FrameConstraint(rulesFor(program, action)), text, new Rng(3));
      return r.ok ? null : text.slice(r.at);
    };
    const L = TOKENS;

    it('a wrong source line, a missing line number, an unknown function', () => {
      expect(refused(`${L.lineSep}${L.locSep}3${L.argSep}{"..": ".."}${L.srcSep}    return b${L.actionSep}`)).toBeNull();
      expect(refused(`${L.lineSep}${L.locSep}3${L.argSep}{"..": ".."}${L.srcSep}    return c${L.actionSep}`)).toBe('    return c' + L.actionSep);
      expect(refused(`${L.lineSep}${L.locSep}4${L.argSep}{}`)).toBe('4' + L.argSep + '{}');
      expect(refused(`${L.callSep}${L.locSep}g:1${L.srcSep}`)).toBe('g:1' + L.srcSep);
      expect(refused(`${L.callSep}${L.locSep}f:01`)).toBe('f:01');
    });

    it('a delta or a bare line where the scope cannot be kept', () => {
      expect(refused(`${L.callSep}${L.locSep}1${L.srcSep}`)).toBe('1' + L.srcSep);
      expect(refused(`${L.lineSep}${L.locSep}3${L.argSep}{}${L.srcSep}`, { kind: 'step_return' })).toBe('3' + L.argSep + '{}' + L.srcSep);
      expect(refused(`${L.lineSep}${L.locSep}f:3${L.argSep}{"..": ".."}`)).toBe('{"..": ".."}');
      expect(refused(`${L.lineSep}${L.locSep}3${L.argSep}{"b": "2", "..": ".."}`)).toBe('{"b": "2", "..": ".."}');
    });

    it('non-canonical or invalid JSON, duplicate keys, too long reprs', () => {
      const line = (locals: string) => refused(`${L.lineSep}${L.locSep}3${L.argSep}${locals}${L.srcSep}`);
      expect(line('{"b":"2"}')).not.toBeNull();
      expect(line('{"b": "2",}')).not.toBeNull();
      expect(line('{"b": "2", "b": "3"}')).not.toBeNull();
      expect(line('{"b": "\\u0041"}')).not.toBeNull();
      // Payload escape: the repr `ESC\n<|` is JSON "\u001b\n<|", escaped <\|; the repr `<\|` is "<\\|", escaped <\\\|.
      expect(line('{"b": "\\u001b\\n<\\|"}')).toBeNull();
      expect(line('{"b": "<\\\\\\|"}')).toBeNull();
      expect(line('{"b": "<\\\\|"}')).not.toBeNull();
      expect(line('{"b": "<|"}')).not.toBeNull();
      expect(line(`{"b": "${'x'.repeat(100)}"}`)).toBeNull();
      expect(line(`{"b": "${'x'.repeat(101)}"}`)).not.toBeNull();
      // A whole frame writes the truncation entry only after MAX_LOCALS - 1 names; a delta where it changed.
      expect(line('{"…": "+3"}')).not.toBeNull();
      expect(line('{"..": "..", "…": "+3"}')).toBeNull();
      expect(line('{"…": "+3", "b": "1"}')).not.toBeNull();
      expect(line('{"2b": "1"}')).not.toBeNull();
    });

    it('a head the action cannot lead to', () => {
      expect(refused(`${L.lineSep}`, { kind: 'continue' })).toBe(L.lineSep);
      expect(refused(`${L.exitNormal}${L.argSep}"2"${L.traceEnd}`, { kind: 'continue' })).toBeNull();
      expect(refused(`${L.callSep}`, { kind: 'breakpoint', line: 3, source: '    return b' })).toBe(L.callSep);
      expect(refused(`${L.invLineSep}`)).toBe(L.invLineSep);
      expect(refused(`${L.exitNormal}`, { kind: 'inv_step_into' })).toBe(L.exitNormal);
      expect(refused(`${L.invExitEntry}${L.traceEnd}`, { kind: 'inv_step_over' })).toBeNull();
    });
  });

  it('forces the source line and the tokens the grammar fixes', () => {
    const program = 'def f(a):\n    b = a + 1  # <|x|>\n';
    const c = new FrameConstraint(rulesFor(program, { kind: 'step_into' }));
    expect(c.pushSpecial(TOKENS.lineSep)).toBe(true);
    expect(c.forced()).toEqual({ text: '', special: TOKENS.locSep });
    expect(c.pushSpecial(TOKENS.locSep)).toBe(true);
    expect(c.forced()).toBeNull();
    expect(c.pushBytes(new TextEncoder().encode('2'))).toBe(true);
    expect(c.pushSpecial(TOKENS.argSep)).toBe(true);
    expect(c.pushBytes(new TextEncoder().encode('{"..": ".."}'))).toBe(true);
    expect(c.forced()).toEqual({ text: '', special: TOKENS.srcSep });
    expect(c.pushSpecial(TOKENS.srcSep)).toBe(true);
    expect(c.forced()).toEqual({ text: '    b = a + 1  # <\\|x|>', special: TOKENS.actionSep });
  });
});

describe('frame constraint over a real token vocabulary', () => {
  const program = ['def g(word):', '    return word * 2', 'def f(xs, sep="<|>"):', '    out = {}', '    for i, x in enumerate(xs):', "        out[x] = g(x) + sep", '    return out', ''].join('\n');
  let dir: string;
  let tokenizer: TraceTokenizer;
  let table: TokenTable;
  let tree: StateTree;

  beforeAll(async () => {
    tree = new StateTree(await traceSource(program, { entry: 'f', args: "['ab', 'ü', '🙂']" }));
    dir = await mkdtemp(join(tmpdir(), 'ndb-tok-'));
    const rng = new Rng(2);
    const docs = Array.from({ length: 40 }, (_, k) => JSON.stringify({ text: serializeTrajectory(truncateTrajectory(sampleTrajectory(tree, k % 2 ? 'inverse' : 'forward', rng, { maxSteps: 20 }))) }));
    await writeFile(join(dir, 'train.jsonl'), docs.join('\n') + '\n');
    await trainTokenizer({ files: [join(dir, 'train.jsonl')], out: dir, vocabSize: 700 });
    tokenizer = await TraceTokenizer.load(dir);
    table = await TokenTable.load(dir, tokenizer);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('never leaves a random walk over valid tokens without a next token, and every walk parses', () => {
    const rng = new Rng(9);
    const lines = sourceLines(program);
    const push = (c: FrameConstraint, id: number) => {
      const special = table.special(id);
      return special !== undefined ? c.pushSpecial(special) : c.pushBytes(table.bytes(id));
    };
    for (let walk = 0; walk < 150; walk++) {
      const t = sampleTrajectory(tree, walk % 2 ? 'inverse' : 'forward', rng, { maxSteps: 8 });
      const { state: prev, action } = truncateTrajectory(t).steps[rng.int(0, t.steps.length - 1)]!;
      let c = new FrameConstraint({ action, lines, names: FrameNames.ofProgram(lines) });
      const ids: number[] = [];
      while (!c.done) {
        expect(ids.length, tokenizer.decode(ids)).toBeLessThan(4000);
        const forced = c.forced();
        if (forced) {
          for (const id of [...tokenizer.encode(forced.text), tokenizer.tokenId(forced.special)]) {
            expect(push(c, id)).toBe(true);
            ids.push(id);
          }
          continue;
        }
        // Random tokens until one fits (special tokens first half of the time, so walks end).
        const order = rng.chance(0.5) ? [...Array(table.size).keys()].filter((id) => table.special(id) !== undefined) : [];
        for (let i = 0; i < 40; i++) order.push(rng.int(0, table.size - 1));
        order.push(...rng.shuffle([...Array(table.size).keys()]));
        const next = order.find((id) => push(c.clone(), id));
        expect(next, `dead end after ${JSON.stringify(tokenizer.decode(ids))}`).toBeDefined();
        const advanced = c.clone();
        push(advanced, next!);
        c = advanced;
        ids.push(next!);
      }
      const text = tokenizer.decode(ids);
      if (c.frameHead!.kind === 'exit') {
        expect(parseTrajectory(`${TOKENS.beginOfText}${TOKENS.traceContextStart}${TOKENS.frameSep}${text}${TOKENS.endOfText}`).exit).not.toBeNull();
      } else {
        expect(() => parseFrame(text.slice(0, -TOKENS.actionSep.length), prev, action), text).not.toThrow();
      }
    }
  });
});

describe('prompt window', () => {
  const state: State = { event: 'line', line: 1, source: 'x = 1', stack: [{ function: '<module>', line: 1 }], locals: {} };
  const steps = (kinds: Action['kind'][]) => kinds.map((kind) => ({ state, action: { kind } as Action }));

  it('holds the run since the last change of direction, and moves by half windows', () => {
    expect(windowStarts(steps(['step_into', 'step_over', 'inv_step_into', 'inv_step_over']))).toEqual([2, 3]);
    expect(windowStarts(steps(['inv_step_into', 'step_into']))).toEqual([1]);
    const long = (n: number) => steps(new Array<Action['kind']>(n).fill('step_into'));
    expect(windowStarts(long(10), 6)[0]).toBe(6); // 10 steps, windows of 6 moving by 3: starts at 0, 3, 6
    expect(windowStarts(long(9), 6)[0]).toBe(3);
    expect(windowStarts(long(6), 6)).toEqual([0, 3, 4, 5]);
  });

  it('is the trajectory as training wrote it', () => {
    const program = 'x = 1\ny = 2\n';
    const s = steps(['step_into', 'step_into']);
    expect(serializeContext(program) + historyText(program, s)).toBe(serializeTrajectory({ direction: 'forward', program, steps: s, exit: null }));
  });
});

describe('locals constraint', () => {
  // Regression: a key at the length cap that repeats an earlier key was accepted as a
  // prefix, after which no character could follow (a dead end for the decoder).
  it('never accepts a prefix it cannot complete, even a taken name at the length cap', () => {
    const seg = new LocalsSegment(false);
    const push = (text: string) => Array.from(text).every((ch, i) => seg.push(ch.codePointAt(0)!, i));
    const long = 'a'.repeat(100);
    expect(push(`{"${long}": "1", "`)).toBe(true);
    expect(push('a'.repeat(99))).toBe(true);
    expect(seg.clone().push('a'.codePointAt(0)!, 0)).toBe(false); // would repeat the taken name
    expect(push('b"')).toBe(true); // a new name at the cap is fine
  });

  it('refuses a repeated key when it closes', () => {
    const seg = new LocalsSegment(false);
    const push = (text: string) => Array.from(text).every((ch, i) => seg.push(ch.codePointAt(0)!, i));
    expect(push('{"x": "1", "x')).toBe(true);
    expect(seg.clone().push('"'.codePointAt(0)!, 0)).toBe(false);
    expect(push('y": "2"}')).toBe(true);
  });

  it('with required names, writes those first, in order, and closes only after the last', () => {
    const seg = new LocalsSegment(false, ['s', 't']);
    const push = (text: string) => Array.from(text).every((ch, i) => seg.push(ch.codePointAt(0)!, i));
    const tries = (text: string) => {
      const c = seg.clone();
      return Array.from(text).every((ch, i) => c.push(ch.codePointAt(0)!, i));
    };
    expect(tries('{}')).toBe(false);
    expect(tries('{"t"')).toBe(false);
    expect(push('{"s": "\'ab\'"')).toBe(true);
    expect(tries('}')).toBe(false);
    expect(push(', "t": "1"')).toBe(true);
    expect(tries(', "s"')).toBe(false); // taken
    expect(tries(', "free": "2"}')).toBe(true); // a closure's free variable may follow
    expect(push('}')).toBe(true);
    expect(seg.canEnd()).toBe(true);
  });

  it("with the function's names, refuses a name it does not have, and a comma once all are written", () => {
    const seg = new LocalsSegment(false, undefined, new KnownNames(new Set(['n', 'nums'])));
    const push = (text: string) => Array.from(text).every((ch, i) => seg.push(ch.codePointAt(0)!, i));
    const tries = (text: string) => {
      const c = seg.clone();
      return Array.from(text).every((ch, i) => c.push(ch.codePointAt(0)!, i));
    };
    expect(tries('{"tries"')).toBe(false);
    expect(push('{"n": "1", "nu')).toBe(true);
    expect(tries('"')).toBe(false); // "nu" is no name of the function
    expect(push('ms": "[]"')).toBe(true);
    expect(tries(',')).toBe(false);
    expect(push('}')).toBe(true);
  });
});

describe('JSON string constraint', () => {
  const sameText = (want: string): ContentRule => ({ prefix: (s) => want.startsWith(s), complete: (s) => s === want });
  const pushAll = (str: JsonString, text: string) => Array.from(text).every((ch, i) => str.push(ch.codePointAt(0)!, i));

  // Regression (a real-code row): a value kept from an earlier frame wanted `"` next; `\u`
  // and hex digits were taken without the rule, and after `\u001` no digit could follow.
  it('takes a \\u escape only while some character it can write fits the rule', () => {
    const quoted = new JsonString(sameText('say "hi"'));
    expect(pushAll(quoted, '"say \\')).toBe(true); // `\"` can follow
    expect(pushAll(quoted.clone(), 'u')).toBe(false); // JSON.stringify writes `"` as \", never \u0022
    expect(pushAll(quoted, '"hi\\""')).toBe(true);
    expect(quoted.closed).toBe(true);

    const control = new JsonString(sameText('a\u0001'));
    expect(pushAll(control, '"a\\u00')).toBe(true);
    expect(pushAll(control.clone(), '1')).toBe(false); // \u001X writes U+0010..U+001F only
    expect(pushAll(control, '01"')).toBe(true);
  });
});

describe('location constraint', () => {
  const names = new FrameNames(['<module>', 'count', 'is_match']);
  const loc = (rules: Partial<LocRules>, text: string) => {
    const seg = new LocSegment({ lineCount: 20, names, bareAllowed: false, ...rules });
    return Array.from(text).every((ch) => seg.push(ch.codePointAt(0)!)) && seg.canEnd();
  };

  it("a breakpoint's frame ends on its line, in the function that holds it", () => {
    const innermost = { line: 9, function: 'count' };
    expect(loc({ innermost }, 'count:9')).toBe(true);
    expect(loc({ innermost }, '<module>:12 count:9')).toBe(true);
    expect(loc({ innermost }, 'count:8')).toBe(false);
    expect(loc({ innermost }, 'is_match:9')).toBe(false);
    expect(loc({ innermost: { line: 9 } }, 'is_match:9')).toBe(true);
  });

  it("a call frame's innermost function sits on its call line", () => {
    const callLines = new Map([['count', new Set([5])]]);
    const innermostLines = (name: string) => callLines.get(name);
    expect(loc({ innermostLines }, 'count:5')).toBe(true);
    expect(loc({ innermostLines }, 'count:6')).toBe(false);
    expect(loc({ innermostLines }, 'count:6 is_match:1')).toBe(true); // names not listed are free
  });
});

/**
 * The frame constraint of the model client (no model needed): every frame of real
 * trajectories is accepted as written, and wrong frames are refused at the first wrong
 * character.
 */
import { describe, expect, it } from 'vitest';
import { serializeExit, serializeFrame } from '../grammar/serialize.js';
import type { Action, State, Trajectory } from '../grammar/state.js';
import { TOKEN_PATTERN, TOKENS } from '../grammar/tokens.js';
import { truncateTrajectory } from '../grammar/truncate.js';
import { FrameConstraint, type FrameRules } from '../model-client/frame-constraint.js';
import { FrameNames } from '../model-client/loc-constraint.js';
import { StateTree } from '../state-tree/tree.js';
import { sourceLines, traceSource } from '../tracer/run-tracer.js';
import { Rng } from '../data-pipeline/rng.js';
import { sampleTrajectory } from '../data-pipeline/trajectories.js';

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
  it('accepts every frame of sampled trajectories of real traces, and finishes exactly at the end', async () => {
    const program = [
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
    ].join('\n');
    const trace = await traceSource(program, { entry: 'main', args: `['a<|b', 'ü\\n\\t\\x00', '${'c'.repeat(120)}']` });
    const tree = new StateTree(trace);
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
      expect(line('{"…": "+3"}')).toBeNull();
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

import { spawnSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseMix } from '../data-pipeline/build.js';
import type { ProgramSpec } from '../data-pipeline/program.js';
import { generateSemanticsProgram } from '../data-pipeline/semantics.js';

const PYTHON = '/usr/bin/python3';
const COUNT = 600;

/**
 * Runs every program in one Python process (exec in a fresh namespace, call the entry on its
 * literal arguments under an alarm) and reports how each ended and which attributes and
 * builtins it calls.
 */
const RUNNER = String.raw`
import ast, json, signal, sys

class Timeout(Exception):
    pass

def on_alarm(signum, frame):
    raise Timeout()

signal.signal(signal.SIGALRM, on_alarm)
for line in sys.stdin:
    p = json.loads(line)
    calls = set()
    try:
        tree = ast.parse(p['source'])
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                f = node.func
                calls.add(f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else '?')
            if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice) and node.slice.step is not None:
                calls.add('[::step]')
            if isinstance(node, ast.Starred):
                calls.add('*unpack')
            if isinstance(node, ast.JoinedStr):
                calls.add('f-string')
        ns = {}
        exec(compile(tree, '<program>', 'exec'), ns)
        args = eval('(' + p['args'] + ',)', {})
        signal.alarm(2)
        try:
            ns[p['entry']](*args)
        finally:
            signal.alarm(0)
        end = 'ok'
    except SyntaxError:
        end = 'SyntaxError'
    except BaseException as e:
        end = type(e).__name__
    print(json.dumps({'end': end, 'calls': sorted(calls)}))
`;

describe('semantics curriculum', () => {
  let programs: ProgramSpec[];
  let results: { end: string; calls: string[] }[];

  beforeAll(() => {
    programs = Array.from({ length: COUNT }, (_, i) => generateSemanticsProgram(7, i));
    const run = spawnSync(PYTHON, ['-c', RUNNER], { input: programs.map((p) => JSON.stringify(p)).join('\n'), encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    results = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as { end: string; calls: string[] });
  });

  it('is reproducible from (seed, index) and ids its programs by origin', () => {
    expect(generateSemanticsProgram(7, 12)).toEqual(programs[12]);
    expect(generateSemanticsProgram(8, 12).source).not.toBe(programs[12]!.source);
    expect(programs[3]).toMatchObject({ id: 'semantics/000003', group: 'semantics/000003', origin: 'semantics' });
  });

  it('writes programs that parse and mostly run, with some ending in a builtin exception', () => {
    const ends = new Map<string, number>();
    for (const r of results) ends.set(r.end, (ends.get(r.end) ?? 0) + 1);
    expect(ends.get('SyntaxError') ?? 0).toBe(0);
    expect(ends.get('Timeout') ?? 0).toBe(0);
    expect(ends.get('ok') ?? 0).toBeGreaterThan(COUNT * 0.8);
    const builtin = ['IndexError', 'KeyError', 'ValueError', 'ZeroDivisionError'].reduce((n, k) => n + (ends.get(k) ?? 0), 0);
    expect(builtin).toBeGreaterThan(COUNT * 0.03);
    // Types keep the generator from writing nonsense: a TypeError or a NameError is its own bug.
    expect((ends.get('TypeError') ?? 0) + (ends.get('NameError') ?? 0) + (ends.get('UnboundLocalError') ?? 0)).toBeLessThan(COUNT * 0.03);
  });

  it('covers the builtin types methods, slicing with steps, unpacking and f-strings', () => {
    const seen = new Set(results.flatMap((r) => r.calls));
    for (const name of ['split', 'join', 'strip', 'replace', 'find', 'count', 'upper', 'startswith', 'append', 'pop', 'sort',
      'get', 'items', 'setdefault', 'add', 'sorted', 'enumerate', 'zip', 'len', 'sum', 'max', 'min', 'any', 'all', '[::step]',
      '*unpack', 'f-string']) {
      expect(seen, name).toContain(name);
    }
  });

  it('sets the build mix by origin and refuses a bad one', () => {
    expect(parseMix('semantics=0.4,synthetic=0.6')).toMatchObject({ semantics: 0.4, synthetic: 0.6, mbpp: 0, stdlib: 0 });
    expect(() => parseMix('cruxeval=1')).toThrow(/ORIGIN=SHARE/);
    expect(() => parseMix('semantics=-1')).toThrow(/ORIGIN=SHARE/);
  });
});

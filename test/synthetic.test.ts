import { spawnSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ProgramSpec } from '../data-pipeline/program.js';
import { generateSyntheticProgram } from '../data-pipeline/synthetic.js';

const PYTHON = '/usr/bin/python3';
const SEED = 20240611;
const COUNT = 200;

/**
 * Runs every program in one Python process: parse, exec in a fresh namespace, call the entry
 * on its literal arguments under a time limit, counting trace events as the tracer would see
 * them. Also reports each program's normalized shape (names and constants erased) and which
 * constructs it uses.
 */
const RUNNER = String.raw`
import ast, json, resource, signal, sys

resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

class Timeout(Exception):
    pass

def on_alarm(signum, frame):
    raise Timeout()

signal.signal(signal.SIGALRM, on_alarm)

DICT_METHODS = {'get', 'items', 'setdefault', 'values', 'keys', 'fromkeys'}
STR_METHODS = {'upper', 'lower', 'split', 'join', 'replace', 'strip', 'startswith', 'endswith',
               'find', 'isdigit', 'isalpha', 'title', 'capitalize', 'partition', 'zfill', 'center'}

class Erase(ast.NodeTransformer):
    def visit_Name(self, node):
        return ast.copy_location(ast.Name(id='_', ctx=node.ctx), node)
    def visit_arg(self, node):
        node.arg = '_'
        return node
    def visit_FunctionDef(self, node):
        self.generic_visit(node)
        node.name = '_'
        return node
    def visit_Constant(self, node):
        return ast.copy_location(ast.Constant(value=type(node.value).__name__), node)

def features(tree):
    funcs = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    names = {f.name for f in funcs}
    found = set()
    for fn in funcs:
        for node in ast.walk(fn):
            if isinstance(node, (ast.For, ast.While)):
                found.add('loops')
            if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
                found.add('comprehensions')
            if isinstance(node, ast.Try):
                found.add('try')
            if isinstance(node, (ast.Dict, ast.DictComp)) or (isinstance(node, ast.Attribute) and node.attr in DICT_METHODS):
                found.add('dicts')
            if isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Attribute) and node.attr in STR_METHODS):
                found.add('strings')
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names:
                found.add('recursion' if node.func.id == fn.name else 'helper_calls')
    return sorted(found)

results = []
for spec in json.load(sys.stdin):
    out = {'id': spec['id']}
    results.append(out)
    try:
        tree = ast.parse(spec['source'])
    except SyntaxError as e:
        out['outcome'] = 'SyntaxError'
        out['detail'] = str(e)
        continue
    out['shape'] = ast.dump(Erase().visit(ast.parse(spec['source'])))
    out['features'] = features(tree)
    events = [0]
    def tracer(frame, event, arg):
        if frame.f_code.co_filename != '<synthetic>':
            return None
        events[0] += 1
        return tracer
    namespace = {}
    try:
        exec(compile(tree, '<synthetic>', 'exec'), namespace)
        args = ast.literal_eval('(' + spec['args'] + ',)')
        signal.setitimer(signal.ITIMER_REAL, 2.0)
        sys.settrace(tracer)
        try:
            value = namespace[spec['entry']](*args)
        finally:
            sys.settrace(None)
            signal.setitimer(signal.ITIMER_REAL, 0)
        out['outcome'] = 'ok'
        out['detail'] = repr(value)[:500]
    except Timeout:
        out['outcome'] = 'timeout'
    except BaseException as e:
        out['outcome'] = type(e).__name__
        out['detail'] = str(e)[:200]
    out['events'] = events[0]
json.dump(results, sys.stdout)
`;

interface RunResult {
  id: string;
  outcome: string;
  detail?: string;
  shape?: string;
  features?: string[];
  events?: number;
}

function runAll(programs: readonly ProgramSpec[], hashSeed: string): RunResult[] {
  const proc = spawnSync(PYTHON, ['-c', RUNNER], {
    input: JSON.stringify(programs),
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    env: { ...process.env, PYTHONHASHSEED: hashSeed },
  });
  if (proc.status !== 0) throw new Error(`runner failed: ${proc.stderr}`);
  return JSON.parse(proc.stdout) as RunResult[];
}

/** Exceptions the generator plants on purpose (uncaught raises and unguarded operations). */
const INTENDED = new Set(['ValueError', 'KeyError', 'IndexError', 'ZeroDivisionError']);

const quantile = (xs: readonly number[], q: number): number => [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))]!;

describe('generateSyntheticProgram', () => {
  const programs = Array.from({ length: COUNT }, (_, i) => generateSyntheticProgram(SEED, i));

  it('is deterministic in (seed, index) and varies with both', () => {
    for (const i of [0, 1, 17, 199]) expect(generateSyntheticProgram(SEED, i)).toEqual(programs[i]);
    expect(new Set(programs.map((p) => p.source)).size).toBe(COUNT);
    expect(generateSyntheticProgram(SEED + 1, 0).source).not.toBe(programs[0]!.source);
  });

  it('fills the spec: id, group, origin, entry defined last, arguments, 5 to 32 lines', () => {
    programs.forEach((p, i) => {
      const id = `synthetic/${String(i).padStart(6, '0')}`;
      expect(p).toMatchObject({ id, group: id, origin: 'synthetic' });
      const defs = [...p.source.matchAll(/^def (\w+)\(/gm)].map((m) => m[1]);
      expect(defs[defs.length - 1]).toBe(p.entry);
      expect(p.source).not.toMatch(/^(import|from) /m);
      expect(p.args.length).toBeGreaterThan(0);
      const lines = p.source.split('\n').filter((l) => l.trim() !== '').length;
      expect(lines).toBeGreaterThanOrEqual(5);
      expect(lines).toBeLessThanOrEqual(32);
    });
  });

  it('generates quickly', () => {
    const start = performance.now();
    for (let i = 0; i < 500; i++) generateSyntheticProgram(SEED + 2, i);
    expect(performance.now() - start).toBeLessThan(5000);
  });

  describe('run with Python', () => {
    let results: RunResult[];
    beforeAll(() => {
      results = runAll(programs, '1');
    });

    it('parses, terminates, and mostly returns normally; the rest raise on purpose', () => {
      expect(results).toHaveLength(COUNT);
      const unintended = results.filter((r) => r.outcome !== 'ok' && !INTENDED.has(r.outcome));
      expect(unintended).toEqual([]);
      const ok = results.filter((r) => r.outcome === 'ok').length;
      expect(ok / COUNT).toBeGreaterThanOrEqual(0.85);
      expect(ok).toBeLessThan(COUNT); // some programs do raise: that is part of the data
    });

    it('keeps traces short', () => {
      const events = results.map((r) => r.events ?? 0);
      expect(quantile(events, 0.5)).toBeLessThanOrEqual(120);
      expect(quantile(events, 0.95)).toBeLessThanOrEqual(600);
    });

    it('does not depend on string hashing (same results under another PYTHONHASHSEED)', () => {
      const again = runAll(programs, '12345');
      expect(again.map((r) => [r.outcome, r.detail])).toEqual(results.map((r) => [r.outcome, r.detail]));
    });

    it('is diverse: distinct shapes, and every construct in at least 5% of programs', () => {
      expect(new Set(results.map((r) => r.shape)).size).toBeGreaterThanOrEqual(150);
      const share = (feature: string) => results.filter((r) => r.features?.includes(feature)).length / COUNT;
      for (const feature of ['loops', 'comprehensions', 'helper_calls', 'recursion', 'try', 'dicts', 'strings']) {
        expect(share(feature), feature).toBeGreaterThanOrEqual(0.05);
      }
    });
  });
});

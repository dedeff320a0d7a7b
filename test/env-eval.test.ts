/**
 * `ndb eval environment` (evaluation/env-eval.ts): the type of a value read from its repr, the
 * per-value scoring on a hand-checked stop, the corpus's scripts under the real pdb in the
 * harness, two stdlib programs end to end (harness trace, prediction, report), and a program
 * whose imports are missing debugged without running anything.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Action } from '../grammar/state.js';
import type { HistoryEntry, Prediction, Predictor } from '../model-client/predictor.js';
import type { Entry } from '../program-analysis/entry-state.js';
import { defaultEnvCorpusDir, EnvHarness, evaluateEnvironment, formatEnvEval, noValues, observeInHarness, scoreStopValues } from '../evaluation/env-eval.js';
import { PYTHON } from '../evaluation/pdb-driver.js';
import { readCorpus, type StopView } from '../evaluation/pdb-eval.js';
import { reprType, sameType } from '../evaluation/repr-type.js';
import { TracerPredictor } from '../evaluation/tracer-predictor.js';
import { HAS_EMBEDDED_MODEL, ROOT } from './fixtures.js';

const corpusDir = defaultEnvCorpusDir();
const corpus = readCorpus(corpusDir);
const dir = mkdtempSync(join(tmpdir(), 'ndb-env-eval-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the type of a repr', () => {
  it('reads builtins, containers, objects and library reprs', () => {
    const cases: [string, string][] = [
      ['None', 'NoneType'],
      ['True', 'bool'],
      ['0', 'int'],
      ['-42', 'int'],
      ['1.5', 'float'],
      ['-0.25', 'float'],
      ['2e-05', 'float'],
      ['1e+16', 'float'],
      ['inf', 'float'],
      ['nan', 'float'],
      ['(1+2j)', 'complex'],
      ["'x'", 'str'],
      ['"it\'s"', 'str'],
      ["b'\\x00ab'", 'bytes'],
      ['[1, 2]', 'list'],
      ['[]', 'list'],
      ["('a', 1)", 'tuple'],
      ['()', 'tuple'],
      ['{}', 'dict'],
      ["{'a': 1}", 'dict'],
      ["{'a:b', 'c'}", 'set'],
      ['{(1, 2): [3]}', 'dict'],
      ['{1, 2}', 'set'],
      ['set()', 'set'],
      ["frozenset({1})", 'frozenset'],
      ["{'users': [{'id': 1, 'name': 'ada'…", 'dict'],
      ['<__main__.TTLCache object at 0x…>', 'TTLCache'],
      ['<requests.models.Response object at 0x7f00>', 'Response'],
      ['<Response [200]>', 'Response'],
      ["<re.Match object; span=(0, 3), match='abc'>", 'Match'],
      ['<http.client.HTTPResponse object at 0x…>', 'HTTPResponse'],
      ['<function main at 0x…>', 'function'],
      ["<class 'int'>", 'type'],
      ["<module 'json' from '/usr/lib/python3.11/json/__init__.py'>", 'module'],
      ['<built-in function len>', 'builtin_function_or_method'],
      ['<generator object f at 0x…>', 'generator'],
      ["PosixPath('notes/todo.txt')", 'PosixPath'],
      ['datetime.datetime(2024, 6, 1, 10, 15)', 'datetime'],
      ['datetime.date(2024, 6, 1)', 'date'],
      ['array([12.5, 13.1])', 'array'],
      ["Counter({'INFO': 3})", 'Counter'],
      ["defaultdict(<class 'float'>, {})", 'defaultdict'],
      ["ValueError(\"invalid literal for int() with base 10: ''\")", 'ValueError'],
      ["re.compile('^(\\\\S+)')", 'compile'],
      ['???', 'other'],
      ['', 'other'],
    ];
    expect(cases.map(([r]) => [r, reprType(r)])).toEqual(cases);
  });

  it('matches types, never two unknown shapes', () => {
    expect(sameType('1', '7')).toBe(true);
    expect(sameType('1', '1.0')).toBe(false);
    expect(sameType("'https://a'", '<Response [200]>')).toBe(false);
    expect(sameType('<requests.models.Response object at 0x…>', '<Response [200]>')).toBe(true);
    expect(sameType('???', '???')).toBe(false);
  });
});

describe('scoring values', () => {
  const stop = (locals: Record<string, string>, value?: string, line = 7): StopView => ({
    at: 'stop',
    event: value === undefined ? 'line' : 'return',
    line,
    function: 'fetch',
    stack: [{ function: '<module>', line: 20 }, { function: 'fetch', line }],
    locals,
    ...(value === undefined ? {} : { value }),
  });

  it('counts each local pdb shows at a stop where ndb stands, and the return value', () => {
    const pdb = stop({ url: "'http://127.0.0.1:8000/a'", r: '<Response [200]>', n: '3', data: "{'a': 1}", '…': '+2' }, '[1.5]');
    const ndb = stop({ url: "'http://127.0.0.1:8000/a'", r: "'https://a'", n: '8', extra: '0' }, '(1, 2)');
    // url: exact; r: str for a Response; n: int for an int, wrong value; data: missing; the `…` entry is
    // not a value; the return value: a tuple for a list.
    expect(scoreStopValues(pdb, ndb)).toEqual({ values: 5, typeRight: 2, exact: 1, missing: 1, stops: 1 });
  });

  it('counts nothing where ndb stands elsewhere or has ended', () => {
    const pdb = stop({ n: '3' });
    expect(scoreStopValues(pdb, stop({ n: '3' }, undefined, 8))).toEqual(noValues());
    expect(scoreStopValues(pdb, { at: 'end', end: { kind: 'normal' } })).toEqual(noValues());
    expect(scoreStopValues({ at: 'end', end: { kind: 'normal' } }, pdb)).toEqual(noValues());
  });
});

/** Python can import each module a program imports (numpy, requests, dateutil come from Debian's packages). */
function importable(path: string): boolean {
  const modules = [...readFileSync(path, 'utf8').matchAll(/^(?:import|from) ([\w.]+)/gm)].map((m) => m[1]!.split('.')[0]!);
  const r = spawnSync(PYTHON, ['-c', modules.map((m) => `import ${m}`).join('; ')], { encoding: 'utf8' });
  return r.status === 0;
}

describe('the environment corpus', () => {
  it('parses, with 30 programs or more and about a third held out', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(30);
    const heldout = corpus.filter((p) => p.split === 'heldout').length;
    expect(heldout / corpus.length).toBeGreaterThan(0.25);
    expect(heldout / corpus.length).toBeLessThan(0.4);
  });

  it('every script runs under real pdb in the harness: it stays in the program and ends only at its last command', async () => {
    const harness = await EnvHarness.open(corpusDir);
    try {
      for (const p of corpus.filter((p) => importable(p.path))) {
        const views = await observeInHarness(p, harness);
        expect(views.length, p.name).toBe(p.commands.length + 1);
        expect(views.filter((v) => v.at === 'outside'), p.name).toEqual([]);
        expect(views.slice(0, -1).filter((v) => v.at === 'end'), p.name).toEqual([]);
        const last = views[views.length - 1]!;
        expect(last.at === 'end' && last.end.kind === 'error', p.name).toBe(false);
      }
    } finally {
      await harness.close();
    }
  }, 240_000);

  it('the harness serves fixed responses and 404s, and writes its address back as the placeholder', async () => {
    const harness = await EnvHarness.open(corpusDir);
    try {
      const url = `http://${harness.host}`;
      const ok = await fetch(`${url}/api/users.json`);
      expect(ok.status).toBe(200);
      expect(ok.headers.get('date')).toBeNull();
      expect(((await ok.json()) as { total: number }).total).toBe(3);
      expect((await fetch(`${url}/api/v2/orders.json`)).status).toBe(404);
      expect(harness.unharness(`'${url}/x'`)).toBe("'http://127.0.0.1:8000/x'");
    } finally {
      await harness.close();
    }
  });
});

// ---- end to end on two stdlib programs ------------------------------------------------------------

const TWO = ['env_settings', 'config_loader'];
const two = () => corpus.filter((p) => TWO.includes(p.name)).map((p) => ({ ...p, split: 'dev' as const }));

/** The real run (the tracer, outside the harness), every int it shows written as a str: `7` as `'int:7'`. */
class IntsAsStrings implements Predictor {
  private readonly real = new TracerPredictor();
  private static readonly INT = /^-?\d+$/;

  start(program: string, entry: Entry | null): Promise<Prediction> {
    return this.real.start(program, entry).then((p) => this.disguise(p));
  }

  async predict(history: readonly HistoryEntry[], action: Action): Promise<Prediction> {
    const undo = (v: string) => /^'int:(-?\d+)'$/.exec(v)?.[1] ?? v;
    const real = history.map((h) => ({ ...h, state: { ...h.state, locals: Object.fromEntries(Object.entries(h.state.locals).map(([k, v]) => [k, undo(v)])), ...(h.state.value === undefined ? {} : { value: undo(h.state.value) }) } }));
    return this.disguise(await this.real.predict(real, action));
  }

  private disguise(p: Prediction): Prediction {
    if (p.kind !== 'state') return p;
    const as = (v: string) => (IntsAsStrings.INT.test(v) ? `'int:${v}'` : v);
    const s = p.state;
    return { ...p, state: { ...s, locals: Object.fromEntries(Object.entries(s.locals).map(([k, v]) => [k, as(v)])), ...(s.value === undefined ? {} : { value: as(s.value) }) } };
  }
}

describe('end to end', () => {
  it('env_settings with the real run writing every int as a str: exactly the ints are the wrong type', async () => {
    const [program] = two().filter((p) => p.name === 'env_settings');
    const report = await evaluateEnvironment([program!], new IntsAsStrings(), 'dev', corpusDir, { resync: false });
    const r = report.programs[0]!;
    expect(r.error).toBeUndefined();
    // Reading the environment takes the same path in the harness and outside it: every stop is where pdb's is.
    expect(r.lineRight).toBe(r.stops);
    let ints = 0;
    let values = 0;
    for (const d of r.detail!) {
      if (d.pdb.at !== 'stop') continue;
      const shown = [...Object.values(d.pdb.locals), ...(d.pdb.value === undefined ? [] : [d.pdb.value])];
      values += shown.length;
      ints += shown.filter((v) => /^-?\d+$/.test(v)).length;
    }
    expect(ints).toBeGreaterThan(0);
    expect(r.values).toMatchObject({ values, missing: 0, typeRight: values - ints });
    // Exact: neither an int (written as a str) nor what differs outside the harness (HOME is its folder there).
    expect(r.values.exact).toBeLessThan(values - ints);
    expect(r.values.stops).toBe(r.stops);
  }, 60_000);

  it.skipIf(!HAS_EMBEDDED_MODEL)('two stdlib programs on the shipped model: the report, its totals and its table', async () => {
    const { NeuralPredictor } = await import('../model-client/neural-predictor.js');
    const model = await NeuralPredictor.load(join(ROOT, 'models', 'default'), { threads: 1 });
    try {
      const programs = two();
      const report = await evaluateEnvironment(programs, model, 'dev', corpusDir);
      expect(report.programs.map((p) => p.name).sort()).toEqual([...TWO].sort());
      const t = report.totals.dev!;
      expect(t.programs).toBe(2);
      expect(t.failed).toBe(0);
      for (const v of [t.values, t.resyncValues]) {
        expect(v.values).toBeGreaterThan(0);
        expect(v.exact).toBeLessThanOrEqual(v.typeRight);
        expect(v.typeRight + v.missing).toBeLessThanOrEqual(v.values);
      }
      expect(t.values.stops).toBe(t.lineRight);
      expect(report.programs.reduce((s, p) => s + p.values.values, 0)).toBe(t.values.values);
      const table = formatEnvEval(report, 'test');
      expect(table).toMatch(/^ndb eval environment: test, 2 programs/);
      expect(table).toContain('type right');
      expect(table).toContain('stops, as ndb eval pdb counts them:');
      for (const name of TWO) expect(table).toContain(name);
    } finally {
      await model.release();
    }
  }, 240_000);
});

// ---- missing imports --------------------------------------------------------------------------------

describe.skipIf(!HAS_EMBEDDED_MODEL)('a program whose imports are missing', () => {
  it('is debugged without an error and without running anything', () => {
    const marker = join(dir, 'ran.marker');
    const program = join(dir, 'missing_imports.py');
    writeFileSync(
      program,
      [
        `open(${JSON.stringify(marker)}, "w").write("module ran")`,
        'import requests_nonexistent_lib',
        'from numpy_nonexistent_lib.linalg import solve',
        '',
        '',
        'def fetch(url):',
        `    open(${JSON.stringify(marker)}, "w").write("fetch ran")`,
        '    response = requests_nonexistent_lib.get(url, timeout=5)',
        '    data = response.json()',
        '    return solve(data["a"], data["b"])',
        '',
        '',
        'result = fetch("http://127.0.0.1:8000/api/system.json")',
        'print(result)',
        '',
      ].join('\n'),
    );
    const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'ndb.js'), 'debug', program], { input: ['n', 'n', 'n', 's', 'n', 'n', 'locals', 'c', 'q'].map((c) => c + '\n').join(''), encoding: 'utf8', timeout: 150_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/error|Traceback/i);
    expect(r.stdout).toContain(`> ${program}(`);
    expect(existsSync(marker)).toBe(false);
  }, 160_000);
});

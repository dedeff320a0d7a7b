/**
 * The real-program corpora: HumanEval and MBPP problems with the literal inputs of their
 * tests, calls of standard library functions sampled from the stdlib's own tests, and calls
 * of Debian packages' functions sampled from their docstring examples.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadCorpus, type CorpusOrigin } from '../data-pipeline/corpora/index.js';
import { type CallSkips, loadPackageCalls, loadStdlibCalls } from '../data-pipeline/corpora/module-calls.js';
import { pythonBin } from '../data-pipeline/corpora/support.js';
import type { ProgramSpec } from '../data-pipeline/program.js';

const origins: CorpusOrigin[] = ['humaneval', 'mbpp', 'stdlib', 'packages'];
const corpora = {} as Record<CorpusOrigin, ProgramSpec[]>;

beforeAll(async () => {
  for (const origin of origins) corpora[origin] = await loadCorpus(origin);
});

/**
 * The specs whose entry is not a function of their program's top level (a `def` at module
 * level, also inside `if`/`try` there) or whose args are not all literals in a call `f(ARGS)`:
 * `id: reason` lines, checked in one Python run.
 */
function invalidSpecs(specs: ProgramSpec[]): string[] {
  const script = `
import ast, json, sys

def top_level_defs(source):
    names, blocks = set(), [ast.parse(source).body]
    while blocks:
        for node in blocks.pop():
            if isinstance(node, ast.FunctionDef):
                names.add(node.name)
            elif not isinstance(node, (ast.ClassDef, ast.AsyncFunctionDef)):
                blocks.extend(value for name, value in ast.iter_fields(node)
                              if name in ('body', 'orelse', 'finalbody'))
                blocks.extend(handler.body for handler in getattr(node, 'handlers', []))
    return names

def literal_args(args):
    try:
        call = ast.parse(f'f({args})', mode='eval').body
        for node in call.args + [k.value for k in call.keywords]:
            if isinstance(node, ast.Starred):
                return False
            ast.literal_eval(node)
        return all(k.arg is not None for k in call.keywords)
    except Exception:
        return False

data = json.load(sys.stdin)
defs = [top_level_defs(source) for source in data['sources']]
bad = []
for spec in data['specs']:
    if spec['entry'] not in defs[spec['source']]:
        bad.append(f"{spec['id']}: no def {spec['entry']}")
    if not literal_args(spec['args']):
        bad.append(f"{spec['id']}: not literal: {spec['args']}")
json.dump(bad, sys.stdout)
`;
  // Sources are sent once each: the stdlib's specs share few, long module texts.
  const sources = [...new Set(specs.map((spec) => spec.source))];
  const sourceIndex = new Map(sources.map((source, i) => [source, i]));
  const input = JSON.stringify({
    sources,
    specs: specs.map((spec) => ({ id: spec.id, entry: spec.entry, args: spec.args, source: sourceIndex.get(spec.source) })),
  });
  const run = spawnSync(pythonBin(), ['-c', script], { input, encoding: 'utf8', maxBuffer: 64 << 20 });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as string[];
}

const problems = (specs: ProgramSpec[]): Set<string> => new Set(specs.map((spec) => spec.group));

describe.each(origins)('the %s corpus', (origin) => {
  it('has unique ids, its origin, entries defined in their programs, and literal args', () => {
    const specs = corpora[origin];
    expect(new Set(specs.map((spec) => spec.id)).size).toBe(specs.length);
    for (const spec of specs) expect(spec.origin).toBe(origin);
    expect(invalidSpecs(specs)).toEqual([]);
  });

  it('keeps each program in one group, with one source and entry', () => {
    const byGroup = new Map<string, ProgramSpec>();
    for (const spec of corpora[origin]) {
      const first = byGroup.get(spec.group) ?? spec;
      byGroup.set(spec.group, first);
      if (origin === 'stdlib' || origin === 'packages') {
        expect(spec.group).toBe(`${origin}/${spec.id.slice(origin.length + 1).split('.')[0]}`);
      } else {
        expect(spec.id.split('#')[0]).toBe(spec.group);
        expect(spec.source).toBe(first.source);
        expect(spec.entry).toBe(first.entry);
      }
    }
  });
});

describe('HumanEval', () => {
  it('gives most problems at least one input', () => {
    expect(problems(corpora.humaneval).size).toBeGreaterThanOrEqual(150);
  });

  it('takes the program from prompt and solution, the inputs from check()', () => {
    const first = corpora.humaneval.find((spec) => spec.id === 'humaneval/0#0');
    expect(first).toMatchObject({ group: 'humaneval/0', entry: 'has_close_elements', args: '[1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.3' });
    expect(first?.source).toContain('from typing import List');
    expect(first?.source).toContain('for idx, elem in enumerate(numbers):');
    // Problem 32's check() only calls candidate() with generated lists.
    expect(problems(corpora.humaneval).has('humaneval/32')).toBe(false);
  });
});

describe('MBPP', () => {
  it('gives most problems at least one input', () => {
    expect(problems(corpora.mbpp).size).toBeGreaterThanOrEqual(900);
  });

  it('takes the entry and its inputs from the asserts', () => {
    const minCost = corpora.mbpp.filter((spec) => spec.group === 'mbpp/1');
    expect(minCost.map((spec) => spec.id)).toEqual(['mbpp/1#0', 'mbpp/1#1', 'mbpp/1#2']);
    expect(minCost[0]).toMatchObject({ entry: 'min_cost', args: '[[1, 2, 3], [4, 8, 2], [1, 5, 3]], 2, 2' });
    expect(minCost[0]?.source).not.toContain('\r');
    // A call nested in another (`set(f(x)) == ...`) still counts.
    const similar = corpora.mbpp.find((spec) => spec.id === 'mbpp/2#0');
    expect(similar).toMatchObject({ entry: 'similar_elements', args: '(3, 4, 5, 6), (5, 7, 4, 10)' });
  });
});

describe('stdlib calls', () => {
  it('covers many modules and functions', () => {
    const specs = corpora.stdlib;
    expect(new Set(specs.map((spec) => spec.path)).size).toBeGreaterThanOrEqual(20);
    expect(new Set(specs.map((spec) => spec.id.split('#')[0])).size).toBeGreaterThanOrEqual(200);
    expect(specs.some((spec) => spec.id.startsWith('stdlib/textwrap.dedent#'))).toBe(true);
  });

  it('calls with arguments, from existing module files, carrying their text', () => {
    for (const spec of corpora.stdlib) expect(spec.args.trim(), spec.id).not.toBe('');
    const paths = new Set(corpora.stdlib.map((spec) => spec.path));
    for (const path of paths) expect(path && existsSync(path), path).toBe(true);
    const dedent = corpora.stdlib.find((spec) => spec.id === 'stdlib/textwrap.dedent#0');
    expect(dedent).toMatchObject({ group: 'stdlib/textwrap', entry: 'dedent', path: '/usr/lib/python3.11/textwrap.py' });
    expect(dedent?.source).toContain('def dedent(text):');
  });

  it('skips, and counts, calls this Python cannot make: another release may lack a module file or a function', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'ndb-stdlib-')), 'calls.jsonl');
    const call = (path: string, fn: string) => JSON.stringify({ module: 'textwrap', path, function: fn, args: "'  x'" });
    writeFileSync(file, [call('/usr/lib/python3.11/textwrap.py', 'dedent'), call('/usr/lib/python3.11/textwrap.py', 'no_such_function'), call('/no/such/python/textwrap.py', 'dedent')].join('\n'));
    const skips: CallSkips = { missingFile: 0, missingFunction: 0 };
    const specs = await loadStdlibCalls(file, skips);
    expect(specs.map((s) => s.id)).toEqual(['stdlib/textwrap.dedent#0']);
    expect(skips).toEqual({ missingFile: 1, missingFunction: 1 });
    // On this machine's Python the committed calls all load (a function defined in a try or an if counts).
    const all: CallSkips = { missingFile: 0, missingFunction: 0 };
    const loaded = await loadStdlibCalls(undefined, all);
    expect(all.missingFile + all.missingFunction).toBeLessThan(loaded.length / 20);
  });
});

/** What .ci/run installs for these tests (its apt line). */
const APT_PACKAGES = 'apt-get install python3-boltons python3-inflection python3-toolz python3-more-itertools python3-natsort python3-humanize';

describe('Debian package calls', () => {
  it("covers the packages' modules, from their installed files, every call loading", async () => {
    // The calls' module files, from the committed corpus: a machine without the packages says what to install.
    const calls = readFileSync(new URL('../data-pipeline/corpora/packages-calls.jsonl', import.meta.url), 'utf8').trim().split('\n');
    const missing = [...new Set(calls.map((line) => (JSON.parse(line) as { path: string }).path))].filter((path) => !existsSync(path));
    expect(missing, `Debian's Python packages that these tests trace are not installed; as root run: ${APT_PACKAGES}`).toEqual([]);
    const specs = corpora.packages;
    expect(new Set(specs.map((spec) => spec.group))).toEqual(new Set(['packages/boltons', 'packages/inflection', 'packages/toolz', 'packages/more_itertools', 'packages/natsort', 'packages/humanize']));
    expect(new Set(specs.map((spec) => spec.id.split('#')[0])).size).toBeGreaterThanOrEqual(100);
    for (const spec of specs) expect(spec.path?.startsWith('/usr/lib/python3/dist-packages/'), spec.id).toBe(true);
    const pluralize = specs.find((spec) => spec.id.startsWith('packages/inflection.pluralize#'));
    expect(pluralize).toMatchObject({ entry: 'pluralize', path: '/usr/lib/python3/dist-packages/inflection.py' });
    expect(pluralize?.source).toContain('def pluralize(word');
    // apt installs the packages (.ci/run): on such a machine none is skipped.
    const skips: CallSkips = { missingFile: 0, missingFunction: 0 };
    const loaded = await loadPackageCalls(undefined, skips);
    expect(skips).toEqual({ missingFile: 0, missingFunction: 0 });
    expect(loaded.length).toBe(specs.length);
  });
});

/**
 * Which folder may reach which, read from the static imports of the sources (a dynamic
 * `import()` is a deliberate lazy load and is not followed): no file imports itself back
 * through others, the folders stand in layers (LAYERS) and import only downwards, inference
 * never reaches the data pipeline, the `ndb` command (the debugger and the language server
 * among its commands) never loads the `tokenizers` native binding that BPE training needs,
 * program analysis and the model client never reach up into what uses them or into ground
 * truth, the small shared utilities and the wire types reach nothing. And the tests take the
 * model and the example from test/fixtures.ts.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './fixtures.js';

/** Static imports and re-exports; `import type` / `export type` load nothing at run time and are left out. */
const IMPORT = /^\s*(?:import|export)\s(?!type\s)[^;]*?\sfrom\s+'([^']+)'|^\s*import\s+'([^']+)'/gm;

/** The static imports of one source file: project files (relative to the root) and package names. */
function importsOf(file: string): { files: string[]; packages: string[] } {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const files: string[] = [];
  const packages: string[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = (m[1] ?? m[2])!;
    if (spec.startsWith('.')) files.push(relative(ROOT, resolve(ROOT, dirname(file), spec.replace(/\.js$/, '.ts'))));
    else if (!spec.startsWith('node:')) packages.push(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
  }
  return { files, packages };
}

/** Every project file and package reachable from `roots` by static imports. */
function reach(roots: readonly string[]): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const todo = [...roots];
  for (let file = todo.pop(); file !== undefined; file = todo.pop()) {
    if (files.has(file)) continue;
    files.add(file);
    const found = importsOf(file);
    for (const p of found.packages) packages.add(p);
    for (const f of found.files) if (existsSync(join(ROOT, f))) todo.push(f);
  }
  return { files, packages };
}

const sources = (folder: string) =>
  readdirSync(join(ROOT, folder))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(folder, f));

/**
 * The folders, lowest first. A file may import from its own folder and from the folders of
 * lower levels only: not upwards, and not sideways into another folder of its own level.
 * A new folder goes on the lowest level its imports allow, with a line saying why.
 */
const LAYERS: readonly (readonly string[])[] = [
  // Import nothing of the project: the wire types (nothing at all: the extension compiles
  // them too), the small shared utilities, and what ndb knows of Python outside the model
  // (python/: the interpreter, running a helper script, source lines and coding lines).
  ['protocol', 'util', 'python'],
  // The trace language (states, actions, their text and its truncation): every side speaks it.
  ['grammar'],
  // Each reads or writes the trace language and knows nothing of the others: the tokenizer
  // encodes it, the tracer records real runs in it (the ground truth, which inference must
  // not depend on), program analysis reads a program without running it.
  ['tokenizer', 'tracer', 'program-analysis'],
  // The symbolic stepper: what a step does to a state, from program analysis' control flow.
  ['semantics'],
  // The tree of a recorded run (ground truth's, for the data pipeline and the verifier) and the
  // model client (prediction, which uses the stepper): neither leans on the other.
  ['state-tree', 'model-client'],
  // Training data from recorded runs (tracer, state tree, tokenizer).
  ['data-pipeline'],
  // The debugger: the model client's predictions as a run a user steps (its verify mode runs
  // the tracer and walks the tree).
  ['adapter'],
  // The model against ground truth (with the data pipeline's corpora and split), and the
  // debugger against the real pdb (ndb eval pdb drives the debugger's own runtime).
  ['evaluation'],
  // The language server: the debugger's runtime in a worker, evaluation's test cases for its verdicts.
  ['lsp'],
  // The MCP server for coding agents: the debugger's runtime and queries, evaluation's verdicts and Best@k.
  ['mcp'],
  // What one runs: the `ndb` command (each command's wiring, `ndb eval` included), the VS Code
  // extension (protocol/ only: it talks to ndb over DAP and LSP), the benchmark.
  ['cli', 'extension', 'bench'],
  // The tests reach everything, the benchmark's baselines and the extension's own logic included.
  ['test'],
];

/** Every TypeScript source of the project, in every folder (not the tool configuration at the root, not node_modules/ or builds). */
function allSources(folder = ''): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(join(ROOT, folder), { withFileTypes: true })) {
    const path = folder ? join(folder, entry.name) : entry.name;
    if (entry.isDirectory()) {
      if (!entry.name.startsWith('.') && !['node_modules', 'dist', 'out'].includes(entry.name)) found.push(...allSources(path));
    } else if (folder && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) found.push(path);
  }
  return found;
}

/** A file's top folder (data-pipeline/corpora/x.ts: data-pipeline). */
const folderOf = (file: string) => file.split(/[\\/]/)[0]!;

/**
 * The cycles of a graph, one for each group of nodes that reach each other (a strongly
 * connected component, Tarjan's algorithm), each as a shortest way round: `a → b → a`.
 */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const groups: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group = stack.splice(stack.indexOf(v));
      if (group.length > 1 || graph.get(v)?.includes(v)) groups.push(group);
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return groups.map((group) => {
    // Breadth first from the group's first node (by name) back to itself, inside the group.
    const start = [...group].sort()[0]!;
    const from = new Map<string, string>();
    const todo = [start];
    for (let v = todo.shift(); v !== undefined; v = todo.shift()) {
      for (const w of graph.get(v) ?? []) {
        if (!group.includes(w) || from.has(w)) continue;
        from.set(w, v);
        todo.push(w);
      }
      if (from.has(start)) break;
    }
    const way = [start];
    for (let v = from.get(start)!; v !== start; v = from.get(v)!) way.unshift(v);
    return [start, ...way].join(' → ');
  });
}

describe('no cycles, and the folders in layers', () => {
  const files = allSources();
  /** file -> the project files it imports statically (its own folder's included). */
  const imports = new Map(files.map((f) => [f, [...new Set(importsOf(f).files)].filter((g) => existsSync(join(ROOT, g)))]));

  it('no file imports itself back through others', () => {
    expect(files.length).toBeGreaterThan(100); // the walk finds the sources at all
    expect(cycles(imports)).toEqual([]);
  });

  it('no folder imports itself back through others (folder A → B: a file of A imports a file of B)', () => {
    const folders = new Map<string, string[]>();
    for (const [file, targets] of imports) {
      const from = folderOf(file);
      const to = folders.get(from) ?? [];
      for (const t of targets) if (folderOf(t) !== from && !to.includes(folderOf(t))) to.push(folderOf(t));
      folders.set(from, to);
    }
    expect(cycles(folders)).toEqual([]);
  });

  it('every folder with TypeScript stands in LAYERS', () => {
    const listed = new Set(LAYERS.flat());
    const missing = [...new Set(files.map(folderOf))].filter((f) => !listed.has(f)).sort();
    expect(missing, `add ${missing.join(', ')} to LAYERS in test/dependencies.test.ts, on the lowest level its imports allow, with a line saying why`).toEqual([]);
    expect(LAYERS.flat().length).toBe(listed.size); // each folder on one level only
  });

  it('a file imports only from its own folder or from folders on lower levels of LAYERS', () => {
    const level = new Map(LAYERS.flatMap((folders, i) => folders.map((f) => [f, i] as const)));
    const upwards: string[] = [];
    for (const [file, targets] of imports) {
      const from = folderOf(file);
      for (const t of targets) {
        const to = folderOf(t);
        if (to === from || !level.has(from) || !level.has(to)) continue;
        if (level.get(to)! >= level.get(from)!) upwards.push(`${file} → ${t} (${from}/ on level ${level.get(from)}, ${to}/ on level ${level.get(to)})`);
      }
    }
    expect(upwards).toEqual([]);
  });
});

describe('dependencies between folders', () => {
  it('inference (model-client/, tokenizer/, program-analysis/, adapter/, lsp/) never reaches the data pipeline', () => {
    const { files } = reach([...sources('model-client'), ...sources('tokenizer'), ...sources('program-analysis'), ...sources('adapter'), ...sources('lsp')]);
    expect([...files].filter((f) => f.startsWith('data-pipeline/'))).toEqual([]);
  });

  it('the ndb command, the debugger and the language server never load the tokenizers native binding', () => {
    // The language server's worker thread is started by its path (lsp/prediction-client.ts), not imported.
    const { packages } = reach(['cli/ndb.ts', 'adapter/server.ts', 'lsp/server.ts', 'lsp/prediction-worker.ts']);
    expect(packages.has('commander')).toBe(true); // the walk sees packages at all
    expect(packages.has('tokenizers')).toBe(false);
  });

  it('program analysis (program-analysis/) reaches neither ground truth (tracer/) nor the model client nor anything that uses it', () => {
    const { files } = reach(sources('program-analysis'));
    const above = ['tracer/', 'model-client/', 'adapter/', 'lsp/', 'evaluation/', 'data-pipeline/', 'cli/'];
    expect([...files].filter((f) => above.some((folder) => f.startsWith(folder)))).toEqual([]);
  });

  it('the model client (model-client/) reaches neither ground truth (tracer/, state-tree/, evaluation/) nor the debugger', () => {
    const { files } = reach(sources('model-client'));
    const outside = ['tracer/', 'state-tree/', 'evaluation/', 'adapter/', 'lsp/', 'cli/'];
    expect([...files].filter((f) => outside.some((folder) => f.startsWith(folder)))).toEqual([]);
  });

  it('the shared utilities (util/) and the Python helpers (python/) import nothing of the project', () => {
    for (const file of [...sources('util'), ...sources('python')]) expect(importsOf(file).files).toEqual([]);
  });

  it('the wire types (protocol/) import nothing at all, so that the extension\'s own build compiles them too', () => {
    for (const file of sources('protocol')) expect(importsOf(file)).toEqual({ files: [], packages: [] });
  });

  it('the VS Code extension (extension/src/) reaches nothing of ndb but protocol/ (it talks to ndb over DAP and LSP)', () => {
    const { files } = reach(sources('extension/src'));
    expect([...files].filter((f) => !f.startsWith('extension/src/') && !f.startsWith('protocol/'))).toEqual([]);
    expect([...files].some((f) => f.startsWith('protocol/'))).toBe(true);
  });
});

describe('the tests share their fixtures', () => {
  it('only test/fixtures.ts reads NDB_TEST_MODEL or declares the model under test', () => {
    const tests = readdirSync(join(ROOT, 'test')).filter((f) => f.endsWith('.ts') && f !== 'fixtures.ts');
    const own = tests.filter((f) => /process\.env\.NDB_TEST_MODEL|\bconst (MODEL_DIR|HAS_MODEL)\b|'models\/default'/.test(readFileSync(join(ROOT, 'test', f), 'utf8')));
    expect(own).toEqual([]);
  });

  it('examples/count.py is read (COUNT_PY, COUNT_SOURCE), not retyped', () => {
    const tests = readdirSync(join(ROOT, 'test')).filter((f) => f.endsWith('.ts') && f !== 'fixtures.ts' && f !== 'dependencies.test.ts');
    // Its first two lines as program text: quoted lines of an array, or one string with \n.
    const retyped = (text: string) => (text.includes("'def is_match(c, t):'") && text.includes("'    return c == t'")) || text.includes('def is_match(c, t):\\n    return c == t');
    expect(tests.filter((f) => retyped(readFileSync(join(ROOT, 'test', f), 'utf8')))).toEqual([]);
  });

  it('every compiled file a test waits for (dist/…) has its source: a moved file must not skip its tests in silence', () => {
    const tests = readdirSync(join(ROOT, 'test')).filter((f) => f.endsWith('.ts') && f !== 'dependencies.test.ts');
    const waited: string[] = [];
    for (const f of tests) {
      const text = readFileSync(join(ROOT, 'test', f), 'utf8');
      for (const m of text.matchAll(/'dist\/([\w/.-]+\.js)'/g)) waited.push(m[1]!);
      for (const m of text.matchAll(/join\(ROOT, 'dist', ((?:'[\w.-]+'(?:, )?)+)\)/g)) waited.push([...m[1]!.matchAll(/'([\w.-]+)'/g)].map((x) => x[1]).join('/'));
    }
    expect(waited.length).toBeGreaterThan(0);
    expect(waited.filter((js) => js.endsWith('.js') && !existsSync(join(ROOT, js.replace(/\.js$/, '.ts'))))).toEqual([]);
  });
});

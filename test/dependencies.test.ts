/**
 * Which folder may reach which, read from the static imports of the sources (a dynamic
 * `import()` is a deliberate lazy load and is not followed): inference never reaches the data
 * pipeline, the `ndb` command (the debugger and the language server among its commands) never
 * loads the `tokenizers` native binding that BPE training needs, program analysis and the
 * model client never reach up into what uses them or into ground truth, the small shared
 * utilities and the wire types reach nothing. And the tests take the model and the example
 * from test/fixtures.ts.
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

  it('program analysis (program-analysis/) reaches neither the model client nor anything that uses it', () => {
    const { files } = reach(sources('program-analysis'));
    const above = ['model-client/', 'adapter/', 'lsp/', 'evaluation/', 'data-pipeline/', 'cli/'];
    expect([...files].filter((f) => above.some((folder) => f.startsWith(folder)))).toEqual([]);
  });

  it('the model client (model-client/) reaches neither ground truth (state-tree/, evaluation/) nor the debugger', () => {
    const { files } = reach(sources('model-client'));
    const outside = ['state-tree/', 'evaluation/', 'adapter/', 'lsp/', 'cli/'];
    expect([...files].filter((f) => outside.some((folder) => f.startsWith(folder)))).toEqual([]);
  });

  it('the shared utilities (util/) import nothing of the project', () => {
    for (const file of sources('util')) expect(importsOf(file).files).toEqual([]);
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

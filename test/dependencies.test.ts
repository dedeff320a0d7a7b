/**
 * Which folder may reach which, read from the static imports of the sources (a dynamic
 * `import()` is a deliberate lazy load and is not followed): inference never reaches the data
 * pipeline, the `ndb` command (the debugger among its commands) never loads the `tokenizers`
 * native binding that BPE training needs, and the small shared utilities reach nothing.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './fixtures.js';

const IMPORT = /^\s*(?:import|export)\s[^;]*?\sfrom\s+'([^']+)'|^\s*import\s+'([^']+)'/gm;

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
  it('inference (model-client/, tokenizer/, adapter/) never reaches the data pipeline', () => {
    const { files } = reach([...sources('model-client'), ...sources('tokenizer'), ...sources('adapter')]);
    expect([...files].filter((f) => f.startsWith('data-pipeline/'))).toEqual([]);
  });

  it('the ndb command and the debugger never load the tokenizers native binding', () => {
    const { packages } = reach(['cli/ndb.ts', 'adapter/server.ts']);
    expect(packages.has('commander')).toBe(true); // the walk sees packages at all
    expect(packages.has('tokenizers')).toBe(false);
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

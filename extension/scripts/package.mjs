#!/usr/bin/env node
/**
 * `npm run package`: builds extension/ndb.vsix, the VS Code extension with everything it
 * runs, so that it installs and works with no network:
 *
 *   out/extension.js        the extension client, bundled by esbuild with vscode-languageclient
 *                           and the wire types of ../protocol/ (scripts/bundle.mjs)
 *   ndb/                    the ndb package the adapter and the language server run from:
 *     package.json bin/ dist/ (compiled, no tests or benchmarks) the Python helpers
 *     models/default/       the embedded model
 *     node_modules/         ndb's runtime dependencies (package.json "dependencies" and
 *                           what they need), native binaries for the target platform only
 *
 * The runtime dependencies sit in ndb/node_modules because vsce, run with --no-dependencies,
 * leaves out only the top-level node_modules/ of the folder it packs.
 *
 * usage: node extension/scripts/package.mjs [--target linux-x64] [--out extension/ndb.vsix] [--no-build]
 *
 * The target says which native binaries of onnxruntime-node and tokenizers go in (the
 * packages ship binaries for many platforms: ~290 MB and ~60 MB; one platform's are ~45 MB
 * and ~5 MB), and is written into the vsix, so VS Code installs it only on that platform.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { bundleExtension } from './bundle.mjs';

const EXT = dirname(dirname(fileURLToPath(import.meta.url)));
const ROOT = dirname(EXT);
const STAGE = join(EXT, '.stage');
const require = createRequire(join(ROOT, 'package.json'));

/** Per vsce target: the native files to keep (paths relative to each package). */
const TARGETS = {
  'linux-x64': { onnx: 'linux/x64', tokenizers: ['linux-x64-gnu', 'linux-x64-musl'] },
  'linux-arm64': { onnx: 'linux/arm64', tokenizers: ['linux-arm64-gnu', 'linux-arm64-musl'] },
  'darwin-arm64': { onnx: 'darwin/arm64', tokenizers: ['darwin-arm64', 'darwin-universal'] },
  'win32-x64': { onnx: 'win32/x64', tokenizers: ['win32-x64-msvc'] },
};

const { values } = parseArgs({
  options: {
    target: { type: 'string', default: 'linux-x64' },
    out: { type: 'string', default: join(EXT, 'ndb.vsix') },
    'no-build': { type: 'boolean', default: false },
  },
});
const target = TARGETS[values.target];
if (!target) throw new Error(`--target must be one of ${Object.keys(TARGETS).join(', ')}`);

function step(what) {
  process.stderr.write(`package: ${what}\n`);
}

function run(cmd, args, cwd = ROOT) {
  execFileSync(cmd, args, { cwd, stdio: 'inherit' });
}

// ---- build -----------------------------------------------------------------------------------

if (!values['no-build']) {
  step('tsc (ndb)');
  run(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.json']);
  step('tsc (extension: type-check; esbuild bundles it below)');
  run(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(EXT, 'tsconfig.json')]);
}

rmSync(STAGE, { recursive: true, force: true });
mkdirSync(join(STAGE, 'out'), { recursive: true });

step('bundle the extension client (esbuild)');
await bundleExtension(join(STAGE, 'out', 'extension.js'));

// ---- the extension -----------------------------------------------------------------------------

const manifest = JSON.parse(readFileSync(join(EXT, 'package.json'), 'utf8'));
delete manifest.scripts;
delete manifest.private;
writeFileSync(join(STAGE, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
cpSync(join(EXT, 'README.md'), join(STAGE, 'README.md'));
writeFileSync(join(STAGE, '.vscodeignore'), '# The stage holds only what the extension needs (extension/scripts/package.mjs puts it there).\n');

// ---- ndb ---------------------------------------------------------------------------------------

step('ndb: dist, bin, Python helpers, the default model');
const NDB = join(STAGE, 'ndb');
const rootPkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
mkdirSync(NDB, { recursive: true });
writeFileSync(
  join(NDB, 'package.json'),
  JSON.stringify({ name: rootPkg.name, version: rootPkg.version, description: rootPkg.description, type: rootPkg.type, license: rootPkg.license, bin: rootPkg.bin, dependencies: rootPkg.dependencies }, null, 2) + '\n',
);
cpSync(join(ROOT, 'bin'), join(NDB, 'bin'), { recursive: true });
const SKIP_DIST = new Set(['test', 'bench']);
cpSync(join(ROOT, 'dist'), join(NDB, 'dist'), {
  recursive: true,
  filter: (src) => {
    const rel = relative(join(ROOT, 'dist'), src);
    return !SKIP_DIST.has(rel.split('/')[0]) && !rel.endsWith('.map');
  },
});
for (const dir of ['tracer', 'program-analysis', 'semantics', 'model-client', 'adapter', 'evaluation', 'lsp']) {
  if (!existsSync(join(ROOT, dir))) continue;
  for (const f of readdirSync(join(ROOT, dir))) {
    if (f.endsWith('.py')) cpSync(join(ROOT, dir, f), join(NDB, dir, f));
  }
}
// The whole folder: its manifest.json lists (and checks) every file.
cpSync(join(ROOT, 'models', 'default'), join(NDB, 'models', 'default'), { recursive: true });

// ---- ndb's runtime dependencies ------------------------------------------------------------------

step(`ndb: node_modules (runtime dependencies, ${values.target} binaries)`);

/** The folder `name` resolves to from package folder `from` (Node's lookup: node_modules upwards). */
function findPackage(name, from) {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dir === ROOT || dirname(dir) === dir) return null;
  }
}

const packages = new Set();
function collect(name, from, optional) {
  const dir = findPackage(name, from);
  if (!dir) {
    if (optional) return;
    throw new Error(`${name} (needed by ${relative(ROOT, from) || 'ndb'}) is not installed: run npm ci`);
  }
  if (packages.has(dir)) return;
  packages.add(dir);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  for (const dep of Object.keys(pkg.dependencies ?? {})) collect(dep, dir, false);
  for (const dep of Object.keys(pkg.optionalDependencies ?? {})) collect(dep, dir, true);
  for (const [dep, meta] of Object.entries(pkg.peerDependenciesMeta ?? {})) if (!meta.optional) collect(dep, dir, true);
  for (const dep of Object.keys(pkg.peerDependencies ?? {})) if (!pkg.peerDependenciesMeta?.[dep]?.optional) collect(dep, dir, true);
}
for (const dep of Object.keys(rootPkg.dependencies ?? {})) collect(dep, ROOT, false);

/** Native binaries of other platforms, left out. */
function keepNative(pkgDir, src) {
  const rel = relative(pkgDir, src).split('/');
  const name = pkgDir.split('/').pop();
  if (name === 'onnxruntime-node' && rel[0] === 'bin' && rel.length >= 3) {
    // bin/napi-vN/OS/ARCH/...
    const [os, arch] = target.onnx.split('/');
    return rel[2] === os && (rel.length === 3 || rel[3] === arch);
  }
  if (name === 'tokenizers' && rel.length === 1 && rel[0].endsWith('.node')) {
    return target.tokenizers.some((t) => rel[0] === `tokenizers.${t}.node`);
  }
  return true;
}

for (const dir of packages) {
  const rel = relative(join(ROOT, 'node_modules'), dir);
  cpSync(dir, join(NDB, 'node_modules', rel), {
    recursive: true,
    dereference: true,
    filter: (src) => {
      const r = relative(dir, src);
      // Nested node_modules are their own packages (copied if needed); docs and sources are not needed.
      if (r.split('/')[0] === 'node_modules') return false;
      return keepNative(dir, src);
    },
  });
}

// ---- vsce ----------------------------------------------------------------------------------------

step(`vsce package → ${values.out}`);
rmSync(values.out, { force: true });
run(
  process.execPath,
  [
    require.resolve('@vscode/vsce/vsce'),
    'package',
    '--no-dependencies',
    '--target',
    values.target,
    '--skip-license',
    '--allow-missing-repository',
    '--allow-package-all-secrets',
    '--out',
    values.out,
  ],
  STAGE,
);
const size = statSync(values.out).size;
step(`done: ${values.out} (${(size / 1024 / 1024).toFixed(1)} MiB, ${packages.size} packages in ndb/node_modules)`);

#!/usr/bin/env node
/**
 * The extension client as the extension host loads it: src/extension.ts and what it imports
 * (the wire types in ../../protocol/, vscode-languageclient) bundled by esbuild into one
 * CommonJS file, `vscode` left to the host. `npm run build:extension` writes
 * extension/out/extension.js (the manifest's main, for running the extension from a
 * checkout); package.mjs writes the same bundle into the vsix.
 *
 * usage: node extension/scripts/bundle.mjs [OUTFILE]   (default: extension/out/extension.js)
 */
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const EXT = dirname(dirname(fileURLToPath(import.meta.url)));
const require = createRequire(join(dirname(EXT), 'package.json'));

/** Bundles the extension client into `outfile`. */
export async function bundleExtension(outfile) {
  const esbuild = require('esbuild');
  await esbuild.build({
    entryPoints: [join(EXT, 'src', 'extension.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    outfile,
    logLevel: 'warning',
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await bundleExtension(resolve(process.argv[2] ?? join(EXT, 'out', 'extension.js')));
}

/**
 * `mkdir -p`, one folder at a time. Node's `mkdirSync(dir, { recursive: true })` never
 * returns when the system answers ENOENT for a folder whose parent exists (any path under
 * /proc): it makes the parent again, then the child, forever. Made step by step here, that
 * answer is an error like any other refusal, with the path the user gave.
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

export function makeFolder(dir: string): void {
  const chain: string[] = [];
  for (let d = resolve(dir); d !== dirname(d); d = dirname(d)) chain.unshift(d);
  for (const d of chain) {
    try {
      mkdirSync(d);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (!statSync(d).isDirectory()) {
        throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${dir}'`), { code: 'ENOTDIR', syscall: 'mkdir', path: dir });
      }
    }
  }
}

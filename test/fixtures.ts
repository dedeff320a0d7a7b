/**
 * What the tests share: the repository root, the model they run on, the example programs.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (the tests run from source; dist/ is below it). */
export const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

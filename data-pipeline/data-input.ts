/**
 * The folders the data commands read, checked where they are read: a folder that is not what
 * the command needs (no dataset splits, no readable tokenizer.json) is the user's slip, and
 * the CLI says it in one line instead of reporting a bug.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { TraceTokenizer } from '../tokenizer/trace-tokenizer.js';

export class DataInputError extends Error {}

/** Throws unless every one of `files` is in `dir`, a folder written by `ndb data build`. */
export function requireDatasetFiles(dir: string, files: readonly string[]): void {
  for (const file of files) {
    if (!existsSync(join(dir, file))) throw new DataInputError(`${dir} is not a dataset folder (no ${file}; see ndb data build)`);
  }
}

/** The tokenizer of a model folder, or a DataInputError that says what is wrong with it. */
export async function loadTokenizer(dir: string): Promise<TraceTokenizer> {
  const file = join(dir, 'tokenizer.json');
  if (!existsSync(file)) throw new DataInputError(`${dir} has no tokenizer.json (give a model folder such as models/default, or one written by ndb data tokenizer)`);
  return TraceTokenizer.load(dir).catch((err: Error) => {
    throw new DataInputError(`${file} is not valid: ${err.message.split('\n')[0]}`);
  });
}

/**
 * The corpora of real programs with entry calls, by origin.
 */
import type { ProgramOrigin, ProgramSpec } from '../program.js';
import { loadHumanEval } from './humaneval.js';
import { loadMbpp } from './mbpp.js';
import { loadPackageCalls, loadStdlibCalls } from './module-calls.js';

export type CorpusOrigin = Exclude<ProgramOrigin, 'synthetic' | 'semantics'>;

const loaders: Record<CorpusOrigin, () => Promise<ProgramSpec[]>> = {
  humaneval: loadHumanEval,
  mbpp: loadMbpp,
  stdlib: loadStdlibCalls,
  packages: loadPackageCalls,
};

export function loadCorpus(origin: CorpusOrigin): Promise<ProgramSpec[]> {
  return loaders[origin]();
}

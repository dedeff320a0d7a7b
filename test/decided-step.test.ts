/**
 * Steps the symbolic stepper decides whole (model-client/decided-step.ts) cost no forward pass,
 * so they had better be right: on real runs of the pdb corpus' dev programs, from every state
 * of the run with the real history before it, each step_into and step_over the stepper decides
 * must land on the state the real run's tree lands on. A step it does not decide is the
 * model's (not checked here). NDB_DECIDED_PROGRAMS=all checks every dev program.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Action } from '../grammar/state.js';
import { sameState } from '../evaluation/tracer-predictor.js';
import { NeuralPredictor } from '../model-client/neural-predictor.js';
import { StateTree } from '../state-tree/tree.js';
import { traceFile } from '../tracer/run-tracer.js';
import { HAS_MODEL, MODEL_DIR } from './fixtures.js';

const CORPUS = join(import.meta.dirname, '..', 'evaluation', 'pdb-corpus');
const DEV: string[] = (JSON.parse(readFileSync(join(CORPUS, 'corpus.json'), 'utf8')) as { programs: { file: string; split: string }[] }).programs
  .filter((p) => p.split === 'dev')
  .map((p) => p.file);
const PROGRAMS = process.env.NDB_DECIDED_PROGRAMS === 'all' ? DEV : DEV.filter((f) => ['merge_sort.py', 'inventory.py', 'word_freq.py', 'binary_search.py'].includes(f));
const ACTIONS: Action[] = [{ kind: 'step_into' }, { kind: 'step_over' }];

describe.runIf(HAS_MODEL)('a step the stepper decides whole is the real one', () => {
  it(`from every state of real runs of ${PROGRAMS.length} programs of the corpus, step_into and step_over`, { timeout: 600_000 }, async () => {
    const p = await NeuralPredictor.load(MODEL_DIR, { threads: 1 });
    let decided = 0;
    let steps = 0;
    const wrong: string[] = [];
    try {
      for (const file of PROGRAMS) {
        const path = join(CORPUS, file);
        const tree = new StateTree(await traceFile({ file: path }));
        await p.start(readFileSync(path, 'utf8'), null);
        for (let i = 0; i + 1 < tree.size; i++) {
          const history = tree.states.slice(0, i + 1).map((state, k) => (k < i ? { state, action: { kind: 'step_into' } as Action } : { state }));
          for (const action of ACTIONS) {
            const landing = tree.move(i, action);
            if (!('node' in landing)) continue;
            steps++;
            const got = await p.decided(history, action);
            if (!got) continue;
            decided++;
            const real = tree.states[landing.node]!;
            if (!sameState(got.state, real)) wrong.push(`${file} state ${i} ${action.kind}: decided ${JSON.stringify(got.state)}, real ${JSON.stringify(real)}`);
          }
        }
      }
    } finally {
      await p.release();
    }
    expect(wrong.slice(0, 5)).toEqual([]);
    // Most steps of these programs are Python's to decide: the stepper must take a good share.
    expect(decided / steps).toBeGreaterThan(0.3);
    console.log(`decided ${decided} of ${steps} steps (${((100 * decided) / steps).toFixed(1)}%), none wrong`);
  });
});

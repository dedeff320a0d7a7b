/**
 * What the data pipeline adds for real code: argument variants of HumanEval and MBPP calls
 * (new literal values through the same functions, in the same split), and the jump-weighted
 * trajectory policy (step_return, breakpoint, continue and inv_step_call from the entry).
 */
import { describe, expect, it } from 'vitest';
import { choosePrograms, policyOf } from '../data-pipeline/build.js';
import { loadCorpus } from '../data-pipeline/corpora/index.js';
import { argumentVariants } from '../data-pipeline/corpora/support.js';
import { Rng } from '../util/rng.js';
import { splitOf } from '../data-pipeline/split.js';
import { type Policy, sampleTrajectory } from '../data-pipeline/trajectories.js';
import { StateTree } from '../state-tree/tree.js';
import { traceSource } from '../tracer/run-tracer.js';
import { spawnSync } from 'node:child_process';
import { pythonBin } from '../data-pipeline/corpora/support.js';

/** The argument strings that are not literal-only call arguments, checked by real Python's ast. */
function nonLiteralArgs(args: string[]): string[] {
  const script = 'import ast, json, sys\nbad = []\nfor a in json.load(sys.stdin):\n    try:\n        c = ast.parse(f"f({a})", mode="eval").body\n        [ast.literal_eval(x) for x in c.args]; [ast.literal_eval(k.value) for k in c.keywords]\n    except Exception:\n        bad.append(a)\nprint(json.dumps(bad))';
  const run = spawnSync(pythonBin(), ['-c', script], { input: JSON.stringify(args), encoding: 'utf8' });
  return JSON.parse(run.stdout) as string[];
}

describe('argument variants', () => {
  it('mutate the literals of real test calls, keep program, entry and group, and are deterministic', async () => {
    const mbpp = (await loadCorpus('mbpp')).slice(0, 60);
    const variants = await argumentVariants(mbpp, 3, 5);
    expect(variants.length).toBeGreaterThan(100);
    const byId = new Map(mbpp.map((s) => [s.id, s]));
    for (const v of variants) {
      const parent = byId.get(v.id.replace(/~v\d+$/, ''))!;
      expect(parent, v.id).toBeDefined();
      expect(v.args).not.toBe(parent.args);
      expect({ group: v.group, entry: v.entry, source: v.source, origin: v.origin }).toEqual({ group: parent.group, entry: parent.entry, source: parent.source, origin: parent.origin });
      expect(splitOf(v.group)).toBe(splitOf(parent.group));
    }
    expect(nonLiteralArgs(variants.map((v) => v.args))).toEqual([]);
    expect(await argumentVariants(mbpp, 3, 5)).toEqual(variants);
    expect((await argumentVariants(mbpp, 3, 6)).map((v) => v.args)).not.toEqual(variants.map((v) => v.args));
  });

  it('join the corpora a build chooses from, and none without --variants', async () => {
    const mix = { synthetic: 0, semantics: 0, mbpp: 1, humaneval: 0, stdlib: 0, packages: 0 };
    const plain = await choosePrograms(4000, 1, mix);
    const varied = await choosePrograms(4000, 1, mix, 2);
    expect(plain.some((s) => s.id.includes('~v'))).toBe(false);
    expect(varied.filter((s) => s.id.includes('~v')).length).toBeGreaterThan(1000);
  });
});

describe('the jump-weighted policy', () => {
  const program = ['def total(xs):', '    s = 0', '    for x in xs:', '        s += x', '    return s', ''].join('\n');

  it('starts at the entry and jumps far more often than the paper policy, on the same tree', async () => {
    const tree = new StateTree(await traceSource(program, { entry: 'total', args: '[1, 2, 3, 4, 5]' }));
    const count = (policy: Policy) => {
      const rng = new Rng(3);
      const kinds: Record<string, number> = {};
      let fromEntry = 0;
      for (let k = 0; k < 400; k++) {
        const t = sampleTrajectory(tree, k % 2 ? 'inverse' : 'forward', rng, { maxSteps: 12, policy });
        if (t.steps[0]!.state === (k % 2 ? tree.inverse[0]!.state : tree.states[0])) fromEntry++;
        for (const s of t.steps) kinds[s.action.kind] = (kinds[s.action.kind] ?? 0) + 1;
      }
      const total = Object.values(kinds).reduce((a, b) => a + b, 0);
      const jumps = (kinds.step_return ?? 0) + (kinds.breakpoint ?? 0) + (kinds.continue ?? 0) + (kinds.inv_step_call ?? 0);
      return { jumps: jumps / total, fromEntry: fromEntry / 400 };
    };
    const paper = count('paper');
    const jumps = count('jumps');
    expect(jumps.jumps).toBeGreaterThan(paper.jumps * 1.5);
    expect(jumps.fromEntry).toBeGreaterThan(0.7);
    expect(paper.fromEntry).toBeLessThan(0.65);
  });

  it('walks step line by line, and far longer than the paper policy, on the same tree', async () => {
    // A loop of 20 iterations: 43 states, as long as a build's longest trajectory (48).
    const tree = new StateTree(await traceSource(program, { entry: 'total', args: `[${Array.from({ length: 20 }, (_, i) => i).join(', ')}]` }));
    const sample = (policy: Policy) => {
      const rng = new Rng(4);
      return Array.from({ length: 200 }, (_, k) => sampleTrajectory(tree, k % 2 ? 'inverse' : 'forward', rng, { maxSteps: 48, policy }));
    };
    const meanSteps = (ts: { steps: unknown[] }[]) => ts.reduce((n, t) => n + t.steps.length, 0) / ts.length;
    const walks = sample('walk');
    const kinds = new Set(walks.flatMap((t) => t.steps.map((s) => s.action.kind)));
    expect(kinds).toEqual(new Set(['step_into', 'step_over', 'inv_step_into', 'inv_step_over']));
    expect(meanSteps(walks)).toBeGreaterThan(2 * meanSteps(sample('paper')));
  });

  it('a build draws each policy once against the shares; without walks as before they existed', () => {
    expect([0.1, 0.39, 0.4, 0.69, 0.7, 0.99].map((d) => policyOf(d, 0.4, 0.3))).toEqual(['jumps', 'jumps', 'walk', 'walk', 'paper', 'paper']);
    expect([0.1, 0.5, 0.9].map((d) => policyOf(d, 0.5, 0))).toEqual(['jumps', 'paper', 'paper']);
  });
});

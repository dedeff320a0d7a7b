/**
 * The model client: model folder checks, the ONNX session and its cache, constrained
 * decoding and the predictors.
 *
 * The tests that run the model use the model folder at models/default (or $NDB_TEST_MODEL);
 * without one they are skipped, saying so. Everything else runs everywhere: a model folder
 * made up here for the manifest checks, a one-node ONNX graph for the CUDA fallback, the
 * real tracer for the entry state and the ground-truth predictor.
 */
import { readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../util/rng.js';
import { sampleTrajectory } from '../data-pipeline/trajectories.js';
import { parseFrame } from '../grammar/parse.js';
import { serializeTrajectory } from '../grammar/serialize.js';
import type { Action, State } from '../grammar/state.js';
import { TOKENS } from '../grammar/tokens.js';
import { truncateTrajectory } from '../grammar/truncate.js';
import { decodeFrames, FrameBudgetError, generateGreedy } from '../model-client/decode.js';
import { EntryError, entryStart } from '../program-analysis/entry-state.js';
import { FrameNames } from '../model-client/loc-constraint.js';
import { loadModelFolder, loadTokenizer } from '../model-client/model-folder.js';
import { NeuralPredictor } from '../model-client/neural-predictor.js';
import { NO_RULES } from '../semantics/rule.js';
import { PartialFrameDecoder } from '../model-client/partial-frame.js';
import { callCandidates, returnFrameStart, returnState } from '../model-client/input-prediction.js';
import { PrefixCache } from '../model-client/prefix-cache.js';
import type { HistoryEntry, Predictor } from '../model-client/predictor.js';
import { OUTPUT_METHODS, predictCall, predictCandidateCall } from '../model-client/call-outcome.js';
import { createInferenceSession, ModelSession } from '../model-client/onnx-session.js';
import { TokenTable } from '../model-client/token-table.js';
import { OffTraceError, TracerPredictor } from '../evaluation/tracer-predictor.js';
import { StateTree } from '../state-tree/tree.js';
import { sourceLines } from '../python/source.js';
import { traceSource } from '../tracer/run-tracer.js';
import { COUNT_SOURCE, HAS_MODEL, MODEL_DIR, ROOT, warnWithoutModel } from './fixtures.js';

const ORDERS_PY = join(ROOT, 'examples', 'orders.py');

warnWithoutModel('model-client tests');


const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

describe('model folder', () => {
  let dir: string;
  const config = { vocab_size: 40, hidden_size: 8, num_hidden_layers: 1, num_attention_heads: 2, max_position_embeddings: 16, bos_token_id: 0, eos_token_id: 1, pad_token_id: 2 };

  /** A folder with the files a model folder has (contents that only the manifest checks). */
  async function makeFolder(files: Record<string, string>): Promise<string> {
    const d = await mkdtemp(join(tmpdir(), 'ndb-model-'));
    await mkdir(join(d, 'onnx'));
    const manifest: Record<string, { sha256: string; size: number }> = {};
    for (const [name, text] of Object.entries(files)) {
      await writeFile(join(d, name), text);
      manifest[name] = { sha256: sha256(text), size: Buffer.byteLength(text) };
    }
    await writeFile(join(d, 'manifest.json'), JSON.stringify({ files: manifest }));
    return d;
  }

  beforeAll(async () => {
    dir = await makeFolder({ 'config.json': JSON.stringify(config), 'tokenizer.json': '{}', 'onnx/model_step.onnx': 'weights'.repeat(100), 'onnx/model_step_int8.onnx': 'int8' });
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('loads a complete folder and chooses the fp32 or the int8 file', async () => {
    const fp32 = await loadModelFolder(dir);
    expect(fp32.onnxPath).toBe(join(dir, 'onnx/model_step.onnx'));
    expect(fp32.kvShape).toEqual({ layers: 1, heads: 2, headDim: 4 });
    expect((await loadModelFolder(dir, { precision: 'int8' })).onnxPath).toBe(join(dir, 'onnx/model_step_int8.onnx'));
    await expect(loadTokenizer(fp32)).rejects.toThrow(`model folder ${dir}: tokenizer.json is not valid: `);
  });

  it('names a corrupt file, a missing file, an invalid config', async () => {
    const d = await mkdtemp(join(tmpdir(), 'ndb-model-'));
    try {
      await cp(dir, d, { recursive: true });
      const onnx = join(d, 'onnx/model_step.onnx');
      const original = await readFile(onnx);
      const corrupt = Buffer.from(original);
      corrupt[10] = corrupt[10]! ^ 1;
      await writeFile(onnx, corrupt);
      await expect(loadModelFolder(d)).rejects.toThrow(`model folder ${d}: onnx/model_step.onnx is corrupt (sha256 mismatch)`);
      await writeFile(onnx, original.subarray(1));
      await expect(loadModelFolder(d)).rejects.toThrow(`model folder ${d}: onnx/model_step.onnx is corrupt (size 699, expected 700)`);
      await rm(onnx);
      await expect(loadModelFolder(d)).rejects.toThrow(`model folder ${d}: missing file onnx/model_step.onnx`);
      await writeFile(onnx, original);
      await rm(join(d, 'onnx/model_step_int8.onnx'));
      await expect(loadModelFolder(d, { precision: 'int8' })).rejects.toThrow(`model folder ${d}: missing file onnx/model_step_int8.onnx`);
      await writeFile(join(d, 'config.json'), JSON.stringify({ ...config, num_attention_heads: 3 }));
      await expect(loadModelFolder(d, { verify: false })).rejects.toThrow(`model folder ${d}: config.json is not valid: hidden_size is not a multiple of num_attention_heads`);
      await writeFile(join(d, 'config.json'), '{"vocab_size": 4');
      await expect(loadModelFolder(d)).rejects.toThrow(/config.json is not valid: .*JSON/);
      await rm(join(d, 'manifest.json'));
      await expect(loadModelFolder(d)).rejects.toThrow(`model folder ${d}: missing file manifest.json`);
    } finally {
      await rm(d, { recursive: true, force: true });
    }
  });

  it.runIf(HAS_MODEL)('verifies the real model folder', async () => {
    const folder = await loadModelFolder(MODEL_DIR);
    expect(folder.kvShape.layers).toBe(folder.config.num_hidden_layers);
  });
});

describe('session', () => {
  // A one-node ONNX graph (present = Concat(past, new) on axis 2), made with onnx.helper.
  const TOY_ONNX =
    'CAg6lwEKKQoEcGFzdAoDbmV3EgdwcmVzZW50IgZDb25jYXQqCwoEYXhpcxgCoAECEgFnWiAKBHBhc3QSGAoWCAESEgoDEgFiCgIIAgoDEgFwCgIIBFofCgNuZXcSGAoWCAESEgoDEgFiCgIIAgoDEgFzCgIIBGIkCgdwcmVzZW50EhkKFwgBEhMKAxIBYgoCCAIKBBICcHMKAggEQgQKABAO';

  it('falls back to the CPU with a one-line warning when CUDA cannot start', async () => {
    const d = await mkdtemp(join(tmpdir(), 'ndb-onnx-'));
    try {
      const path = join(d, 'toy.onnx');
      await writeFile(path, Buffer.from(TOY_ONNX, 'base64'));
      const warnings: string[] = [];
      const { session, provider } = await createInferenceSession(path, { provider: 'cuda', threads: 1, onWarning: (w) => warnings.push(w) });
      expect(provider).toBe('cpu');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/^ndb: CUDA requested but .*; running on the CPU$/);
      expect(warnings[0]).not.toContain('\n');
      expect(session.outputNames).toEqual(['present']);
      await session.release();
    } finally {
      await rm(d, { recursive: true, force: true });
    }
  });
});

describe('entry state (no model)', () => {
  const tracer = new TracerPredictor();

  it('is the real run\'s first state, from the arguments alone', async () => {
    const program = ['class A:', '    def m(self, x, *rest, k=(1, 2), **kw):', '        return x', 'def f(a, b=[1], *, c):', '    return a', ''].join('\n');
    const cases = [
      { entry: 'count', args: "'berry', 'r'", program: COUNT_SOURCE },
      { entry: 'A.m', args: "1, 'x', 3, 4, z={2, 1}", program },
      { entry: 'f', args: "'é', c=None", program },
      { entry: 'f', args: 'c=[0]', program }, // a missing argument: the call fails
    ];
    for (const { entry, args, program: p } of cases) {
      const start = await entryStart(p, { entry, args });
      const truth = await tracer.start(p, { entry, args });
      if (start.kind === 'known') expect(truth).toMatchObject({ kind: 'state', state: start.state });
      else if (start.kind === 'exit') expect(truth).toMatchObject({ kind: 'exit', exit: start.exit });
      else throw new Error(`unexpected ${start.kind} for ${entry}(${args})`);
    }
    expect(await entryStart('x = 1\n', null)).toEqual({
      kind: 'known',
      state: { event: 'call', line: 1, source: 'x = 1', stack: [{ function: '<module>', line: 1 }], locals: {} },
    });
  });

  it('leaves to the model only what needs the program to run, and names bad input', async () => {
    const program = 'import os\ndef f(a, sep=os.sep, n=3):\n    return a\n@staticmethod\ndef g():\n    pass\n';
    expect(await entryStart(program, { entry: 'f', args: '1' })).toEqual({
      kind: 'partial',
      prefix: `${TOKENS.callSep}${TOKENS.locSep}f:2${TOKENS.srcSep}def f(a, sep=os.sep, n=3):${TOKENS.argSep}{"a": "1", "sep":`,
    });
    // Inferred arguments: every value is the model's, the names are the signature's.
    expect(await entryStart(program, { entry: 'f', args: '', inferArgs: true })).toEqual({
      kind: 'partial',
      prefix: `${TOKENS.callSep}${TOKENS.locSep}f:2${TOKENS.srcSep}def f(a, sep=os.sep, n=3):${TOKENS.argSep}{"a":`,
    });
    expect(await entryStart(program, { entry: 'g', args: '' })).toMatchObject({ kind: 'unknown' });
    await expect(entryStart(program, { entry: 'h', args: '' })).rejects.toThrow(new EntryError("no function named 'h' in the program; functions defined: f, g"));
    await expect(entryStart(program, { entry: 'f', args: 'os.sep' })).rejects.toThrow('argument 1 is not a Python literal: os.sep');
    // A NUL character (a model's candidate input wrote one): refused, not a crash of the helper's launch.
    await expect(entryStart(program, { entry: 'f', args: "'a\0b'" })).rejects.toThrow(new EntryError('the arguments are not Python literals: they hold a NUL character (write it as \\x00)'));
    await expect(traceSource(program, { entry: 'f', args: "'a\0b'" })).rejects.toMatchObject({ name: 'TraceFailure', kind: 'bad_args' });
  });
});

describe('tracer predictor (ground truth)', () => {
  it('replays the history on the real run, in both directions, and refuses a history that left it', async () => {
    const p = new TracerPredictor();
    const first = await p.start(COUNT_SOURCE, { entry: 'count', args: "'ab', 'b'" });
    if (first.kind !== 'state') throw new Error('no first state');
    const history: HistoryEntry[] = [{ state: first.state }];
    const step = async (action: Action) => {
      history[history.length - 1]!.action = action;
      const next = await p.predict(history, action);
      if (next.kind === 'state') history.push({ state: next.state });
      return next;
    };
    await step({ kind: 'step_into' });
    await step({ kind: 'step_into' });
    const line = await step({ kind: 'step_over' });
    expect(line).toMatchObject({ kind: 'state', origin: 'tracer', direction: 'forward', state: { line: 8, locals: { c: "'a'", n: '0' } } });
    const back = await step({ kind: 'inv_step_into' });
    expect(back).toMatchObject({ direction: 'inverse', state: { line: 7 } });
    expect(back.kind === 'state' && back.state.locals).toEqual({ s: "'ab'", t: "'b'", n: '0' });
    expect(await step({ kind: 'continue' })).toMatchObject({ kind: 'exit', exit: { kind: 'normal', value: '1' } });

    const wrong = [{ state: { ...first.state, locals: { s: "'xy'", t: "'b'" } } }];
    await expect(p.predict(wrong, { kind: 'step_into' })).rejects.toThrow(OffTraceError);
  });
});

describe('predictCall methods (on the ground truth)', () => {
  it('each method runs count(\'berry\', \'r\') to its real return; step_over asks line steps only, one per line run', async () => {
    const truth = new TracerPredictor();
    const asked: Action['kind'][] = [];
    const recording: Predictor = {
      start: (program, entry) => truth.start(program, entry),
      predict: (history, action) => {
        asked.push(action.kind);
        return truth.predict(history, action);
      },
    };
    const entry = { entry: 'count', args: "'berry', 'r'" };
    for (const method of OUTPUT_METHODS) {
      asked.length = 0;
      const outcome = await predictCall(recording, COUNT_SOURCE, entry, { method, returns: [10] });
      expect(outcome, method).toMatchObject({ kind: 'returned', value: '2' });
      if (method === 'step_over') {
        expect(new Set(asked)).toEqual(new Set(['step_over']));
        // The real run's line events of count (its loop over five characters), each one step.
        const trace = await traceSource(COUNT_SOURCE, entry);
        expect(asked.length).toBe(trace.events.filter((e) => e.depth === 0 && (e.event === 'line' || e.event === 'return')).length);
      }
    }
  });

  it("line by line, a run that finds no return (a model looping) is run again from the call by breakpoint; the input check's is not", async () => {
    const truth = new TracerPredictor();
    const asked: Action['kind'][] = [];
    // The real run, except that line by line from the call each step lands on the first line
    // again: a loop the real run leaves.
    const looping: Predictor = {
      start: (program, entry) => truth.start(program, entry),
      predict: (history, action) => {
        asked.push(action.kind);
        const fromCall = history.every((h) => h.action?.kind !== 'breakpoint');
        return truth.predict(action.kind === 'step_over' && fromCall ? history.slice(0, 1) : history, action);
      },
    };
    const entry = { entry: 'count', args: "'berry', 'r'" };
    const outcome = await predictCall(looping, COUNT_SOURCE, entry, { method: 'step_over', returns: [10] });
    expect(outcome).toMatchObject({ kind: 'returned', value: '2', jumped: true });
    expect(asked.slice(0, 401).every((a) => a === 'step_over')).toBe(true);
    expect(asked).toContain('breakpoint');
    // The input task's forward check gets no answer instead, the arguments still binding.
    const run = await predictCandidateCall(looping, COUNT_SOURCE, entry, [10]);
    expect(run).toMatchObject({ outcome: null, binds: true, call: { event: 'call' } });
    // A run that returns is not run again.
    expect(await predictCall(truth, COUNT_SOURCE, entry, { method: 'step_over', returns: [10] })).not.toHaveProperty('jumped');
  });
});

describe.runIf(HAS_MODEL)('with the model', () => {
  let predictor: NeuralPredictor;
  let session: ModelSession;

  beforeAll(async () => {
    // Room for a frame, leaving most of a small test model's context to the prompt.
    const { config } = await loadModelFolder(MODEL_DIR, { verify: false });
    predictor = await NeuralPredictor.load(MODEL_DIR, { threads: 2, maxNewTokens: Math.min(256, config.max_position_embeddings / 2) });
    session = predictor.session;
  });
  afterAll(() => predictor?.release());

  it('reproduces parity.json (PyTorch greedy decoding) token for token', async () => {
    const parity = JSON.parse(await readFile(join(MODEL_DIR, 'parity.json'), 'utf8')) as {
      max_new_tokens: number;
      stop_ids: number[];
      cases: { prompt: number[]; output: number[] }[];
    };
    expect(parity.cases.length).toBeGreaterThan(0);
    for (const c of parity.cases) expect(await generateGreedy(session, c.prompt, parity.max_new_tokens, parity.stop_ids)).toEqual(c.output);
  });

  /** Token ids of a real trajectory of count, as long as the context allows. */
  async function trajectoryIds(): Promise<number[]> {
    const tree = new StateTree(await traceSource(COUNT_SOURCE, { entry: 'count', args: "'berry', 'r'" }));
    const t = truncateTrajectory(sampleTrajectory(tree, 'forward', new Rng(5), { maxSteps: 30 }));
    return predictor.tokenizer.encode(serializeTrajectory(t)).slice(0, Math.min(200, session.maxPositions));
  }

  it('decodes with the cache as a full recomputation does (logits within 1e-4), and rolls back', async () => {
    const ids = await trajectoryIds();
    const full = await session.prefill(ids);
    const half = Math.floor(ids.length / 2);
    let { logits, cache } = await session.prefill(ids.slice(0, half));
    const close = (a: Float32Array, b: Float32Array) => {
      let worst = 0;
      for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i]! - b[i]!));
      return worst;
    };
    expect(close(logits.last(0), full.logits.at(0, half - 1))).toBeLessThan(1e-4);
    for (let j = half; j < ids.length; j++) {
      ({ logits, cache } = await session.decodeStep([ids[j]!], cache));
      expect(close(logits.last(0), full.logits.at(0, j))).toBeLessThan(1e-4);
    }
    // Roll back to a third of the way and go on with other tokens: as if computed from scratch.
    const cut = Math.floor(ids.length / 3);
    const other = [...ids.slice(0, cut), ...ids.slice(cut + 5, cut + 15)];
    const fresh = await session.prefill(other);
    const rolled = await session.prefill(other.slice(cut), cache.truncate(cut));
    expect(rolled.cache.length).toBe(other.length);
    for (let j = cut; j < other.length; j++) expect(close(rolled.logits.at(0, j - cut), fresh.logits.at(0, j))).toBeLessThan(1e-4);
    // The prefix cache does the same on its own.
    const prefix = new PrefixCache(session);
    await prefix.prompt(ids);
    const again = await prefix.prompt(other);
    expect(again.prefilled).toBe(other.length - cut);
    expect(close(again.logits, fresh.logits.last(0))).toBeLessThan(1e-4);
  });

  it('prefills a long prompt in passes of at most 64 tokens (the event loop is free between them), with the logits of every position', async () => {
    const ids = (await trajectoryIds()).slice(0, 150);
    expect(ids.length).toBe(150);
    const passes = session.passes;
    const whole = await session.prefill(ids);
    expect(session.passes - passes).toBe(3); // 64 + 64 + 22
    expect(whole.logits.seq).toBe(150);
    expect(whole.cache.length).toBe(150);
    // Each position's logits are what one token at a time gives (float noise aside).
    let { logits, cache } = await session.prefill(ids.slice(0, 1));
    let worst = 0;
    for (let j = 1; j < ids.length; j++) {
      const expected = whole.logits.at(0, j - 1);
      const got = logits.last(0);
      for (let v = 0; v < got.length; v++) worst = Math.max(worst, Math.abs(got[v]! - expected[v]!));
      ({ logits, cache } = await session.decodeStep([ids[j]!], cache));
    }
    expect(worst).toBeLessThan(1e-4);
  });

  it('keeps its cache in place: a rollback copies nothing, and a view written over after it was made refuses to be used', async () => {
    const ids = await trajectoryIds();
    const { cache } = await session.prefill(ids.slice(0, 140));
    // Grown past one capacity step (128 positions), the first positions came along.
    expect(cache.length).toBe(140);
    expect(cache.capacity).toBeGreaterThanOrEqual(140);
    const short = cache.truncate(100);
    const branch = await session.prefill(ids.slice(100, 110), short);
    // The prefix is still good: decoding from it again gives the same logits.
    const again = await session.prefill(ids.slice(100, 110), short);
    expect(Array.from(again.logits.last(0))).toEqual(Array.from(branch.logits.last(0)));
    // The 140-position view held positions 100..139 that the branch wrote over.
    await expect(session.prefill([ids[140]!], cache)).rejects.toThrow(/stale KV cache/);
  });

  it('keeps a greedy frame in the cache: the next step runs fewer tokens than its history grew by', async () => {
    // The grammar alone, so that the model decodes the frame (a step the stepper decides whole, below, runs no pass and keeps nothing).
    const { config } = await loadModelFolder(MODEL_DIR, { verify: false });
    const alone = await NeuralPredictor.load(MODEL_DIR, { threads: 2, rules: NO_RULES, maxNewTokens: Math.min(256, config.max_position_embeddings / 2) });
    try {
      const first = await alone.start(COUNT_SOURCE, { entry: 'count', args: "'rr', 'r'" });
      expect(first.kind).toBe('state');
      if (first.kind !== 'state') return;
      const over = { kind: 'step_over' } as const;
      const a = await alone.predict([{ state: first.state }], over);
      expect(a.kind).toBe('state');
      if (a.kind !== 'state') return;
      const b = await alone.predict([{ state: first.state, action: over }, { state: a.state }], over);
      const grew = b.stats!.promptTokens - a.stats!.promptTokens;
      // Without the frame kept, every token the history grew by would run (the prompt before was cached).
      expect(b.stats!.prefilledTokens).toBeLessThan(grew);
    } finally {
      await alone.release();
    }
  });

  it('a step the stepper decides whole runs no forward pass (model-client/decided-step.ts)', async () => {
    const first = await predictor.start(COUNT_SOURCE, { entry: 'count', args: "'rr', 'r'" });
    if (first.kind !== 'state') throw new Error('no first state');
    // From the call to `n = 0`: nothing runs in between, every value is the call's.
    const a = await predictor.predict([{ state: first.state }], { kind: 'step_over' });
    expect(a.kind === 'state' && a.state.line).toBe(6);
    expect(a.stats).toMatchObject({ forwardPasses: 0, decidedSteps: 1 });
  });

  it("catches up on the last frame's unrun tokens: the next step runs only its action, and predicts the same", async () => {
    const first = await predictor.start(COUNT_SOURCE, { entry: 'count', args: "'rr', 'r'" });
    if (first.kind !== 'state') throw new Error('no first state');
    const over = { kind: 'step_over' } as const;
    const a = await predictor.predict([{ state: first.state }], over);
    if (a.kind !== 'state') throw new Error('no second state');
    const history = [{ state: first.state, action: over }, { state: a.state }];
    const plain = await predictor.predict(history, over);
    // Predicting `a` again leaves the cache as it was after it; this time the tail runs first.
    await predictor.predict([{ state: first.state }], over);
    await predictor.catchUp();
    const caught = await predictor.predict(history, over);
    expect(caught.text).toBe(plain.text);
    // What runs at the key press: the action, <|frame_sep|> and what the frame's start gives.
    expect(caught.stats!.prefilledTokens).toBeLessThanOrEqual(3);
    expect(caught.stats!.prefilledTokens).toBeLessThan(plain.stats!.prefilledTokens);
  });

  it('writes frames that always parse (10 prompts from real runs)', async () => {
    const programs = [
      { program: COUNT_SOURCE, entry: 'count', args: "'berry', 'r'" },
      { program: 'def f(xs):\n    out = []\n    for x in xs:\n        out.append(x * 2)\n    return out\n', entry: 'f', args: '[1, 2, 3]' },
    ];
    const rng = new Rng(11);
    let parsed = 0;
    for (let k = 0; k < 10; k++) {
      const { program, entry, args } = programs[k % programs.length]!;
      const tree = new StateTree(await traceSource(program, { entry, args }));
      const t = truncateTrajectory(sampleTrajectory(tree, k % 3 === 2 ? 'inverse' : 'forward', rng, { maxSteps: 6 }));
      const cut = rng.int(1, t.steps.length);
      const history = t.steps.slice(0, cut);
      const action = history[history.length - 1]!.action;
      await predictor.start(program, null);
      try {
        const p = await predictor.predict(history, action, { samples: k % 2 ? 2 : 1 });
        if (p.kind === 'state') {
          const body = p.text.slice(0, -TOKENS.actionSep.length);
          expect(parseFrame(body, history[history.length - 1]!.state, action).state).toEqual(p.state);
        } else {
          expect(p.text.endsWith(TOKENS.traceEnd)).toBe(true);
        }
        parsed++;
      } catch (err) {
        // The only acceptable failure: a clear budget error (a model that rambles), never garbage.
        if (!(err instanceof FrameBudgetError)) console.error(String(err));
        expect(err).toBeInstanceOf(FrameBudgetError);
      }
    }
    console.info(`constrained decoding: ${parsed} of 10 prompts gave a frame within the budget`);
    expect(parsed).toBeGreaterThan(0);
  });

  it('completes a first state that the input leaves open (a default that is not a literal)', async () => {
    const program = 'import os\ndef f(a, sep=os.sep):\n    return a + sep\n';
    try {
      const first = await predictor.start(program, { entry: 'f', args: "'x'" });
      expect(first).toMatchObject({ kind: 'state', origin: 'model', state: { event: 'call', line: 2, stack: [{ function: 'f', line: 2 }] } });
      if (first.kind === 'state') {
        expect(first.state.locals.a).toBe("'x'");
        expect(first.state.locals).toHaveProperty('sep');
        expect(first.confidence.locals.a).toBe(1);
      }
    } catch (err) {
      expect(err).toBeInstanceOf(FrameBudgetError);
    }
  });

  it('step_return and inv_step_call: the frame the action fixes is kept, the model writes the rest', async () => {
    await predictor.start(COUNT_SOURCE, null);
    const tree = new StateTree(await traceSource(COUNT_SOURCE, { entry: 'count', args: "'berry', 'r'" }));
    const inside = tree.states.find((s) => s.event === 'line' && s.stack.length === 1)!;
    const out = await predictor.predict([{ state: inside }], { kind: 'step_return' });
    if (out.kind === 'state') expect(out.state).toMatchObject({ event: 'return', stack: [{ function: 'count' }] });
    const back = await predictor.predict([{ state: inside }], { kind: 'inv_step_call' });
    expect(back.kind).toBe('state');
    if (back.kind === 'state') {
      expect(back.state).toMatchObject({ event: 'call', line: 5, stack: [{ function: 'count', line: 5 }] });
      expect(Object.keys(back.state.locals).slice(0, 2)).toEqual(['s', 't']); // the signature's names, in order
    }
  });

  it('predicts from the entry\'s code only: a comment and a function elsewhere in the file change nothing', async () => {
    const entry = { entry: 'count', args: "'berry', 'r'" };
    const edited = `# a note at the top of the file\nimport os\n\n\ndef unrelated(x):\n    return os.sep * x\n\n\n${COUNT_SOURCE}\n\nTABLE = {'a': 1}  # trailing text\n`;
    const shift = edited.split('\n').indexOf('def is_match(c, t):');
    const walk = async (source: string) => {
      const first = await predictor.start(source, entry);
      if (first.kind !== 'state') return { texts: [first.text], seen: undefined };
      const texts = [first.text];
      const history: { state: State; action?: Action }[] = [{ state: first.state }];
      for (let i = 0; i < 3; i++) {
        const next = await predictor.predict(history, { kind: 'step_into' });
        if (next.kind !== 'state') break;
        texts.push(`${next.state.line}:${JSON.stringify(next.state.locals)}`);
        history[history.length - 1] = { ...history[history.length - 1]!, action: { kind: 'step_into' } };
        history.push({ state: next.state });
      }
      return { texts, seen: predictor.programCut()?.text };
    };
    const { texts: plain, seen } = await walk(COUNT_SOURCE);
    const { texts: moved, seen: seenEdited } = await walk(edited);
    // The model sees the same program: the entry's cut, whatever else the file holds.
    expect(seen).toBeDefined();
    expect(seenEdited).toBe(seen);
    expect(plain.length).toBeGreaterThan(1);
    // Same frames, the lines shifted by the text added above the entry.
    expect(moved.slice(1).map((t) => t.replace(/^\d+/, (n) => String(Number(n) - shift)))).toEqual(plain.slice(1));
  });

  it("shows a program for a question that starts at the return (the input task): the entry's cut, and locals only of the function's names", async () => {
    const file = `import os\n\n\ndef unrelated(x):\n    return os.sep * x\n\n\n${COUNT_SOURCE}`;
    await predictor.show(file, 'count');
    const cut = predictor.programCut();
    expect(cut?.text).toBeDefined();
    expect(cut!.text).not.toContain('unrelated');
    // The completer takes the signatures the predictor read for the cut (no second read); none for another text.
    expect(predictor.signaturesHeld(cut!.text)?.localNames.has('count')).toBe(true);
    expect(predictor.signaturesHeld(file)).toBeNull();
    const lines = sourceLines(file);
    const returnLine = lines.indexOf('    return n') + 1;
    const frames = await PartialFrameDecoder.load(predictor, MODEL_DIR);
    const answers = [];
    for await (const answer of callCandidates(predictor, { program: file, lines, function: 'count', returnLines: [returnLine], value: '2', cut }, { complete: frames, samples: 3 })) answers.push(answer);
    // The greedy answer first, then at most the three drawn on the same line.
    expect(answers.length).toBeGreaterThan(0);
    expect(answers.length).toBeLessThanOrEqual(4);
    expect(answers.slice(1).every((a) => a.source === 'sample')).toBe(true);
    for (const { returned, call } of answers) {
      // Back in the file's lines; whatever the model writes, only names count's frames can hold.
      expect(returned.state).toMatchObject({ event: 'return', line: returnLine, value: '2' });
      for (const name of Object.keys(returned.state.locals)) expect(['s', 't', 'n', 'c']).toContain(name);
      // A call of count alone on the stack: its first locals are the parameters.
      expect(call.state).toMatchObject({ event: 'call', stack: [{ function: 'count' }] });
      expect(Object.keys(call.state.locals).slice(0, 2)).toEqual(['s', 't']);
    }
    // The completer's grammar knows count's names: a start that writes another one is refused.
    const start = returnFrameStart(cut!.stateToCut(returnState({ program: file, lines, function: 'count', returnLines: [returnLine], value: '2' }, returnLine)));
    await expect(frames.complete(cut!.text, 'inverse', `${start}{"zz`)).rejects.toThrow(/not valid/);
    await frames.complete(cut!.text, 'inverse', `${start}{"n`);
  });

  /**
   * `into` and `over` from each state give one frame, and the next step over (forward or back)
   * gives one frame too after either: the action is asked the same way in a later history.
   */
  async function expectOneAnswer(states: readonly State[], into: 'step_into' | 'inv_step_into', over: 'step_over' | 'inv_step_over'): Promise<void> {
    const text = (p: Awaited<ReturnType<typeof predictor.predict>>) => (p.kind === 'state' ? JSON.stringify(p.state) : p.kind);
    for (const from of states) {
      const stepped = await predictor.predict([{ state: from }], { kind: into });
      expect(text(stepped)).toBe(text(await predictor.predict([{ state: from }], { kind: over })));
      if (stepped.kind !== 'state') continue;
      const after = (kind: typeof into | typeof over) => predictor.predict([{ state: from, action: { kind } }, { state: stepped.state }], { kind: over });
      expect(text(await after(into))).toBe(text(await after(over)));
    }
  }

  it("gives `s` and `n` one answer where step_into can enter nothing, now and after", async () => {
    await predictor.start(COUNT_SOURCE, null);
    const tree = new StateTree(await traceSource(COUNT_SOURCE, { entry: 'count', args: "'berry', 'r'" }));
    const at = (line: number) => tree.states.find((s) => s.event === 'line' && s.line === line && s.stack.length === 1)!;
    await expectOneAnswer([at(6), at(7), at(9)], 'step_into', 'step_over');
  });

  it('gives reverse `s` and `n` one answer where no callee can return just before, now and after', async () => {
    // parse_line calls none of the program's functions: back from any of its lines, `s` is `n`
    // (without the rule the shipped model answered these two differently).
    const source = readFileSync(ORDERS_PY, 'utf8');
    await predictor.start(source, null);
    const tree = new StateTree(await traceSource(source, { entry: 'summarise', args: "['apple: 3', 'Fig:10', 'plum', 'pear:2']" }));
    const inParse = (line: number) => tree.states.find((s) => s.event === 'line' && s.line === line && s.stack.at(-1)?.function === 'parse_line')!;
    await expectOneAnswer([inParse(7), inParse(10)], 'inv_step_into', 'inv_step_over');
  });

  it('shows a state too long for the context with its values cut shorter, rather than failing', async () => {
    const start = await predictor.start(COUNT_SOURCE, { entry: 'count', args: "'berry', 'r'" });
    if (start.kind !== 'state') throw new Error('count starts with a state');
    // Twelve 100-character values of three-byte characters: far more than the context leaves
    // for one state (as a frame the model wrote looping can be).
    const long = (i: number) => `'${'日本語'.repeat(33).slice(0, 97)}${i}'`;
    const locals = Object.fromEntries(['s', 't', ...Array.from({ length: 10 }, (_, i) => `v${i}`)].map((name, i) => [name, long(i)]));
    const heavy: State = { ...start.state, event: 'line', line: 6, source: '    n = 0', locals };
    const next = await predictor.predict([{ state: heavy }], { kind: 'step_over' });
    expect(next.kind).toBe('state');
    expect(next.stats!.promptTokens).toBeLessThanOrEqual(session.maxPositions);
  });

  it('samples reproducibly from a seed', async () => {
    await predictor.start(COUNT_SOURCE, { entry: 'count', args: "'berry', 'r'" });
    const tree = new StateTree(await traceSource(COUNT_SOURCE, { entry: 'count', args: "'berry', 'r'" }));
    const history = tree.states.slice(0, 3).map((state) => ({ state, action: { kind: 'step_over' } as const }));
    // The same frames and vote (probabilities may differ in the last digits: the second run reuses the cached prompt).
    const run = () =>
      predictor.predict(history, { kind: 'step_over' }, { samples: 3, temperature: 1 }).then(
        (p) => ({ text: p.text, vote: p.vote }),
        (e: Error) => e.message,
      );
    expect(await run()).toEqual(await run());
  });

  it('decodes n greedy samples in one batch exactly as one at a time', async () => {
    await predictor.start(COUNT_SOURCE, { entry: 'count', args: "'berry', 'r'" });
    const tree = new StateTree(await traceSource(COUNT_SOURCE, { entry: 'count', args: "'berry', 'r'" }));
    const history = tree.states.slice(0, 4).map((state) => ({ state, action: { kind: 'step_into' } as const }));
    const lines = sourceLines(COUNT_SOURCE);
    const ids = predictor.tokenizer.encode(serializeTrajectory(truncateTrajectory({ direction: 'forward', program: COUNT_SOURCE, steps: history, exit: null })));
    const ctx = { session, tokenizer: predictor.tokenizer, table: await TokenTable.load(MODEL_DIR, predictor.tokenizer) };
    const prompt = await new PrefixCache(session).prompt(ids);
    const rules = { action: { kind: 'step_into' } as const, lines, names: FrameNames.ofProgram(lines) };
    const [one] = await decodeFrames(ctx, prompt, rules, 1, { maxNewTokens: 120 });
    const batch = await decodeFrames(ctx, prompt, rules, 3, { maxNewTokens: 120 });
    for (const b of batch) {
      if (!one!.ok || !b.ok) {
        expect(b).toEqual(one); // the same budget error, with the same text
        continue;
      }
      expect(b.frame.ids).toEqual(one!.frame.ids);
      expect(b.frame.text).toBe(one!.frame.text);
      b.frame.logprobs.forEach((lp, i) => expect(lp).toBeCloseTo(one!.frame.logprobs[i]!, 4));
    }
  });
});

/**
 * The benchmark's baseline (1): what a user would write first to debug with this model.
 * `@huggingface/transformers` loads the model folder, and every key press rebuilds the whole
 * prompt from text (the program, then the states so far, as training wrote them), encodes it
 * and calls `model.generate()`: plain greedy decoding until the frame's closing token, no
 * grammar, no cache kept from one step to the next, no prefetch, no drafts. Its output is
 * parsed by the trace language's parser; a frame that does not parse is an error (the bench
 * counts it as a failed key press), since nothing made the model write a valid one.
 *
 * It shares with NeuralPredictor only what any client of this model needs: the tokenizer
 * (the same ids as transformers' own, test/tokenizer-hf.test.ts), the prompt text
 * (model-client/prompt.ts) and the entry's call state from the user's input
 * (program-analysis/entry-state.ts). The ONNX session runs on one intra-op thread, as ours does.
 * It writes one greedy frame per key press: PredictOptions (samples, temperature, an abort
 * signal) are ignored, and the bench runs it with prefetch off.
 *
 * Confidence: transformers.js's generate() returns no token scores, so this predictor has no
 * confidence to give. A model frame's numbers are NaN (not measured) and it has no per-local
 * entries (the Variables view then shows none); they are not made up.
 */
import { basename, dirname } from 'node:path';
import { AutoModelForCausalLM, env, type PreTrainedModel, Tensor } from '@huggingface/transformers';
import type { TraceTokenizer } from '../tokenizer/trace-tokenizer.js';
import { parseExitFrame, parseFrame } from '../grammar/parse.js';
import { serializeContext } from '../grammar/serialize.js';
import type { Action, Direction, Exit, State } from '../grammar/state.js';
import { TOKENS } from '../grammar/tokens.js';
import { CERTAIN_EXIT, CERTAIN_STATE, type ExitConfidence, type StateConfidence } from '../model-client/confidence.js';
import { type Entry, entryStart } from '../program-analysis/entry-state.js';
import { loadModelFolder, loadTokenizer } from '../model-client/model-folder.js';
import { type HistoryEntry, historySteps, type Prediction, type Predictor } from '../model-client/predictor.js';
import { DEFAULT_MAX_PROMPT_STEPS, historyText, windowStarts } from '../model-client/prompt.js';

/** As NeuralPredictor: a frame may take 512 tokens, and the prompt leaves 256 free for it. */
const MAX_NEW_TOKENS = 512;
const FRAME_RESERVE = 256;

/** No per-token scores from generate(): unknown, not certain. */
const UNKNOWN_STATE: StateConfidence = { event: NaN, location: NaN, locals: {}, frame: NaN };
const UNKNOWN_EXIT: ExitConfidence = { kind: NaN, frame: NaN };

export type GeneratedFrame = { kind: 'state'; direction: Direction; state: State } | { kind: 'exit'; exit: Exit };

/**
 * A frame as generate() wrote it (the new tokens' text, up to its stop token), read by the
 * grammar's parser: a state ends with `<|action_sep|>`, an exit with `<|trace_end|>`.
 * Anything else throws, saying what the model wrote.
 */
export function parseGenerated(text: string, prev: State | undefined, action: Action | null): GeneratedFrame {
  const shown = text.length > 300 ? `${text.slice(0, 300)}…` : text;
  try {
    if (text.endsWith(TOKENS.actionSep)) {
      const { direction, state } = parseFrame(text.slice(0, -TOKENS.actionSep.length), prev, action ?? undefined);
      return { kind: 'state', direction, state };
    }
    if (text.endsWith(TOKENS.traceEnd)) return { kind: 'exit', exit: parseExitFrame(text) };
  } catch (err) {
    throw new Error(`generate() wrote a frame that does not parse (${(err as Error).message}): ${shown}`);
  }
  throw new Error(`generate() wrote no whole frame (it must end with ${TOKENS.actionSep} or, for the run's end, ${TOKENS.traceEnd}): ${shown}`);
}

export class GeneratePredictor implements Predictor {
  private program: string | null = null;

  private constructor(
    private readonly model: PreTrainedModel,
    readonly tokenizer: TraceTokenizer,
    private readonly maxPositions: number,
    /** Where a frame ends: a state's `<|action_sep|>`, an exit's `<|trace_end|>`, or `<|end_of_text|>`. */
    readonly stopIds: readonly number[],
  ) {}

  /** Opens `dir` (a model folder, models/default) offline with transformers.js, on `threads` intra-op threads. */
  static async load(dir: string, opts: { threads?: number } = {}): Promise<GeneratePredictor> {
    const folder = await loadModelFolder(dir);
    const tokenizer = await loadTokenizer(folder);
    env.allowRemoteModels = false;
    env.localModelPath = dirname(folder.dir);
    const threads = opts.threads ?? 1;
    // The export in the layout transformers.js expects (present.* outputs): config.json's
    // ndb.onnx.hf, onnx/model.onnx by default.
    const hf = folder.config.ndb?.onnx?.hf ?? 'onnx/model.onnx';
    const model = await AutoModelForCausalLM.from_pretrained(basename(folder.dir), {
      dtype: 'fp32',
      local_files_only: true,
      subfolder: dirname(hf),
      model_file_name: basename(hf, '.onnx'),
      session_options: { intraOpNumThreads: threads, interOpNumThreads: 1 },
    });
    const stopIds = [TOKENS.actionSep, TOKENS.traceEnd, TOKENS.endOfText].map((t) => tokenizer.tokenId(t));
    return new GeneratePredictor(model, tokenizer, folder.config.max_position_embeddings, stopIds);
  }

  async start(program: string, entry: Entry | null): Promise<Prediction> {
    const started = performance.now();
    this.program = program;
    // The call state follows from the user's arguments, as for NeuralPredictor.
    const start = await entryStart(program, entry);
    if (start.kind === 'known') {
      const { state } = start;
      return { kind: 'state', origin: 'input', direction: 'forward', state, text: '', confidence: CERTAIN_STATE(Object.keys(state.locals), false) };
    }
    if (start.kind === 'exit') return { kind: 'exit', origin: 'input', exit: start.exit, text: '', confidence: CERTAIN_EXIT(true) };
    const given = start.kind === 'partial' ? start.prefix : '';
    const ids = this.tokenizer.encode(serializeContext(program) + TOKENS.frameSep + given);
    if (ids.length + FRAME_RESERVE > this.maxPositions) throw new Error(`the program takes ${ids.length} tokens: too long for the model's ${this.maxPositions}`);
    return this.frame(ids, given, undefined, null, started);
  }

  async predict(history: readonly HistoryEntry[], action: Action): Promise<Prediction> {
    const program = this.program;
    if (program === null) throw new Error('predict before start: the predictor has no program');
    const started = performance.now();
    const steps = historySteps(history, action);
    // The whole prompt, from text, every step: the longest window of the history that fits.
    const context = serializeContext(program);
    let ids: number[] | undefined;
    for (const start of windowStarts(steps, DEFAULT_MAX_PROMPT_STEPS)) {
      const candidate = this.tokenizer.encode(context + historyText(program, steps.slice(start)));
      if (candidate.length + FRAME_RESERVE <= this.maxPositions) {
        ids = candidate;
        break;
      }
    }
    if (!ids) throw new Error(`the prompt does not fit the model's ${this.maxPositions} tokens`);
    return this.frame(ids, '', steps[steps.length - 1]!.state, action, started);
  }

  /** Greedy generate() from `prompt` until a stop id or `maxNewTokens`; the new ids. */
  async generateIds(prompt: readonly number[], maxNewTokens: number, stopIds: readonly number[] = this.stopIds): Promise<number[]> {
    const input_ids = new Tensor('int64', BigInt64Array.from(prompt, (id) => BigInt(id)), [1, prompt.length]);
    const out = (await this.model.generate({ input_ids, max_new_tokens: maxNewTokens, do_sample: false, eos_token_id: [...stopIds] })) as Tensor;
    return Array.from(out.data as BigInt64Array, Number).slice(prompt.length);
  }

  /** Generates the frame after `ids` (which end with `given`, the frame's start from the input) and parses it. */
  private async frame(ids: number[], given: string, prev: State | undefined, action: Action | null, started: number): Promise<Prediction> {
    const generated = await this.generateIds(ids, Math.min(MAX_NEW_TOKENS, this.maxPositions - ids.length));
    const text = given + this.tokenizer.decode(generated);
    const parsed = parseGenerated(text, prev, action);
    const stats = {
      promptTokens: ids.length,
      // No cache between steps: the whole prompt runs every time.
      prefilledTokens: ids.length,
      sampledTokens: generated.length,
      forcedTokens: 0,
      milliseconds: performance.now() - started,
      // The first pass runs the prompt and gives the first token; each later pass, one more.
      forwardPasses: generated.length,
    };
    return parsed.kind === 'state'
      ? { kind: 'state', origin: 'model', direction: parsed.direction, state: parsed.state, text, confidence: UNKNOWN_STATE, stats }
      : { kind: 'exit', origin: 'model', exit: parsed.exit, text, confidence: UNKNOWN_EXIT, stats };
  }

  async release(): Promise<void> {
    await this.model.dispose();
  }
}

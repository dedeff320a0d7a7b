/**
 * The first frame of a trajectory with its start given: the model writes only the rest,
 * under the grammar. What `ndb eval cruxeval --task input` needs to ask "which locals does
 * f's return frame hold when it returns OUTPUT?": the prompt is the program and
 * `<|frame_sep|><|inv_return_sep|><|loc_sep|>f:L<|src_sep|>SRC<|arg_sep|>"OUTPUT"<|locals_sep|>`,
 * and the model writes the locals. (NeuralPredictor's start does the same for a call frame
 * whose arguments are partly known; this is the general case, for any given start.)
 *
 * It also says how likely the model finds the given start itself: the summed log-probability
 * of its tokens after the program, leaving out the tokens the grammar would have forced (a
 * source line once its number is written), as the decoder counts them certain. Comparing
 * that score across candidate starts lets the model choose among them (which return line
 * gives this output).
 */
import { parseFrame } from '../grammar/parse.js';
import { serializeContext } from '../grammar/serialize.js';
import type { Action, Direction, State } from '../grammar/state.js';
import { TOKENS } from '../grammar/tokens.js';
import { sourceLines } from '../python/source.js';
import { decodeFrames, logProbability } from './decode.js';
import { FrameConstraint, type FrameRules } from './frame-constraint.js';
import type { KvCache } from './kv-cache.js';
import { FrameNames } from './loc-constraint.js';
import { type NeuralPredictor, type Signatures, signaturesOf } from './neural-predictor.js';
import { programInfo } from '../program-analysis/program-info.js';
import { ContextOverflowError } from './onnx-session.js';
import { TokenTable } from './token-table.js';

const MAX_NEW_TOKENS = 512;

/**
 * No action leads to a trajectory's first frame; the grammar after these two allows what a
 * first frame may be: every event of the direction, locals in full (never a delta). They
 * also allow exits, which a given start rules out.
 */
const FIRST_FRAME_RULE: Record<Direction, Action> = { forward: { kind: 'step_return' }, inverse: { kind: 'inv_step_call' } };

export interface CompletedFrame {
  direction: Direction;
  state: State;
  /** The whole frame, given start included, up to `<|action_sep|>`. */
  text: string;
  /** Summed log-probability of the given start's unforced tokens. */
  startLogprob: number;
  /** Summed log-probability of the tokens the model wrote after the start (the model's own, before the grammar's mask). */
  restLogprob: number;
}

export class PartialFrameDecoder {
  /** The program whose context is cached, the model's cache after it, and what its signatures fix (the names a frame can hold). */
  private context: { program: string; ids: number[]; cache: KvCache; signatures: Signatures } | null = null;

  private constructor(
    private readonly predictor: NeuralPredictor,
    private readonly table: TokenTable,
  ) {}

  /** Decodes with `predictor`'s model; `dir` is the model folder it was loaded from (for its token table). */
  static async load(predictor: NeuralPredictor, dir: string): Promise<PartialFrameDecoder> {
    return new PartialFrameDecoder(predictor, await TokenTable.load(dir, predictor.tokenizer));
  }

  /** Completes (greedily) the first frame of a `direction` trajectory of `program` whose text starts with `start`. */
  async complete(program: string, direction: Direction, start: string): Promise<CompletedFrame> {
    const [done] = await this.completeSamples(program, direction, start, 1);
    if (!done!.ok) throw done!.error;
    return done!.frame;
  }

  /**
   * `samples` completions of the same start: greedy for one, else drawn at `temperature`
   * (default 1) from the nucleus; each is the frame or why it failed.
   */
  async completeSamples(program: string, direction: Direction, start: string, samples: number, sampling: { temperature?: number; seed?: number } = {}): Promise<({ ok: true; frame: CompletedFrame } | { ok: false; error: Error })[]> {
    const { session, tokenizer } = this.predictor;
    const context = await this.contextOf(program);
    const given = tokenizer.encode(start);
    const fed = [tokenizer.tokenId(TOKENS.frameSep), ...given];
    const total = context.ids.length + fed.length;
    if (total >= session.maxPositions) throw new ContextOverflowError(total + 1, session.maxPositions);
    const lines = sourceLines(program);
    // As the predictor's frames: only names the function has (the locals are what is asked).
    const rules: FrameRules = { action: FIRST_FRAME_RULE[direction], lines, names: FrameNames.ofProgram(lines), ...context.signatures };

    const { logits, cache } = await session.prefill(fed, context.cache);
    const forced = this.forcedTokens(rules, given);
    let startLogprob = 0;
    // The logits after fed[j] predict fed[j + 1] = given[j].
    given.forEach((id, j) => {
      if (!forced[j]) startLogprob += logProbability(logits.at(0, j), id);
    });

    const ctx = { session, tokenizer, table: this.table };
    const maxNewTokens = Math.min(MAX_NEW_TOKENS, session.maxPositions - total + given.length);
    const temperature = samples > 1 ? (sampling.temperature ?? 1) : 0;
    const outcomes = await decodeFrames(ctx, { cache, logits: logits.last(0), ids: [...context.ids, ...fed] }, rules, samples, { temperature, seed: sampling.seed ?? 0, maxNewTokens }, given);
    return outcomes.map((outcome) => {
      if (!outcome.ok) return { ok: false as const, error: outcome.error };
      const { text } = outcome.frame;
      const parsed = parseFrame(text.slice(0, text.length - TOKENS.actionSep.length));
      const restLogprob = outcome.frame.logprobs.reduce((a, b) => a + b, 0);
      return { ok: true as const, frame: { ...parsed, text, startLogprob, restLogprob } };
    });
  }

  private async contextOf(program: string): Promise<NonNullable<PartialFrameDecoder['context']>> {
    if (this.context?.program !== program) {
      const ids = this.predictor.tokenizer.encode(serializeContext(program));
      // The input task shows the predictor the program first (NeuralPredictor.show): its signatures are read already.
      const held = this.predictor.signaturesHeld(program);
      const [{ cache }, signatures] = await Promise.all([this.predictor.session.prefill(ids), held ?? programInfo(program).then(signaturesOf)]);
      this.context = { program, ids, cache, signatures };
    }
    return this.context;
  }

  /** Which of the given tokens the grammar fixes (decode.ts feeds those without asking the model). */
  private forcedTokens(rules: FrameRules, given: readonly number[]): boolean[] {
    const constraint = new FrameConstraint(rules);
    const forced = given.map(() => false);
    for (let j = 0; j < given.length; j++) {
      const fixed = constraint.forced();
      if (fixed) {
        const run = this.predictor.tokenizer.encode(fixed.text).length + 1;
        for (let k = j; k < Math.min(j + run, given.length); k++) forced[k] = true;
      }
      const id = given[j]!;
      const special = this.table.special(id);
      const ok = special !== undefined ? constraint.pushSpecial(special) : constraint.pushBytes(this.table.bytes(id));
      if (!ok) throw new Error(`the given start of the frame is not valid: ${JSON.stringify(this.predictor.tokenizer.decode([...given]))}`);
    }
    return forced;
  }
}

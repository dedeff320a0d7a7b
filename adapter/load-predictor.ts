/**
 * Opening the model a debugging session runs on: the embedded default model unless the user
 * names another folder, on the CPU unless they ask for CUDA (which falls back to the CPU,
 * with a warning, when its provider does not load). Shared by `ndb dap` and `ndb debug`.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { defaultModelDir, isPrecision, type Precision } from '../model-client/model-folder.js';
import { NeuralPredictor } from '../model-client/neural-predictor.js';
import type { Provider } from '../model-client/onnx-session.js';
import { ALL_RULES, parseRuleSelection } from '../semantics/rule.js';

export interface PredictorChoice {
  /** A model folder (config.json, tokenizer.json, onnx/…); default: the embedded model. */
  model?: string;
  /** cpu (default) or cuda. */
  device?: string;
  /**
   * fp32 (default: token for token PyTorch's model) or int8 (the folder's int8 file: in
   * `node dist/bench/decode.js` 30-45% faster per frame, next-state exact 40.3% vs 40.1%).
   */
  precision?: string;
  /**
   * The symbolic stepper's rule families (semantics/rule.ts): `all` (default), `none` (the
   * grammar alone: every value the model's), or a comma-separated list. For measuring what
   * the rules buy, and for seeing what the model alone would show.
   */
  rules?: string;
  /** One-line warnings for the user (the CUDA fallback). */
  onWarning?: (message: string) => void;
}

/** A model folder that is missing or not a model folder, said so the user can act on it. */
export class ModelNotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModelNotFoundError';
  }
}

export function parseDevice(device: string | undefined): Provider {
  if (device === undefined || device === 'cpu') return 'cpu';
  if (device === 'cuda') return 'cuda';
  throw new ModelNotFoundError(`unknown device ${JSON.stringify(device)}: use cpu or cuda`);
}

export function parsePrecision(precision: string | undefined): Precision {
  if (precision === undefined) return 'fp32';
  if (isPrecision(precision)) return precision;
  throw new ModelNotFoundError(`unknown precision ${JSON.stringify(precision)}: use fp32 or int8`);
}

function parseRules(rules: string | undefined) {
  if (rules === undefined) return ALL_RULES;
  try {
    return parseRuleSelection(rules);
  } catch (err) {
    throw new ModelNotFoundError(`rules: ${(err as Error).message}`);
  }
}

export async function loadPredictor(choice: PredictorChoice = {}): Promise<NeuralPredictor> {
  const dir = choice.model ? resolve(choice.model) : defaultModelDir();
  const provider = parseDevice(choice.device);
  const precision = parsePrecision(choice.precision);
  const rules = parseRules(choice.rules);
  if (!existsSync(dir)) throw new ModelNotFoundError(`no model folder at ${dir} (give a folder written by training/export_onnx.py, or leave the model setting out for the embedded one)`);
  if (!existsSync(join(dir, 'manifest.json'))) throw new ModelNotFoundError(`${dir} is not a model folder: it has no manifest.json (see training/README.md)`);
  // One intra-op thread: at this size a second one is no faster (README, fast stepping), and
  // it leaves the other core to the editor.
  return NeuralPredictor.load(dir, { provider, precision, rules, threads: 1, ...(choice.onWarning ? { onWarning: choice.onWarning } : {}) });
}

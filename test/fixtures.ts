/**
 * What the tests share: the repository root, the model they run on, the example program,
 * and the tokenizer's edge cases.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ModelConfigSchema } from '../model-client/model-folder.js';

/** The repository root (the tests run from source; dist/ is below it). */
export const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

/** The embedded model: what `ndb` uses when no model is given (tests that start ndb without --model). */
export const EMBEDDED_MODEL = join(ROOT, 'models', 'default');

/** Whether the tests run in CI: the CI variable CI systems set (`.ci/run` runs with CI=true); unset, empty, `false` or `0`: not CI. */
export function inCI(env: NodeJS.ProcessEnv = process.env): boolean {
  const ci = env.CI?.trim().toLowerCase();
  return ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0';
}

/**
 * Whether `dir` holds a model (its manifest.json). Off CI a missing model skips the tests that
 * run it (warnWithoutModel says which). In CI it throws: a shipped model gone missing must fail
 * the run loudly, not leave it green with every model test skipped.
 */
export function modelPresent(dir: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (existsSync(join(dir, 'manifest.json'))) return true;
  if (inCI(env)) {
    throw new Error(
      `no model at ${dir} (no manifest.json): in CI the tests that run the model must run, not be skipped. ` +
        'Restore models/default (git checkout -- models/default), or set NDB_TEST_MODEL to a folder written by training/export_onnx.py.',
    );
  }
  return false;
}

export const HAS_EMBEDDED_MODEL = modelPresent(EMBEDDED_MODEL);

/** The model folder the model tests load: $NDB_TEST_MODEL (one written by training/export_onnx.py), else the embedded model. */
export const MODEL_DIR = process.env.NDB_TEST_MODEL ?? EMBEDDED_MODEL;
export const HAS_MODEL = modelPresent(MODEL_DIR);

/** A model folder's context in tokens (its config.json's max_position_embeddings): what tests that fill or cut the context scale with. */
export const modelContext = (dir: string): number => ModelConfigSchema.parse(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'))).max_position_embeddings;

/** One line saying which tests are skipped without a model (nothing when there is one). */
export function warnWithoutModel(what: string): void {
  if (!HAS_MODEL) console.warn(`${what} that run the model are skipped: no model folder at ${MODEL_DIR} (set NDB_TEST_MODEL to one written by training/export_onnx.py)`);
}

/** examples/count.py: `count(s, t)` counts t in s through a helper `is_match(c, t)` (lines 1-2, 5-10). */
export const COUNT_PY = join(ROOT, 'examples', 'count.py');
export const COUNT_SOURCE = readFileSync(COUNT_PY, 'utf8');

/**
 * Texts a tokenizer gets wrong first: blanks of every kind, non-ASCII, a byte order mark,
 * special tokens glued together, unknown and escaped ones, digits, indentation, JSON, long runs.
 * Each one round-trips (encode then decode gives it back).
 */
export const TOKENIZER_EDGE_CASES: readonly string[] = [
  '',
  ' ',
  'x',
  '\n\n\r\n\r\t x\t\t',
  '  \t\v\f\r  \u000b',
  'café… 日本語 😀 𝔘 \u00a0\u2028\u0085\u001f zero\u200bwidth',
  '\ufeffa byte order mark first',
  'é',
  '<|frame_sep|><|frame_sep|>x<|unknown|><|pad|>',
  '<|<|frame_sep|>|> <\\|escaped|> <| |>',
  '<|<|frame_sep|>|> <\\|escaped|> <\\\\|twice|> <| |> <|FRAME_SEP|> < |frame_sep|>',
  '<\\|frame_sep|>',
  'a1234567890b __init__ x_1 1_000 0x1F 3.14e-10',
  'a1234567890b __init__ x_1 1_000 0x1F 3.14e-10 -7 ١٢٣ ²½ Ⅻ',
  '        return fib(n - 1) + fib(n - 2)   \n    \n',
  '\t\tif x:\n\t\t\treturn 1\n',
  '{"..": "..", "xs": "[1, 2, 3]", "s": "\'a\\\\nb\'"}',
  'z'.repeat(3000),
  ' '.repeat(41),
  ' '.repeat(41) + 'x',
  ' \t'.repeat(20) + '\n',
  ' , . ? ! n\'t \'s \'m \'ve \'re', // what clean_up_tokenization_spaces would rewrite
  '١٢٣ ²½ Ⅻ',
  '\u0000\u0001\u007f\u0080\u00ff',
];

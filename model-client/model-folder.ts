/**
 * A model folder as training/export_onnx.py writes it, loaded and checked before anything
 * runs on it:
 *
 *   config.json          Hugging Face llama-like: vocab_size, hidden_size, num_hidden_layers,
 *                        num_attention_heads, max_position_embeddings, bos/eos/pad ids, and an
 *                        `ndb` section (trace-token ids, the ONNX files)
 *   tokenizer.json       the byte-level BPE (data-pipeline/train-tokenizer.ts)
 *   onnx/model_step.onnx fp32 in the step layout ndb runs (training/export_onnx.py: only this
 *                        pass's keys and values out); onnx/model_step_int8.onnx with dynamic
 *                        int8 weights (optional); onnx/model.onnx, the standard layout for
 *                        other tools (not read here)
 *   manifest.json        {files: {path: {sha256, size}}} for every other file
 *
 * Every file listed in the manifest must be there with its size and sha256, and every file
 * the client reads must be listed: a half-copied or edited folder fails here with a clear
 * message, not later with a strange prediction.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { ALL_TOKENS } from '../grammar/tokens.js';
import { TraceTokenizer } from '../tokenizer/trace-tokenizer.js';

export class ModelFolderError extends Error {
  constructor(dir: string, detail: string) {
    super(`model folder ${dir}: ${detail}`);
    this.name = 'ModelFolderError';
  }
}

const count = z.number().int().positive();
const id = z.number().int().nonnegative();

export const ModelConfigSchema = z
  .object({
    vocab_size: count,
    hidden_size: count,
    num_hidden_layers: count,
    num_attention_heads: count,
    num_key_value_heads: count.optional(),
    head_dim: count.optional(),
    max_position_embeddings: count,
    bos_token_id: id,
    eos_token_id: id,
    pad_token_id: id,
    ndb: z
      .object({
        /** Special token name (without `<|` `|>`) -> id, as the model was trained. */
        token_ids: z.record(z.string(), id).optional(),
        /**
         * The program length (tokens before the first frame) 95% of the training documents
         * were within (the build cuts library code by characters, data-pipeline/excerpt.ts):
         * the inference cut holds a program to it even where the context would hold more, so
         * that a model is never shown longer programs than it learned from.
         */
        program_tokens: count.optional(),
        /** The files in the step layout, per precision (hf: the standard layout, for other tools). */
        onnx: z.object({ fp32: z.string().min(1), int8: z.string().min(1).optional(), hf: z.string().min(1).optional() }).optional(),
      })
      .optional(),
  })
  .superRefine((c, ctx) => {
    if (c.head_dim === undefined && c.hidden_size % c.num_attention_heads !== 0) {
      ctx.addIssue({ code: 'custom', message: 'hidden_size is not a multiple of num_attention_heads' });
    }
  });
export type ModelConfig = z.infer<typeof ModelConfigSchema>;

const ManifestSchema = z.object({
  files: z.record(z.string(), z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/), size: z.number().int().nonnegative() })),
});

export type Precision = 'fp32' | 'int8';

export function isPrecision(value: string): value is Precision {
  return value === 'fp32' || value === 'int8';
}

/** The shape of the attention cache, from the config. */
export interface KvShape {
  layers: number;
  heads: number;
  headDim: number;
}

export interface ModelFolder {
  dir: string;
  config: ModelConfig;
  precision: Precision;
  /** Absolute path of the ONNX file for `precision`. */
  onnxPath: string;
  kvShape: KvShape;
}

export interface LoadModelFolderOptions {
  /** fp32 (default: what parity.json was made with) or int8 (smaller, faster, close but not identical). */
  precision?: Precision;
  /** Check every file's sha256 against the manifest (default true). */
  verify?: boolean;
}

const DEFAULT_ONNX: Record<Precision, string> = { fp32: 'onnx/model_step.onnx', int8: 'onnx/model_step_int8.onnx' };

async function readText(dir: string, file: string): Promise<string> {
  try {
    return await readFile(join(dir, file), 'utf8');
  } catch {
    throw new ModelFolderError(dir, `missing file ${file}`);
  }
}

function parseJson<T>(dir: string, file: string, text: string, schema: z.ZodType<T, z.ZodTypeDef, unknown>): T {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ModelFolderError(dir, `${file} is not valid: ${(err as Error).message}`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length ? `${issue.path.join('.')}: ` : '';
    throw new ModelFolderError(dir, `${file} is not valid: ${where}${issue.message}`);
  }
  return parsed.data;
}

function sha256File(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}

async function verifyFile(dir: string, file: string, expected: { sha256: string; size: number }, hash: boolean): Promise<void> {
  const path = join(dir, file);
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile()) throw new ModelFolderError(dir, `missing file ${file}`);
  if (info.size !== expected.size) throw new ModelFolderError(dir, `${file} is corrupt (size ${info.size}, expected ${expected.size})`);
  if (hash && (await sha256File(path)) !== expected.sha256) throw new ModelFolderError(dir, `${file} is corrupt (sha256 mismatch)`);
}

export async function loadModelFolder(dir: string, opts: LoadModelFolderOptions = {}): Promise<ModelFolder> {
  const info = await stat(dir).catch(() => undefined);
  if (!info?.isDirectory()) throw new ModelFolderError(dir, 'not found (expected a folder written by training/export_onnx.py)');
  const manifest = parseJson(dir, 'manifest.json', await readText(dir, 'manifest.json'), ManifestSchema);

  // Presence first, so that a missing file is named as missing even when it is not listed.
  const config = parseJson(dir, 'config.json', await readText(dir, 'config.json'), ModelConfigSchema);
  const precision = opts.precision ?? 'fp32';
  const onnxFile = config.ndb?.onnx?.[precision] ?? DEFAULT_ONNX[precision];
  const needed = ['config.json', 'tokenizer.json', onnxFile];
  for (const file of needed) {
    if (!(await stat(join(dir, file)).catch(() => undefined))) throw new ModelFolderError(dir, `missing file ${file}`);
    if (!Object.hasOwn(manifest.files, file)) throw new ModelFolderError(dir, `manifest.json does not list ${file}`);
  }
  for (const [file, expected] of Object.entries(manifest.files)) await verifyFile(dir, file, expected, opts.verify ?? true);

  const heads = config.num_key_value_heads ?? config.num_attention_heads;
  return {
    dir,
    config,
    precision,
    onnxPath: join(dir, onnxFile),
    kvShape: { layers: config.num_hidden_layers, heads, headDim: config.head_dim ?? config.hidden_size / config.num_attention_heads },
  };
}

/** The folder's tokenizer, checked against the config: same vocabulary size, same special-token ids. */
export async function loadTokenizer(folder: ModelFolder): Promise<TraceTokenizer> {
  const tokenizer = await TraceTokenizer.load(folder.dir).catch((err: Error) => {
    throw new ModelFolderError(folder.dir, `tokenizer.json is not valid: ${err.message.split('\n')[0]}`);
  });
  const fail = (detail: string) => new ModelFolderError(folder.dir, `tokenizer.json does not match config.json: ${detail}`);
  if (tokenizer.vocabSize !== folder.config.vocab_size) throw fail(`${tokenizer.vocabSize} ids, config says ${folder.config.vocab_size}`);
  const ids = folder.config.ndb?.token_ids ?? {};
  for (const token of ALL_TOKENS) {
    const expected = ids[token.slice(2, -2)];
    if (expected !== undefined && tokenizer.tokenId(token) !== expected) throw fail(`${token} is ${tokenizer.tokenId(token)}, config says ${expected}`);
  }
  return tokenizer;
}

/** The folder of ndb's package.json (the repository root; the package root when installed). */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
  return dir;
}

/** The embedded default model, which ndb uses unless told otherwise (--model, a setting). */
export function defaultModelDir(): string {
  return join(packageRoot(), 'models', 'default');
}

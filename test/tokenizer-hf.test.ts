/**
 * The shipped tokenizer (models/default) in `@huggingface/transformers`, offline: it must load
 * from the folder alone and give exactly the ids TraceTokenizer gives (the ids the model was
 * trained on), and decode them back to the same text.
 *
 * Texts: real trajectories (full replays of examples/*.py and of a program with awkward
 * payloads, as `ndb trace` prints them, plus sampled forward and inverse trajectories from a
 * small `ndb data build`), every special token, edge cases, random cuts of real trajectories
 * and seeded random strings over the characters the pre-tokenizer treats specially.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AutoTokenizer, env, type PreTrainedTokenizer } from '@huggingface/transformers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serializeTrajectory } from '../grammar/serialize.js';
import type { Trajectory } from '../grammar/state.js';
import { TOKEN_PATTERN } from '../grammar/tokens.js';
import { buildDataset } from '../data-pipeline/build.js';
import { Rng } from '../util/rng.js';
import { BOS_TOKEN, EOS_TOKEN, PAD_TOKEN, SPECIAL_TOKENS, type TraceTokenizer } from '../tokenizer/trace-tokenizer.js';
import { loadModelFolder, loadTokenizer } from '../model-client/model-folder.js';
import { StateTree } from '../state-tree/tree.js';
import { traceFile, traceSource, type TraceRequest } from '../tracer/run-tracer.js';
import { TOKENIZER_EDGE_CASES } from './fixtures.js';

const ROOT = resolve(import.meta.dirname, '..');
const MODELS = join(ROOT, 'models');
const MODEL = 'default';
const EXAMPLES = join(ROOT, 'examples');

/** A program whose source and values hold what the tokenizer finds hardest. */
const AWKWARD_PROGRAM = [
  'def awkward(s, n):',
  "    tab = '\\t'.join(['a', 'b'])\t# a tab before this comment",
  "    token = '<|frame_sep|> <\\\\|x|> <|pad|> |> <|'",
  "    word = s * 2 + 'café… 日本語 😀 𝔘 \\u00a0\\u2028'",
  '    digits = 1234567890 * n + 0x1F',
  "    spaces = ' ' * 9 + 'x' + '\\r\\n' + '\\f\\v'",
  "    names = {'__init__': 1_000, 'x_1': 3.14e-10}",
  '    return [tab, token, word, digits, spaces, names]',
  '',
].join('\n');

/** The shared edge cases, and one that does not round-trip (a lone surrogate is not UTF-8): both decode it to U+FFFD alike. */
const EDGE_CASES = [...TOKENIZER_EDGE_CASES, 'lone \ud800 surrogate \udfff'];

/** The pieces random strings are made of. */
const ALPHABET = [
  'a', 'Z', '_', 'x_1', 'return', ' self', '0', '7', '42', ' ', '  ', '    ', '\t', '\n', '\r', '\r\n', '\v', '\f',
  '<', '|', '>', '<|', '|>', '\\', '<\\|', '"', "'", '{', '}', '[', ']', ':', ',', '.', '..', '=', '==', '+=',
  'é', 'ñ', '日', '😀', '𝔘', '\u00a0', '\u2028', '\u0085', '\ufeff', '\u0000', '١', '²',
  ...SPECIAL_TOKENS,
];

let hf: PreTrainedTokenizer;
let tok: TraceTokenizer;
let dir: string;
/** Real trajectories, by name. */
const trajectories = new Map<string, string>();

/** The full replay `ndb trace` prints: every state, each followed by step_into, then the exit. */
function replay(trace: Awaited<ReturnType<typeof traceFile>>): string {
  const tree = new StateTree(trace);
  const t: Trajectory = {
    direction: 'forward',
    program: trace.program,
    steps: tree.states.map((state) => ({ state, action: { kind: 'step_into' } })),
    exit: tree.exit,
  };
  return serializeTrajectory(t);
}

const LIMITS: TraceRequest['limits'] = { maxEvents: 10_000, timeoutSeconds: 10 };

beforeAll(async () => {
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = MODELS;
  env.useFSCache = false;
  env.useBrowserCache = false;
  hf = await AutoTokenizer.from_pretrained(MODEL, { local_files_only: true });
  tok = await loadTokenizer(await loadModelFolder(join(MODELS, MODEL)));

  trajectories.set('count.py', replay(await traceFile({ file: join(EXAMPLES, 'count.py'), entry: 'count', args: "'berry', 'r'", limits: LIMITS })));
  trajectories.set('shapes.py', replay(await traceFile({ file: join(EXAMPLES, 'shapes.py'), limits: LIMITS })));
  trajectories.set('awkward', replay(await traceSource(AWKWARD_PROGRAM, { entry: 'awkward', args: "'ñ', 3", limits: LIMITS })));

  dir = mkdtempSync(join(tmpdir(), 'ndb-tokenizer-hf-'));
  await buildDataset({ out: join(dir, 'data'), programs: 24, seed: 3, trajectoriesPerTrace: 2 });
  for (const split of ['train', 'validation', 'test']) {
    for (const line of readFileSync(join(dir, 'data', `${split}.jsonl`), 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      const { id, text } = JSON.parse(line) as { id: string; text: string };
      trajectories.set(id, text);
    }
  }
}, 120_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** True when the string has no lone surrogate (so UTF-8 round-trips it). */
const wellFormed = (text: string) => Buffer.from(text, 'utf8').toString('utf8') === text;

/** Both tokenizers on one text: same ids, same decoded text (the text itself when it can be). */
function expectSame(text: string, label: string): number[] {
  const ids = tok.encode(text);
  expect(hf.encode(text), `${label}: ids`).toEqual(ids);
  if (ids.length > 0) {
    const decoded = hf.decode(ids);
    expect(decoded, `${label}: decode`).toBe(tok.decode(ids));
    if (wellFormed(text)) expect(decoded, `${label}: round trip`).toBe(text);
  }
  return ids;
}

describe('@huggingface/transformers on models/default', () => {
  it('loads offline with the same vocabulary and special tokens', () => {
    expect(hf.constructor.name).toBe('PreTrainedTokenizer');
    const vocab = hf.get_vocab();
    expect(vocab.size).toBe(tok.vocabSize);
    for (const [token, id] of vocab) expect(tok.tokenId(token), token).toBe(id);
    SPECIAL_TOKENS.forEach((t, i) => expect(hf.convert_tokens_to_ids(t), t).toBe(i));
    expect([hf.bos_token, hf.bos_token_id]).toEqual([BOS_TOKEN, tok.tokenId(BOS_TOKEN)]);
    expect([hf.eos_token, hf.eos_token_id]).toEqual([EOS_TOKEN, tok.tokenId(EOS_TOKEN)]);
    expect([hf.pad_token, hf.pad_token_id]).toEqual([PAD_TOKEN, tok.tokenId(PAD_TOKEN)]);
    expect([...hf.all_special_ids].sort((a, b) => a - b)).toEqual(SPECIAL_TOKENS.map((_, i) => i));
  });

  it('decodes every single id as TraceTokenizer does', () => {
    for (let id = 0; id < tok.vocabSize; id++) expect(hf.decode([id]), `id ${id}`).toBe(tok.decode([id]));
  });

  it('keeps every special token whole, alone and in company', () => {
    SPECIAL_TOKENS.forEach((t, i) => {
      expect(expectSame(t, t)).toEqual([i]);
      const ids = expectSame(`x${t}1 ${t}${t}<${t}|>`, t);
      expect(ids.filter((id) => id === i)).toHaveLength(4);
    });
    expectSame(SPECIAL_TOKENS.join(''), 'all special tokens');
  });

  it('encodes real trajectories to the same ids and decodes them back', () => {
    expect(trajectories.size).toBeGreaterThanOrEqual(20);
    let tokens = 0;
    for (const [name, text] of trajectories) {
      const ids = expectSame(text, name);
      tokens += ids.length;
      // Special tokens are ids of their own: skipping them drops exactly the tokens from the text.
      expect(hf.decode(ids, { skip_special_tokens: true }), name).toBe(text.replace(TOKEN_PATTERN, '').replaceAll(PAD_TOKEN, ''));
    }
    // The tokenizer's own call path (what a model pipeline uses): nothing added, nothing cut,
    // even past tokenizer_config.json's model_max_length.
    const longest = [...trajectories.values()].reduce((a, b) => (b.length > a.length ? b : a));
    const { input_ids } = hf(longest, { return_tensor: false }) as { input_ids: number[] };
    expect(input_ids).toEqual(tok.encode(longest));
    expect(input_ids.length).toBeGreaterThan(hf.model_max_length);
    expect(tokens).toBeGreaterThan(10_000);
  });

  it('encodes edge cases the same', () => {
    for (const [i, text] of EDGE_CASES.entries()) expectSame(text, `edge case ${i} ${JSON.stringify(text.slice(0, 40))}`);
    expect(hf.encode('')).toEqual(tok.encode(''));
  });

  it('encodes random cuts of real trajectories the same', () => {
    const rng = new Rng(11);
    const texts = [...trajectories.values()];
    for (let k = 0; k < 300; k++) {
      const text = rng.pick(texts);
      const start = rng.int(0, text.length - 1);
      const cut = text.slice(start, start + rng.int(1, 400));
      expectSame(cut, `cut ${k} ${JSON.stringify(cut.slice(0, 40))}`);
    }
  });

  it('encodes random strings the same', () => {
    const rng = new Rng(5);
    for (let k = 0; k < 1000; k++) {
      const n = rng.int(1, 40);
      let text = '';
      for (let j = 0; j < n; j++) text += rng.pick(ALPHABET);
      expectSame(text, `random ${k} ${JSON.stringify(text)}`);
    }
  });
});

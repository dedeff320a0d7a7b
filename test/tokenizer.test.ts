/**
 * The tokenizer (tokenizer/trace-tokenizer.ts, trained by data-pipeline/train-tokenizer.ts), its Python twin (training/bpe.py) and the token
 * files (data-pipeline/tokenize.ts), on a small dataset traced here from real Python.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Tokenizer } from 'tokenizers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTrajectory } from '../grammar/parse.js';
import { serializeTrajectory } from '../grammar/serialize.js';
import { ALL_TOKENS, TOKEN_PATTERN, TOKENS } from '../grammar/tokens.js';
import { buildDataset } from '../data-pipeline/build.js';
import { tokenizeDataset, type TokenizeSummary } from '../data-pipeline/tokenize.js';
import { PAD_TOKEN, SPECIAL_TOKENS, TraceTokenizer } from '../tokenizer/trace-tokenizer.js';
import { trainTokenizer } from '../data-pipeline/train-tokenizer.js';
import { TOKENIZER_EDGE_CASES } from './fixtures.js';

const PYTHON = '/usr/bin/python3';
const BPE_PY = join(import.meta.dirname, '..', 'training', 'bpe.py');
const VOCAB = 600;
const CONTEXT = 384;


let dir: string;
let texts: string[];
let tok: TraceTokenizer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ndb-tokenizer-'));
  await buildDataset({ out: join(dir, 'data'), programs: 60, seed: 7 });
  await trainTokenizer({ files: [join(dir, 'data', 'train.jsonl')], out: join(dir, 'tok'), vocabSize: VOCAB });
  tok = await TraceTokenizer.load(join(dir, 'tok'));
  texts = readFileSync(join(dir, 'data', 'train.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { text: string }).text);
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('tokenizer', () => {
  it('has the requested size and the documented ids', () => {
    expect(tok.vocabSize).toBe(VOCAB);
    expect(tok.tokenId(TOKENS.beginOfText)).toBe(0);
    ALL_TOKENS.forEach((t, i) => expect(tok.tokenId(t)).toBe(i));
    expect(tok.tokenId(PAD_TOKEN)).toBe(ALL_TOKENS.length);
    const config = JSON.parse(readFileSync(join(dir, 'tok', 'tokenizer_config.json'), 'utf8'));
    expect(config).toMatchObject({ bos_token: TOKENS.beginOfText, eos_token: TOKENS.endOfText, pad_token: PAD_TOKEN, tokenizer_class: 'PreTrainedTokenizerFast' });
  });

  it('gives every special token a single id, in any company', () => {
    SPECIAL_TOKENS.forEach((t, i) => {
      expect(tok.encode(t)).toEqual([i]);
      expect(tok.encode(`x${t}1 ${t}${t}`)).toEqual([...tok.encode('x'), i, ...tok.encode('1 '), i, i]);
    });
    for (const text of texts.slice(0, 50)) {
      const specials = tok.encode(text).filter((id) => id < SPECIAL_TOKENS.length);
      expect(specials).toEqual(text.match(TOKEN_PATTERN)!.map((t) => tok.tokenId(t)));
    }
  });

  it('splits digits and newlines, and merges indentation', () => {
    const pieces = (text: string) => tok.encode(text).map((id) => tok.decode([id]));
    expect(pieces('1234567890')).toEqual([...'1234567890']);
    const indented = pieces('\n\n        return 0');
    expect(indented.slice(0, 2)).toEqual(['\n', '\n']);
    expect(indented.some((p) => /^ {2,}$/.test(p))).toBe(true);
  });

  it('round-trips any text', () => {
    for (const text of [...TOKENIZER_EDGE_CASES, ...texts]) expect(tok.decode(tok.encode(text))).toBe(text);
  });

  it('encodes like the Rust tokenizer', async () => {
    const rust = Tokenizer.fromFile(join(dir, 'tok', 'tokenizer.json'));
    for (const text of [...TOKENIZER_EDGE_CASES, ...texts.slice(0, 50)]) {
      const ids = (await rust.encode(text)).getIds();
      expect(tok.encode(text)).toEqual(ids);
      expect(await rust.decode(ids, false)).toBe(text);
    }
  });

  it('encodes like training/bpe.py', () => {
    // One Python run: the texts joined are encoded as one. Special tokens split the text first,
    // so each trajectory (starting with <|begin_of_text|>) tokenizes exactly as it does alone.
    const joined = [...texts.slice(0, 50), ...TOKENIZER_EDGE_CASES.map((t) => TOKENS.frameSep + t)].join('');
    const py = spawnSync(PYTHON, [BPE_PY, join(dir, 'tok'), '--encode'], { input: joined, encoding: 'utf8', maxBuffer: 1 << 28 });
    expect(py.stderr).toBe('');
    expect(JSON.parse(py.stdout)).toEqual(tok.encode(joined));
  });
});

describe('a tokenizer that splits string literals (ndb_split_strings)', () => {
  let split: TraceTokenizer;
  let splitDir: string;
  const pieces = (t: TraceTokenizer, text: string) => t.encode(text).map((id) => t.decode([id]));

  beforeAll(async () => {
    // The ordinary tokenizer's vocabulary with the key set: how a model's weights carry over.
    splitDir = join(dir, 'tok-split');
    mkdirSync(splitDir);
    for (const file of ['tokenizer.json', 'special_tokens_map.json']) copyFileSync(join(dir, 'tok', file), join(splitDir, file));
    const config = JSON.parse(readFileSync(join(dir, 'tok', 'tokenizer_config.json'), 'utf8'));
    writeFileSync(join(splitDir, 'tokenizer_config.json'), JSON.stringify({ ...config, ndb_split_strings: true }));
    split = await TraceTokenizer.load(splitDir);
  });

  it('encodes a character per token inside single quotes and as before outside them', () => {
    expect(tok.splitsStrings).toBe(false);
    expect(split.splitsStrings).toBe(true);
    expect(pieces(split, "s='AsDf ok'")).toEqual([...pieces(tok, 's='), ...["'", 'A', 's', 'D', 'f', ' ', 'o', 'k', "'"]]);
    // Locals as the trace writes them: reprs in a JSON object. The names and the JSON stay
    // ordinary; so does a repr Python wrote in double quotes (its apostrophe pairs with nothing).
    const end = String.raw`]", "q": "\"it's\"", "e": "`;
    const locals = String.raw`{"words": "['ab', 'c\'d']", "q": "\"it's\"", "e": "'x'"}`;
    expect(pieces(split, locals)).toEqual([
      ...pieces(tok, '{"words": "['),
      ..."'ab'",
      ...pieces(tok, ', '),
      ...String.raw`'c\'d'`,
      ...pieces(tok, end),
      ..."'x'",
      ...pieces(tok, '"}'),
    ]);
    // Docstrings are prose: ordinary pieces.
    const doc = 'def f():\n    """Return the word \'count\'."""\n';
    expect(split.encode(doc)).toEqual(tok.encode(doc));
    expect(split.encode('total = 12 + n')).toEqual(tok.encode('total = 12 + n'));
  });

  it('refuses a tokenizer_config.json that is not JSON, saying which file', async () => {
    const bad = join(dir, 'tok-bad-config');
    mkdirSync(bad);
    copyFileSync(join(dir, 'tok', 'tokenizer.json'), join(bad, 'tokenizer.json'));
    writeFileSync(join(bad, 'tokenizer_config.json'), '{"ndb_split_strings": tru');
    await expect(TraceTokenizer.load(bad)).rejects.toThrow(/tokenizer_config\.json beside it is not valid/);
  });

  it('encodes a prefix that ends inside a literal as the start of the whole', () => {
    // What decoding relies on: a partly written value is encoded as the model saw it in training.
    const whole = split.encode("x='abcde', y=1");
    expect(whole.slice(0, split.encode("x='abc").length)).toEqual(split.encode("x='abc"));
  });

  it('round-trips any text', () => {
    for (const text of [...TOKENIZER_EDGE_CASES, ...texts, "'unclosed \n'", '"""a\n\'b\'"""']) expect(split.decode(split.encode(text))).toBe(text);
  });

  it('encodes like training/bpe.py', () => {
    const joined = [...texts.slice(0, 50), ...TOKENIZER_EDGE_CASES.map((t) => TOKENS.frameSep + t), `${TOKENS.frameSep}'a\\'\r'`, `${TOKENS.frameSep}"open`, String.raw`${TOKENS.localsSep}{"s": "\"it's\"", "t": "'a\\b'"}`].join('');
    const py = spawnSync(PYTHON, [BPE_PY, splitDir, '--encode'], { input: joined, encoding: 'utf8', maxBuffer: 1 << 28 });
    expect(py.stderr).toBe('');
    expect(JSON.parse(py.stdout)).toEqual(split.encode(joined));
  });

  it('is what `trainTokenizer({ splitStrings })` writes, with no merges learned inside literals', async () => {
    const out = join(dir, 'tok-split-trained');
    await trainTokenizer({ files: [join(dir, 'data', 'train.jsonl')], out, vocabSize: VOCAB, splitStrings: true });
    const trained = await TraceTokenizer.load(out);
    expect(trained.splitsStrings).toBe(true);
    const vocab = Object.keys(JSON.parse(readFileSync(join(out, 'tokenizer.json'), 'utf8')).model.vocab as Record<string, number>);
    // A merge with a quote in it could only come from outside a literal: an apostrophe left open.
    expect(vocab.filter((t) => t.length > 1 && t.includes("'"))).toEqual([]);
  }, 60_000);
});

describe('tokenizeDataset', () => {
  let summary: TokenizeSummary;
  let out: string;

  beforeAll(async () => {
    out = join(dir, 'tokens');
    summary = await tokenizeDataset({ data: join(dir, 'data'), tokenizer: join(dir, 'tok'), out, contextLength: CONTEXT });
  });

  it('writes documents from <|begin_of_text|> to <|end_of_text|> that fit the context', () => {
    const meta = JSON.parse(readFileSync(join(out, 'meta.json'), 'utf8'));
    expect(meta).toMatchObject({ vocab_size: VOCAB, context_length: CONTEXT, special_token_ids: { bos: 0, eos: 1, pad: ALL_TOKENS.length, frame_sep: tok.tokenId(TOKENS.frameSep) } });
    let trainDocs: number[][] = [];
    for (const split of ['train', 'validation', 'test'] as const) {
      const bin = readFileSync(join(out, `${split}.bin`));
      const ids = Array.from({ length: bin.length / 2 }, (_, i) => bin.readUInt16LE(2 * i));
      if (ids.length > 0) expect(ids[0]).toBe(0);
      const docs = splitDocuments(ids);
      if (split === 'train') trainDocs = docs;
      expect(docs.length).toBe(summary.splits[split]!.documents);
      expect(ids.length).toBe(summary.splits[split]!.tokens);
      for (const doc of docs) {
        expect(doc[doc.length - 1]).toBe(1);
        expect(doc.length).toBeLessThanOrEqual(CONTEXT);
        expect(doc.filter((id) => id === 0 || id === 1)).toHaveLength(2);
      }
    }
    // The training documents' program lengths (tokens before the first frame), which export_onnx.py declares.
    const programs = trainDocs.map((doc) => doc.indexOf(tok.tokenId(TOKENS.frameSep))).sort((a, b) => a - b);
    expect(meta.program_tokens).toEqual(summary.programTokens);
    expect(meta.program_tokens.max).toBe(programs[programs.length - 1]);
    expect(meta.program_tokens.p50).toBe(programs[Math.ceil(programs.length / 2) - 1]);
    expect(meta.program_tokens.p95).toBeGreaterThanOrEqual(meta.program_tokens.p50);
    expect(meta.program_tokens.p99).toBeGreaterThanOrEqual(meta.program_tokens.p95);
    expect(meta.program_tokens.p99).toBeLessThanOrEqual(meta.program_tokens.max);
    expect(summary.meanTokensPerFrame).toBeGreaterThan(5);
    expect(summary.meanTokensPerTrajectory).toBeGreaterThan(summary.meanContextTokens);
  });

  it('shortens a long trajectory to a parseable prefix of whole steps', () => {
    const bin = readFileSync(join(out, 'train.bin'));
    const docs = splitDocuments(Array.from({ length: bin.length / 2 }, (_, i) => bin.readUInt16LE(2 * i)));
    const train = summary.splits.train!;
    expect(train.shortened).toBeGreaterThan(0);
    let shortened = 0;
    let original = 0;
    for (const doc of docs) {
      const text = tok.decode(doc);
      const open = text.endsWith(TOKENS.frameSep + TOKENS.endOfText);
      const body = open ? text.slice(0, -TOKENS.endOfText.length) : text;
      // Dropped trajectories are skipped; the rest keep their order.
      while (original < texts.length && !texts[original]!.startsWith(body)) original++;
      expect(original).toBeLessThan(texts.length);
      if (body !== texts[original]) {
        shortened++;
        const t = parseTrajectory(body);
        expect(t.exit).toBeNull();
        expect(t.steps.length).toBeGreaterThan(0);
        expect(serializeTrajectory(t)).toBe(body);
      }
      original++;
    }
    expect(shortened).toBe(train.shortened);
    expect(docs.length + train.dropped).toBe(texts.length);
  });
});

/** Documents of a token file: each starts at a <|begin_of_text|> (id 0). */
function splitDocuments(ids: number[]): number[][] {
  const docs: number[][] = [];
  ids.forEach((id) => (id === 0 ? docs.push([id]) : docs[docs.length - 1]!.push(id)));
  return docs;
}

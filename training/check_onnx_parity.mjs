// Checks an exported model folder (training/export_onnx.py) with onnxruntime-node: greedy
// decoding with the KV cache (prefill with an empty past, then one token at a time) must
// reproduce parity.json, PyTorch's greedy continuations, token for token.
//
//   node training/check_onnx_parity.mjs MODEL_DIR [--model onnx/model.onnx] [--min-match 1]
//        [--threads N] [--bench PAST]
//
// Also decodes all prompts at once as one left-padded batch (the attention mask at work).
// --min-match is the share of prompts that must match exactly, one at a time and batched
// (1 for fp32; lower for int8, which only mostly matches). --bench times single-token
// decoding after a past of PAST tokens.
import fs from 'node:fs';
import path from 'node:path';
import ort from 'onnxruntime-node';

function parseArgs(argv) {
  const args = { dir: undefined, model: 'onnx/model.onnx', minMatch: 1, threads: 0, bench: 0 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--model') args.model = argv[++i];
    else if (a === '--min-match') args.minMatch = Number(argv[++i]);
    else if (a === '--threads') args.threads = Number(argv[++i]);
    else if (a === '--bench') args.bench = Number(argv[++i]);
    else if (!args.dir && !a.startsWith('--')) args.dir = a;
    else throw new Error(`unknown argument ${a}`);
  }
  if (!args.dir) throw new Error('usage: check_onnx_parity.mjs MODEL_DIR [--model F] [--min-match R] [--threads N] [--bench PAST]');
  return args;
}

const int64 = (values, dims) => new ort.Tensor('int64', BigInt64Array.from(values, BigInt), dims);

class Decoder {
  constructor(session, config) {
    this.session = session;
    this.layers = config.num_hidden_layers;
    this.heads = config.num_attention_heads;
    this.headDim = config.hidden_size / config.num_attention_heads;
    this.vocab = config.vocab_size;
    this.contextLength = config.max_position_embeddings;
    this.pad = config.pad_token_id;
  }

  emptyPast(batch) {
    const past = {};
    for (let i = 0; i < this.layers; i++) {
      for (const kind of ['key', 'value']) {
        past[`past_key_values.${i}.${kind}`] = new ort.Tensor('float32', new Float32Array(0), [batch, this.heads, 0, this.headDim]);
      }
    }
    return past;
  }

  /** One forward: rows of equal length, the mask over past + new tokens. Returns the last
   * position's logits per row and the new past. */
  async run(rows, mask, positions, past) {
    const batch = rows.length;
    const seq = rows[0].length;
    const out = await this.session.run({
      input_ids: int64(rows.flat(), [batch, seq]),
      attention_mask: int64(mask.flat(), [batch, mask[0].length]),
      position_ids: int64(positions.flat(), [batch, seq]),
      ...past,
    });
    const next = {};
    for (let i = 0; i < this.layers; i++) {
      for (const kind of ['key', 'value']) next[`past_key_values.${i}.${kind}`] = out[`present.${i}.${kind}`];
    }
    const logits = out.logits.data;
    const last = Array.from({ length: batch }, (_, b) => logits.subarray(((b + 1) * seq - 1) * this.vocab, (b + 1) * seq * this.vocab));
    return { last, past: next };
  }

  /** Greedy decoding of one or more prompts at once (left-padded), the same rule as
   * model.py's generate_greedy: stop at a stop id, after maxNew tokens, or when the next
   * input would sit past the context length. */
  async greedy(prompts, maxNew, stopIds) {
    const width = Math.max(...prompts.map((p) => p.length));
    const mask = prompts.map((p) => [...Array(width - p.length).fill(0), ...Array(p.length).fill(1)]);
    const rows = prompts.map((p) => [...Array(width - p.length).fill(this.pad), ...p]);
    const positions = prompts.map((p) => [...Array(width - p.length).fill(0), ...p.map((_, i) => i)]);
    let { last, past } = await this.run(rows, mask, positions, this.emptyPast(prompts.length));
    const outputs = prompts.map(() => []);
    const done = prompts.map(() => false);
    for (let n = 0; n < maxNew; n++) {
      const tokens = last.map(argmax);
      tokens.forEach((t, b) => {
        if (done[b]) return;
        outputs[b].push(t);
        if (stopIds.includes(t) || prompts[b].length + outputs[b].length - 1 >= this.contextLength || outputs[b].length === maxNew) done[b] = true;
      });
      if (done.every(Boolean)) break;
      mask.forEach((m) => m.push(1)); // rows already done run on; their outputs are ignored
      ({ last, past } = await this.run(tokens.map((t) => [t]), mask, prompts.map((p) => [p.length + n]), past));
    }
    return outputs;
  }
}

function argmax(values) {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i] > values[best]) best = i;
  return best;
}

/** Length of the common prefix of two token lists. */
function agreed(a, b) {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

async function bench(decoder, pastLength, prompt) {
  const ids = Array.from({ length: pastLength }, (_, i) => prompt[i % prompt.length]);
  let { last, past } = await decoder.run([ids], [ids.map(() => 1)], [ids.map((_, i) => i)], decoder.emptyPast(1));
  const mask = ids.map(() => 1);
  const times = [];
  for (let i = 0; i < 100; i++) {
    mask.push(1);
    const t0 = process.hrtime.bigint();
    ({ last, past } = await decoder.run([[argmax(last[0])]], [mask], [[pastLength + i]], past));
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  times.sort((a, b) => a - b);
  return { median: times[times.length >> 1], p10: times[Math.floor(times.length * 0.1)] };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const config = JSON.parse(fs.readFileSync(path.join(args.dir, 'config.json'), 'utf8'));
  const parity = JSON.parse(fs.readFileSync(path.join(args.dir, 'parity.json'), 'utf8'));
  const options = { executionProviders: ['cpu'], ...(args.threads ? { intraOpNumThreads: args.threads } : {}) };
  const session = await ort.InferenceSession.create(path.join(args.dir, args.model), options);
  const decoder = new Decoder(session, config);

  let exact = 0;
  let tokens = 0;
  let total = 0;
  for (const [i, c] of parity.cases.entries()) {
    const [out] = await decoder.greedy([c.prompt], parity.max_new_tokens, parity.stop_ids);
    const n = agreed(out, c.output);
    const ok = n === c.output.length && out.length === c.output.length;
    exact += ok ? 1 : 0;
    tokens += n;
    total += c.output.length;
    console.log(`case ${i}: prompt ${c.prompt.length} tokens, ${ok ? 'match' : `differs at new token ${n}`} (${c.output.length} expected, ${out.length} got)`);
  }
  // Left padding must not change a row's result; under int8 it may a little, since dynamic
  // quantization scales each activation tensor over the whole batch.
  const batched = await decoder.greedy(parity.cases.map((c) => c.prompt), parity.max_new_tokens, parity.stop_ids);
  const batchExact = batched.filter((out, i) => JSON.stringify(out) === JSON.stringify(parity.cases[i].output)).length;
  const n = parity.cases.length;
  console.log(`${args.model}: ${exact}/${n} prompts match exactly (${tokens}/${total} tokens before the first difference); ` +
    `as one left-padded batch: ${batchExact}/${n}`);
  if (args.bench) {
    const { median, p10 } = await bench(decoder, args.bench, parity.cases[0].prompt);
    console.log(`decode one token after ${args.bench} past tokens: median ${median.toFixed(2)} ms, p10 ${p10.toFixed(2)} ms`);
  }
  if (Math.min(exact, batchExact) / n < args.minMatch) process.exit(1);
}

await main();

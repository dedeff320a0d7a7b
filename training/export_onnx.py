"""Export a trained checkpoint to ONNX: the standard decoder-with-cache layout, and ndb's step layout.

    python3 training/export_onnx.py --ckpt CKPT_DIR/best.pt --out MODEL_DIR [--quantize] [--data DIR | --parity-from FILE]

onnx/model.onnx, the standard layout (what Hugging Face tools such as transformers.js read):
  Inputs:  input_ids [batch, seq] int64, attention_mask [batch, past + seq] int64 (0 = left
           padding), position_ids [batch, seq] int64, past_key_values.{i}.key / .value
           [batch, n_head, past, head_dim] float32 (past may be 0: the prefill).
  Outputs: logits [batch, seq, vocab], present.{i}.key / .value [batch, n_head, past + seq, head_dim].
onnx/model_step.onnx, the step layout (what ndb runs, model-client/kv-cache.ts): the same
  inputs, but the outputs are logits and new_key_values.{i}.key / .value [batch, n_head, seq,
  head_dim], this pass's positions only, which the client appends to its own cache buffer.
  Attention reads the past and the new positions separately, so the cache is read once a pass
  and never copied: computing `present` means writing the whole cache anew every pass, and
  onnxruntime computes every output of a graph whether fetched or not. This graph is written
  node by node (step_graph.py), not traced: a third of the nodes, and onnxruntime's cost per
  node was most of a one-token pass.

Writes those (and onnx/model_step_int8.onnx with --quantize), config.json (Hugging Face-like,
plus an `ndb` section), parity.json (prompts cut from validation documents after a
<|frame_sep|>, with PyTorch's greedy continuations, for the TypeScript side to reproduce
token for token) and manifest.json (sha256 and size of every other file in MODEL_DIR).
Export into the tokenizer's folder (`ndb data tokenizer --out MODEL_DIR`) so that the model,
its tokenizer.json and the manifest travel together. DIR, for the parity prompts, defaults
to the data folder the checkpoint was trained on; --parity-from takes the prompts of an
earlier parity.json instead (a re-export without the data), the continuations recomputed.
"""
import argparse
import hashlib
import inspect
import json
import os
import sys

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model import ModelConfig, Transformer, count_parameters, generate_greedy  # noqa: E402
from step_graph import OPSET as STEP_OPSET, build_step_graph  # noqa: E402
from train import meta_id, special_ids  # noqa: E402

OPSET = 14
PARITY_PROMPTS = 8
PARITY_NEW_TOKENS = 64


class DecoderWithCache(torch.nn.Module):
    """The model with flat inputs and outputs, in the order of the ONNX signature."""

    def __init__(self, model: Transformer):
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask, position_ids, *past_flat):
        past = [(past_flat[2 * i], past_flat[2 * i + 1]) for i in range(len(past_flat) // 2)]
        logits, presents = self.model(input_ids, position_ids, past, attention_mask)
        return (logits, *[t for kv in presents for t in kv])


def export(model: Transformer, path):
    """The standard layout (the module docstring), traced by the TorchScript exporter."""
    cfg = model.cfg
    kv_names = [f"{i}.{kind}" for i in range(cfg.n_layer) for kind in ("key", "value")]
    past_names = [f"past_key_values.{n}" for n in kv_names]
    out_names = [f"present.{n}" for n in kv_names]
    # Traced with past and seq both > 1 so no dimension is specialized to 0 or 1.
    batch, seq, past = 2, 3, 4
    args = (
        torch.randint(0, cfg.vocab_size, (batch, seq)),
        torch.ones(batch, past + seq, dtype=torch.long),
        torch.arange(past, past + seq).expand(batch, seq).contiguous(),
        *[torch.zeros(batch, cfg.n_head, past, cfg.head_dim) for _ in past_names],
    )
    dynamic = {
        "input_ids": {0: "batch", 1: "seq"},
        "attention_mask": {0: "batch", 1: "past_seq"},
        "position_ids": {0: "batch", 1: "seq"},
        "logits": {0: "batch", 1: "seq"},
        **{n: {0: "batch", 2: "past"} for n in past_names},
        **{n: {0: "batch", 2: "past_seq"} for n in out_names},
    }
    # The TorchScript exporter (newer PyTorch defaults to the dynamo one, which reads
    # dynamic_axes differently).
    legacy = {"dynamo": False} if "dynamo" in inspect.signature(torch.onnx.export).parameters else {}
    torch.onnx.export(
        DecoderWithCache(model).eval(), args, path, opset_version=OPSET,
        input_names=["input_ids", "attention_mask", "position_ids", *past_names],
        output_names=["logits", *out_names], dynamic_axes=dynamic, **legacy,
    )
    proto = onnx.load(path)
    proto = share_tied_embedding(proto)
    save(proto, path)


def save(proto, path, check=True):
    """check=False for the step graphs: onnx's checker does not know SimplifiedLayerNormalization,
    which onnxruntime registers in the default domain; the parity test checks them instead."""
    # Protobuf caps a file at 2 GB: larger models (the 1.8B config) keep weights beside it.
    big = sum(t.ByteSize() for t in proto.graph.initializer) > 1.8e9
    onnx.save(proto, path, save_as_external_data=big, location=os.path.basename(path) + ".data")
    if check:
        onnx.checker.check_model(path)


def share_tied_embedding(proto):
    """The exporter folds the transposed embedding of the tied output layer into a second
    initializer: the same weights twice. Keep only the transposed [d_model, vocab] copy, which
    the logits MatMul reads as it is, and gather the embedding lookup's columns from it."""
    inits = {t.name: t for t in proto.graph.initializer}
    gathers = [n for n in proto.graph.node if n.op_type == "Gather" and n.input[0] in inits]
    assert len(gathers) == 1, "expected one embedding lookup"
    gather = gathers[0]
    table = numpy_helper.to_array(inits[gather.input[0]])
    heads = [n for n in proto.graph.node if n.op_type == "MatMul" and n.input[1] in inits
             and tuple(inits[n.input[1]].dims) == table.shape[::-1]
             and np.array_equal(numpy_helper.to_array(inits[n.input[1]]), table.T)]
    assert len(heads) == 1, "expected the tied output layer"
    proto.graph.initializer.remove(inits[gather.input[0]])
    shared = inits[heads[0].input[1]]
    shared.name = heads[0].input[1] = "embed.weight.T"
    # Gather(table_T, ids, axis=1) is [d_model, batch, seq]; move d_model last.
    columns = gather.output[0] + "_columns"
    lookup = helper.make_node("Gather", [shared.name, gather.input[1]], [columns], axis=1)
    to_rows = helper.make_node("Transpose", [columns], [gather.output[0]], perm=[1, 2, 0])
    i = list(proto.graph.node).index(gather)
    proto.graph.node.remove(gather)
    proto.graph.node.insert(i, to_rows)
    proto.graph.node.insert(i, lookup)
    return proto


def quantize_int8(proto):
    """Dynamic int8 quantization, as onnxruntime's quantize_dynamic does it: each MatMul by a
    weight matrix becomes DynamicQuantizeLinear(activation) -> MatMulInteger(uint8 activation,
    int8 weight) -> Cast to float -> Mul by activation scale x weight scale. Weights are
    symmetric per output column (zero point 0, so MatMulInteger needs none) and use 7 bits,
    like the quantizer's reduce_range: x86 CPUs without VNNI multiply uint8 x int8 pairs into
    saturating int16 sums, which 255 x 127 x 2 overflows and 255 x 63 x 2 does not. It costs
    little: next-token argmax agreed with fp32 on 98.8% of 17K validation positions of a 3M
    model with 7-bit weights as with 8-bit ones. The tied output
    layer, which the embedding lookup also reads, stays float: one shared copy, and
    full-precision logits keep greedy decoding close to the float model's."""
    inits = {t.name: t for t in proto.graph.initializer}
    read_by_gather = {n.input[0] for n in proto.graph.node if n.op_type == "Gather"}
    quantized = {}  # activation name -> (uint8 tensor, scale, zero point), shared by its MatMuls
    nodes = []
    for node in proto.graph.node:
        weight = inits.get(node.input[1]) if node.op_type == "MatMul" else None
        if weight is None or len(weight.dims) != 2 or weight.name in read_by_gather:
            nodes.append(node)
            continue
        a = node.input[0]
        if a not in quantized:
            quantized[a] = (f"{a}_quant", f"{a}_scale", f"{a}_zero_point")
            nodes.append(helper.make_node("DynamicQuantizeLinear", [a], list(quantized[a])))
        a_q, a_scale, a_zero = quantized[a]
        w = numpy_helper.to_array(weight)
        scale = np.maximum(np.abs(w).max(axis=0), 1e-12) / 63.0
        w_q = np.clip(np.round(w / scale), -63, 63).astype(np.int8)
        proto.graph.initializer.remove(weight)
        proto.graph.initializer.extend([
            numpy_helper.from_array(w_q, f"{weight.name}_int8"),
            numpy_helper.from_array(scale.astype(np.float32), f"{weight.name}_scale"),
        ])
        y = node.output[0]
        nodes += [
            helper.make_node("MatMulInteger", [a_q, f"{weight.name}_int8", a_zero], [f"{y}_int32"]),
            helper.make_node("Cast", [f"{y}_int32"], [f"{y}_float"], to=TensorProto.FLOAT),
            helper.make_node("Mul", [a_scale, f"{weight.name}_scale"], [f"{y}_scale"]),
            helper.make_node("Mul", [f"{y}_float", f"{y}_scale"], [y]),
        ]
    del proto.graph.node[:]
    proto.graph.node.extend(nodes)
    return proto


def validation_documents(data_dir, bos):
    tokens = np.memmap(os.path.join(data_dir, "validation.bin"), dtype="<u2", mode="r")
    starts = np.flatnonzero(tokens == bos)
    return [tokens[s:e] for s, e in zip(starts, list(starts[1:]) + [len(tokens)])]


def parity_cases(model, data_dir, meta, stop_ids):
    """Prompts: validation documents cut right after a <|frame_sep|> (the way ndb prompts the
    model), leaving room for the continuation in the context. Seeded, so re-exports agree."""
    bos, frame_sep = meta_id(meta, "bos"), meta_id(meta, "frame_sep")
    room = model.cfg.context_length - PARITY_NEW_TOKENS
    rng = np.random.default_rng(0)
    docs = validation_documents(data_dir, bos)
    cases = []
    for d in rng.permutation(len(docs)):
        cuts = np.flatnonzero(docs[d][:room] == frame_sep)
        if len(cuts) == 0:
            continue
        prompt = docs[d][: rng.choice(cuts) + 1].astype(int).tolist()
        cases.append({"prompt": prompt, "output": generate_greedy(model, prompt, PARITY_NEW_TOKENS, stop_ids)})
        if len(cases) == PARITY_PROMPTS:
            break
    return cases


def hf_config(cfg: ModelConfig, ckpt, meta, params, quantized):
    return {
        "architectures": ["LlamaForCausalLM"],
        "model_type": "llama",
        "vocab_size": cfg.vocab_size,
        "hidden_size": cfg.d_model,
        "num_hidden_layers": cfg.n_layer,
        "num_attention_heads": cfg.n_head,
        "num_key_value_heads": cfg.n_head,
        "head_dim": cfg.head_dim,
        "intermediate_size": cfg.d_ff,
        "hidden_act": "silu",
        "max_position_embeddings": cfg.context_length,
        "rope_theta": cfg.rope_theta,
        "rms_norm_eps": cfg.norm_eps,
        "tie_word_embeddings": True,
        "attention_bias": False,
        "torch_dtype": "float32",
        "bos_token_id": meta_id(meta, "bos"),
        "eos_token_id": meta_id(meta, "eos"),
        "pad_token_id": meta_id(meta, "pad"),
        "ndb": {
            "training_tokens": ckpt["tokens"],
            "training_steps": ckpt["step"],
            "val_loss": ckpt.get("val_loss"),
            "parameters": params["total"],
            "token_ids": special_ids(meta),
            # The program length 95% of the training data's documents were within, when its
            # meta.json says (ndb data tokenize since 2026-12-06): the inference cut holds programs
            # to it, so that a longer context does not show programs longer than most it learned
            # from (the build cuts library code by characters, data-pipeline/excerpt.ts).
            **({"program_tokens": meta["program_tokens"]["p95"]} if "program_tokens" in meta else {}),
            # The graph's own qkv layout is not Hugging Face's: this config describes the
            # ONNX files here, not weights for transformers' LlamaForCausalLM.
            # fp32 / int8: the step layout ndb runs; hf: the standard layout for other tools.
            "onnx": {"opset": {"hf": OPSET, "step": STEP_OPSET}, "fp32": "onnx/model_step.onnx", **({"int8": "onnx/model_step_int8.onnx"} if quantized else {}), "hf": "onnx/model.onnx"},
        },
    }


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def limit_tokenizer_length(out, context_length):
    """The tokenizer's model_max_length is the model's context (the tokenizer is trained
    before the context is chosen, so it starts with a default): tools that trust it then warn
    about inputs the model cannot take."""
    path = os.path.join(out, "tokenizer_config.json")
    if not os.path.exists(path):
        return
    with open(path) as f:
        config = json.load(f)
    config["model_max_length"] = context_length
    write_json(path, config)


def write_manifest(out):
    files = {}
    for root, _, names in os.walk(out):
        for name in sorted(names):
            path = os.path.join(root, name)
            rel = os.path.relpath(path, out).replace(os.sep, "/")
            if rel != "manifest.json":
                files[rel] = {"sha256": sha256(path), "size": os.path.getsize(path)}
    write_json(os.path.join(out, "manifest.json"), {"files": dict(sorted(files.items()))})


def write_json(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=2)
        f.write("\n")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ckpt", required=True, help="best.pt (or ckpt.pt) written by train.py")
    p.add_argument("--out", required=True, help="model folder to write")
    p.add_argument("--quantize", action="store_true", help="also write onnx/model_step_int8.onnx")
    p.add_argument("--data", help="data folder for the parity prompts (default: the training data)")
    p.add_argument("--parity-from", help="an earlier parity.json whose prompts to reuse (instead of --data)")
    args = p.parse_args()

    ckpt = torch.load(args.ckpt, map_location="cpu")
    meta, data_dir = ckpt["meta"], args.data or ckpt["data"]
    cfg = ModelConfig(**ckpt["model_config"])
    model = Transformer(cfg)
    model.load_state_dict(ckpt["model"])
    model.eval()
    params = count_parameters(model)

    onnx_dir = os.path.join(args.out, "onnx")
    os.makedirs(onnx_dir, exist_ok=True)
    hf_path, step_path, int8_path = (os.path.join(onnx_dir, n) for n in ("model.onnx", "model_step.onnx", "model_step_int8.onnx"))
    # Files of an earlier export would not match these weights (and would enter the manifest);
    # model_int8.onnx is the int8 file's name before the step layout.
    for stale in (int8_path, os.path.join(onnx_dir, "model_int8.onnx"), *(f + ".data" for f in (hf_path, step_path, int8_path))):
        if os.path.exists(stale):
            os.remove(stale)
    prompts = None
    if args.parity_from:
        with open(args.parity_from) as f:
            prompts = [c["prompt"] for c in json.load(f)["cases"]]
    export(model, hf_path)
    save(build_step_graph(cfg, {k: v.detach().numpy() for k, v in model.state_dict().items()}), step_path, check=False)
    if args.quantize:
        save(quantize_int8(onnx.load(step_path)), int8_path, check=False)

    stop_ids = [meta_id(meta, "action_sep"), meta_id(meta, "eos")]
    write_json(os.path.join(args.out, "config.json"), hf_config(cfg, ckpt, meta, params, args.quantize))
    limit_tokenizer_length(args.out, cfg.context_length)
    with open(os.path.join(args.out, "parity.json"), "w") as f:
        head = {
            "max_new_tokens": PARITY_NEW_TOKENS,
            "stop_ids": stop_ids,
            "note": "greedy continuations by PyTorch with the KV cache; an output ends with the stop id when one was reached",
        }
        if prompts is None:
            cases = parity_cases(model, data_dir, meta, stop_ids)
        else:
            cases = [{"prompt": q, "output": generate_greedy(model, q, PARITY_NEW_TOKENS, stop_ids)} for q in prompts]
        # One case a line: readable, and diffs stay small.
        f.write(json.dumps(head)[:-1] + ', "cases": [\n' + ",\n".join(json.dumps(c) for c in cases) + "\n]}\n")
    write_manifest(args.out)
    for path in (hf_path, step_path, int8_path):
        if os.path.exists(path):
            print(f"{path}: {os.path.getsize(path) / 1e6:.2f} MB")
    print(f"{params['total']:,} parameters; wrote {args.out}")


if __name__ == "__main__":
    main()

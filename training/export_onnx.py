"""Export a trained checkpoint to ONNX, in the standard decoder-with-cache layout.

    python3 training/export_onnx.py --ckpt CKPT_DIR/best.pt --out MODEL_DIR [--quantize] [--data DIR]

Inputs:  input_ids [batch, seq] int64, attention_mask [batch, past + seq] int64 (0 = left
         padding), position_ids [batch, seq] int64, past_key_values.{i}.key / .value
         [batch, n_head, past, head_dim] float32 (past may be 0: the prefill).
Outputs: logits [batch, seq, vocab], present.{i}.key / .value [batch, n_head, past + seq, head_dim].

Writes MODEL_DIR/onnx/model.onnx (and onnx/model_int8.onnx with --quantize), config.json
(Hugging Face-like, plus an `ndb` section), parity.json (prompts cut from validation
documents after a <|frame_sep|>, with PyTorch's greedy continuations, for the TypeScript side
to reproduce token for token), a copy of DIR/tokenizer.json when there is one, and
manifest.json (sha256 and size of every other file). DIR defaults to the data folder the
checkpoint was trained on.
"""
import argparse
import hashlib
import json
import os
import shutil
import sys

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model import ModelConfig, Transformer, count_parameters, generate_greedy  # noqa: E402
from train import meta_id  # noqa: E402

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
    cfg = model.cfg
    kv_names = [f"{i}.{kind}" for i in range(cfg.n_layer) for kind in ("key", "value")]
    past_names = [f"past_key_values.{n}" for n in kv_names]
    present_names = [f"present.{n}" for n in kv_names]
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
        **{n: {0: "batch", 2: "past_seq"} for n in present_names},
    }
    torch.onnx.export(
        DecoderWithCache(model).eval(), args, path, opset_version=OPSET,
        input_names=["input_ids", "attention_mask", "position_ids", *past_names],
        output_names=["logits", *present_names], dynamic_axes=dynamic,
    )
    proto = onnx.load(path)
    proto = share_tied_embedding(proto)
    save(proto, path)


def save(proto, path):
    # Protobuf caps a file at 2 GB: larger models (the 1.8B config) keep weights beside it.
    big = sum(t.ByteSize() for t in proto.graph.initializer) > 1.8e9
    onnx.save(proto, path, save_as_external_data=big, location=os.path.basename(path) + ".data")
    onnx.checker.check_model(path)


def share_tied_embedding(proto):
    """The exporter folds the transposed embedding of the tied output layer into a second
    initializer: the same weights twice. Keep one copy and transpose it at run time instead
    (a cheap copy next to the logits matmul)."""
    inits = {t.name: t for t in proto.graph.initializer}
    gathers = [n for n in proto.graph.node if n.op_type == "Gather" and n.input[0] in inits]
    assert len(gathers) == 1, "expected one embedding lookup"
    table_name = gathers[0].input[0]
    table = numpy_helper.to_array(inits[table_name])
    for i, node in enumerate(proto.graph.node):
        if node.op_type == "MatMul" and node.input[1] in inits:
            w = inits[node.input[1]]
            if tuple(w.dims) == table.shape[::-1] and np.array_equal(numpy_helper.to_array(w), table.T):
                transposed = node.input[1]
                proto.graph.initializer.remove(w)
                proto.graph.node.insert(i, helper.make_node("Transpose", [table_name], [transposed], perm=[1, 0]))
                return proto
    return proto

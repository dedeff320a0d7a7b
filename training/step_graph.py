"""The step layout's ONNX graph, written node by node from a checkpoint's weights.

The TorchScript exporter turns every `view`, `chunk` and `cat` of model.py into its own
shape arithmetic: 451 nodes a pass for the 6-layer default model, most of them Shape,
Gather, Unsqueeze, Slice and Concat on tiny tensors. At one token a pass, onnxruntime's cost
per node, not the weights, was most of the pass. Written by hand the same network is 29
nodes a layer (195 in all), using onnxruntime's CPU kernels for what model.py spells out op
by op:

  SimplifiedLayerNormalization / SkipSimplifiedLayerNormalization  RMSNorm (and the residual add)
  RotaryEmbedding (com.microsoft, interleaved=0)                    Llama's rotate-half rotary
  FusedMatMul (com.microsoft, transB=1)                             q @ k^T
  QuickGelu (com.microsoft, alpha=1)                                x * sigmoid(x), i.e. SiLU

Signature and semantics are the step layout's (export_onnx.py's module docstring): the
scores against the past and against this pass's keys are computed apart, so the past is only
read, and only this pass's keys and values are output. Two foldings change float rounding
only: q's 1/sqrt(head_dim) sits in the q weights (rotary is linear), and gate and up are one
MatMul. test/model-client.test.ts checks the result against parity.json, PyTorch's greedy
decoding, token for token.
"""
import numpy as np
from onnx import TensorProto, helper, numpy_helper

IR_VERSION = 8
OPSET = 17  # Split takes its sizes as an input (13+), Softmax normalizes one axis (13+)
MS = "com.microsoft"


class GraphBuilder:
    """Nodes and initializers, with fresh names for intermediate values."""

    def __init__(self):
        self.nodes, self.inits, self.count = [], [], 0

    def op(self, op_type, inputs, outputs=1, domain="", **attrs):
        """Adds a node; `outputs` is a count of fresh names or a list of names ("" for an
        optional output not computed). Returns its outputs."""
        if isinstance(outputs, int):
            self.count += 1
            outputs = [f"{op_type.lower()}_{self.count}_{j}" for j in range(outputs)]
        self.nodes.append(helper.make_node(op_type, inputs, outputs, domain=domain or None, **attrs))
        return outputs

    def op1(self, op_type, inputs, domain="", **attrs):
        return self.op(op_type, inputs, 1, domain, **attrs)[0]

    def const(self, name, array):
        self.inits.append(numpy_helper.from_array(np.asarray(array).copy(order="C"), name))
        return name


def rotary_cache(cfg, dtype=np.float32):
    """cos and sin [context_length, head_dim / 2], computed as model.rotary_cos_sin does (float32)."""
    inv_freq = (1.0 / cfg.rope_theta ** (np.arange(0, cfg.head_dim, 2, dtype=np.float32) / cfg.head_dim)).astype(dtype)
    freqs = np.arange(cfg.context_length, dtype=dtype)[:, None] * inv_freq[None, :]
    return np.cos(freqs).astype(dtype), np.sin(freqs).astype(dtype)


def build_step_graph(cfg, weights):
    """The step-layout ModelProto. `weights`: model.py's state_dict as float32 numpy arrays."""
    g = GraphBuilder()
    H, D, C = cfg.n_head, cfg.head_dim, cfg.d_model
    w = lambda name: weights[name].astype(np.float32)  # noqa: E731
    kv = [f"{i}.{kind}" for i in range(cfg.n_layer) for kind in ("key", "value")]

    inputs = [
        helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
        helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "past_seq"]),
        helper.make_tensor_value_info("position_ids", TensorProto.INT64, ["batch", "seq"]),
        *[helper.make_tensor_value_info(f"past_key_values.{n}", TensorProto.FLOAT, ["batch", H, "past", D]) for n in kv],
    ]
    outputs = [
        helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", "seq", cfg.vocab_size]),
        *[helper.make_tensor_value_info(f"new_key_values.{n}", TensorProto.FLOAT, ["batch", H, "seq", D]) for n in kv],
    ]

    # Shared by every layer: the rotary tables, the additive attention mask and the split of
    # the scores into past and new. Query i sits at absolute index past + i and may attend key
    # k when the mask allows k and k <= past + i, or k is itself (model.attention_allowed).
    cos, sin = rotary_cache(cfg)
    g.const("rotary_cos", cos)
    g.const("rotary_sin", sin)
    g.const("zero", np.array(0, np.int64))
    g.const("one", np.array(1, np.int64))
    g.const("axis_0", np.array([0], np.int64))
    g.const("heads_shape", np.array([0, 0, H, D], np.int64))
    g.const("hidden_shape", np.array([0, 0, C], np.int64))
    g.const("qkv_sizes", np.array([C, C, C], np.int64))
    g.const("mlp_sizes", np.array([cfg.d_ff, cfg.d_ff], np.int64))
    g.const("blocked", np.array(-np.inf, np.float32))
    g.const("open", np.array(0.0, np.float32))
    seq = g.op1("Gather", [g.op1("Shape", ["input_ids"]), "one"], axis=0)
    total = g.op1("Gather", [g.op1("Shape", ["attention_mask"]), "one"], axis=0)
    past = g.op1("Sub", [total, seq])
    key_index = g.op1("Range", ["zero", total, "one"])  # [past + seq]
    query_index = g.op1("Unsqueeze", [g.op1("Range", [past, total, "one"]), "one"])  # [seq, 1]
    causal = g.op1("LessOrEqual", [key_index, query_index])  # [seq, past + seq]
    itself = g.op1("Equal", [key_index, query_index])
    unmasked = g.op1("Unsqueeze", [g.op1("Cast", ["attention_mask"], to=TensorProto.BOOL), g.const("axes_1_2", np.array([1, 2], np.int64))])
    allowed = g.op1("Or", [g.op1("And", [unmasked, causal]), itself])  # [batch, 1, seq, past + seq]
    mask_bias = g.op1("Where", [allowed, "open", "blocked"])
    score_sizes = g.op1("Concat", [g.op1("Unsqueeze", [past, "axis_0"]), g.op1("Unsqueeze", [seq, "axis_0"])], axis=0)

    embed = w("embed.weight")  # [vocab, C]; also the tied output layer, read transposed
    g.const("embed.weight", embed)
    x = g.op1("Gather", ["embed.weight", "input_ids"], axis=0)
    eps = float(cfg.norm_eps)

    def skip_norm(branch, residual, weight):
        """RMSNorm(residual + branch) and residual + branch, in one node."""
        g.count += 1
        normed, summed = f"norm_{g.count}", f"residual_{g.count}"
        g.op("SkipSimplifiedLayerNormalization", [residual, branch, weight], [normed, "", "", summed], domain=MS, epsilon=eps)
        return normed, summed

    h = g.op1("SimplifiedLayerNormalization", [x, g.const("blocks.0.attn_norm.weight", w("blocks.0.attn_norm.weight"))], axis=-1, epsilon=eps)

    for i in range(cfg.n_layer):
        p = f"blocks.{i}."
        qkv_w = w(p + "attn.qkv.weight").T.copy()  # [C, 3C]: q, k, v
        qkv_w[:, :C] *= 1.0 / np.sqrt(D)
        q, k, v = g.op("Split", [g.op1("MatMul", [h, g.const(p + "attn.qkv", qkv_w)]), "qkv_sizes"], 3, axis=-1)
        q = g.op1("RotaryEmbedding", [q, "position_ids", "rotary_cos", "rotary_sin"], domain=MS, interleaved=0, num_heads=H)
        k = g.op1("RotaryEmbedding", [k, "position_ids", "rotary_cos", "rotary_sin"], domain=MS, interleaved=0, num_heads=H)
        heads = lambda t, name=None: g.op("Transpose", [g.op1("Reshape", [t, "heads_shape"])], [name] if name else 1, perm=[0, 2, 1, 3])[0]  # noqa: E731
        q = heads(q)
        k = heads(k, f"new_key_values.{i}.key")
        v = heads(v, f"new_key_values.{i}.value")
        past_k, past_v = f"past_key_values.{i}.key", f"past_key_values.{i}.value"
        scores = g.op1("Concat", [
            g.op1("FusedMatMul", [q, past_k], domain=MS, transB=1),
            g.op1("FusedMatMul", [q, k], domain=MS, transB=1),
        ], axis=-1)
        probs = g.op1("Softmax", [g.op1("Add", [scores, mask_bias])], axis=-1)
        probs_past, probs_new = g.op("Split", [probs, score_sizes], 2, axis=-1)
        y = g.op1("Add", [g.op1("MatMul", [probs_past, past_v]), g.op1("MatMul", [probs_new, v])])
        y = g.op1("Reshape", [g.op1("Transpose", [y], perm=[0, 2, 1, 3]), "hidden_shape"])
        attn = g.op1("MatMul", [y, g.const(p + "attn.out", w(p + "attn.out.weight").T)])
        h, x = skip_norm(attn, x, g.const(p + "mlp_norm.weight", w(p + "mlp_norm.weight")))
        gate_up = np.concatenate([w(p + "mlp.gate.weight").T, w(p + "mlp.up.weight").T], axis=1)  # [C, 2 d_ff]
        gate, up = g.op("Split", [g.op1("MatMul", [h, g.const(p + "mlp.gate_up", gate_up)]), "mlp_sizes"], 2, axis=-1)
        mlp = g.op1("MatMul", [g.op1("Mul", [g.op1("QuickGelu", [gate], domain=MS, alpha=1.0), up]), g.const(p + "mlp.down", w(p + "mlp.down.weight").T)])
        last = i == cfg.n_layer - 1
        norm = "norm.weight" if last else f"blocks.{i + 1}.attn_norm.weight"
        h, x = skip_norm(mlp, x, g.const(norm, w(norm)))

    g.op("FusedMatMul", [h, "embed.weight"], ["logits"], domain=MS, transB=1)
    graph = helper.make_graph(g.nodes, "ndb_step", inputs, outputs, g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET), helper.make_opsetid(MS, 1)], producer_name="ndb training/step_graph.py")
    # make_model writes its onnx package's newest IR version (14 with onnx 1.23), which
    # onnxruntime 1.30 refuses; opset 17 needs IR 8, which every onnxruntime since 1.13 reads.
    model.ir_version = IR_VERSION
    return model

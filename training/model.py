"""A Llama-style decoder for the trace language, in one file.

RMSNorm, rotary position embeddings, SwiGLU MLP, multi-head causal self-attention, tied
input/output embeddings, no biases. The same `forward` serves training (whole rows, no cache)
and inference/export (a KV cache and an attention mask for left-padded batches), so the ONNX
graph is exported from exactly the code that was trained.
"""
import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class ModelConfig:
    vocab_size: int
    context_length: int = 1024
    n_layer: int = 6
    n_head: int = 6
    d_model: int = 192
    d_ff: int = 512  # hidden width of the SwiGLU MLP
    rope_theta: float = 10000.0
    norm_eps: float = 1e-5

    @property
    def head_dim(self) -> int:
        return self.d_model // self.n_head


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        # In float32 even under bf16 autocast: a mean of squares in bf16 loses too much.
        x32 = x.float()
        y = x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + self.eps)
        return y.type_as(x) * self.weight


def rotary_cos_sin(position_ids, inv_freq):
    """cos and sin of shape (batch, 1, seq, head_dim) for the given absolute positions."""
    freqs = position_ids.float()[..., None] * inv_freq  # (batch, seq, head_dim / 2)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos()[:, None], emb.sin()[:, None]


def apply_rotary(x, cos, sin):
    # Llama's "rotate half" layout: dimension i is paired with i + head_dim / 2.
    x1, x2 = x.chunk(2, dim=-1)
    return x * cos + torch.cat((-x2, x1), dim=-1) * sin


def use_fused_attention():
    """torch >= 2 has a fused attention kernel; the ONNX export uses the explicit path."""
    return hasattr(F, "scaled_dot_product_attention") and not torch.onnx.is_in_onnx_export()


class Attention(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        assert cfg.d_model % cfg.n_head == 0
        self.n_head = cfg.n_head
        self.head_dim = cfg.head_dim
        self.qkv = nn.Linear(cfg.d_model, 3 * cfg.d_model, bias=False)
        self.out = nn.Linear(cfg.d_model, cfg.d_model, bias=False)

    def forward(self, x, cos, sin, allowed, past):
        """allowed: bool (batch or 1, 1, seq, past + seq), True where a query may attend a key;
        None (only with the fused kernel) means plain causal attention without cache."""
        B, T, C = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.n_head, self.head_dim).permute(2, 0, 3, 1, 4).unbind(0)
        q = apply_rotary(q, cos, sin)
        k = apply_rotary(k, cos, sin)
        if past is not None:
            k = torch.cat((past[0], k), dim=2)
            v = torch.cat((past[1], v), dim=2)
        if use_fused_attention():
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed, is_causal=allowed is None)
        else:
            att = (q * (1.0 / math.sqrt(self.head_dim))) @ k.transpose(-2, -1)
            att = att.masked_fill(~allowed, float("-inf")).softmax(dim=-1)
            y = att @ v
        y = y.transpose(1, 2).reshape(B, T, C)
        return self.out(y), (k, v)


class MLP(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.gate = nn.Linear(cfg.d_model, cfg.d_ff, bias=False)
        self.up = nn.Linear(cfg.d_model, cfg.d_ff, bias=False)
        self.down = nn.Linear(cfg.d_ff, cfg.d_model, bias=False)

    def forward(self, x):
        return self.down(F.silu(self.gate(x)) * self.up(x))


class Block(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.attn_norm = RMSNorm(cfg.d_model, cfg.norm_eps)
        self.attn = Attention(cfg)
        self.mlp_norm = RMSNorm(cfg.d_model, cfg.norm_eps)
        self.mlp = MLP(cfg)

    def forward(self, x, cos, sin, allowed, past):
        a, present = self.attn(self.attn_norm(x), cos, sin, allowed, past)
        x = x + a
        x = x + self.mlp(self.mlp_norm(x))
        return x, present


def attention_allowed(seq_len, past_len, attention_mask, device):
    """Which keys each query may attend: causal (query i sits at absolute index past_len + i)
    and, with an attention mask (batch, past_len + seq_len) of 1/0, never a masked key.

    A left-padding query has no unmasked key at or before it; letting every query see its own
    key keeps its softmax defined (no NaN to leak into the cache) and changes nothing for real
    tokens, which see themselves anyway.
    """
    q_idx = torch.arange(seq_len, device=device)[:, None] + past_len
    k_idx = torch.arange(past_len + seq_len, device=device)[None, :]
    causal = k_idx <= q_idx  # (seq, past + seq)
    if attention_mask is None:
        return causal[None, None]
    return (causal[None, None] & attention_mask[:, None, None, :].bool()) | (k_idx == q_idx)[None, None]


class Transformer(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.cfg = cfg
        self.embed = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layer))
        self.norm = RMSNorm(cfg.d_model, cfg.norm_eps)
        inv_freq = 1.0 / cfg.rope_theta ** (torch.arange(0, cfg.head_dim, 2).float() / cfg.head_dim)
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self.apply(self._init_weights)
        # GPT-2's scaled init: each residual branch's output projection shrinks with depth so
        # the residual stream's variance stays about constant at initialization.
        for block in self.blocks:
            for proj in (block.attn.out, block.mlp.down):
                nn.init.normal_(proj.weight, std=0.02 / math.sqrt(2 * cfg.n_layer))

    @staticmethod
    def _init_weights(module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=0.02)

    def forward(self, input_ids, position_ids=None, past_key_values=None, attention_mask=None):
        """input_ids (batch, seq). position_ids default to past_len .. past_len + seq - 1.
        past_key_values: one (key, value) per layer, each (batch, n_head, past_len, head_dim).
        attention_mask (batch, past_len + seq), 1 for real tokens and 0 for padding.
        Returns logits (batch, seq, vocab) and the present (key, value) per layer."""
        B, T = input_ids.shape
        past_len = 0 if past_key_values is None else past_key_values[0][0].shape[2]
        if position_ids is None:
            position_ids = torch.arange(past_len, past_len + T, device=input_ids.device).expand(B, T)
        cos, sin = rotary_cos_sin(position_ids, self.inv_freq)
        if past_key_values is None and attention_mask is None and use_fused_attention():
            allowed = None  # training: the fused kernel's own causal mask skips the masked half
        else:
            allowed = attention_allowed(T, past_len, attention_mask, input_ids.device)

        x = self.embed(input_ids)
        presents = []
        for i, block in enumerate(self.blocks):
            x, present = block(x, cos, sin, allowed, None if past_key_values is None else past_key_values[i])
            presents.append(present)
        logits = F.linear(self.norm(x), self.embed.weight)  # tied output embedding
        return logits, presents


def count_parameters(model: Transformer) -> dict:
    """Parameter counts; the tied embedding is counted once."""
    total = sum(p.numel() for p in model.parameters())
    embedding = model.embed.weight.numel()
    return {"total": total, "embedding": embedding, "non_embedding": total - embedding}


@torch.no_grad()
def generate_greedy(model: Transformer, ids, max_new_tokens, stop_ids=()):
    """Greedy continuation of one prompt (a list of token ids) with the KV cache: one prefill,
    then one token at a time. Returns the new ids, including the stop id when one is produced.
    Stops early once the next input would sit past the context length (never trained)."""
    device = next(model.parameters()).device
    logits, past = model(torch.tensor([ids], device=device))
    new = []
    for _ in range(max_new_tokens):
        token = int(logits[0, -1].argmax())
        new.append(token)
        position = len(ids) + len(new) - 1
        if token in stop_ids or position >= model.cfg.context_length:
            break
        logits, past = model(
            torch.tensor([[token]], device=device),
            position_ids=torch.tensor([[position]], device=device),
            past_key_values=past,
        )
    return new

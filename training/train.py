"""Train the trace-language decoder (model.py) on pre-tokenized data.

    python3 training/train.py --data DIR --out CKPT_DIR [--config small] [--resume]
        [--total-tokens N] [--max-tokens N] [--max-minutes M] [--device cpu|cuda]

DIR holds train.bin and validation.bin (uint16 little-endian token ids, documents
concatenated, each from the bos id to the eos id) and meta.json (vocab_size,
context_length, special_token_ids).

Length of the run and of the learning-rate schedule (linear warm-up, then cosine decay to
min_lr_ratio of the peak):
  --total-tokens N  the schedule spans N tokens. Give it whenever a run is split into several
                    time-bounded jobs (--max-minutes + --resume): every job then follows the
                    same schedule.
  --max-tokens N    stop once N tokens have been seen (counting earlier jobs); also the
                    schedule's length when --total-tokens is not given.
  --max-minutes M   stop after M minutes of this job, with a checkpoint. With neither of the
                    above, the schedule is sized to fit: the throughput of the first steps
                    (still in warm-up, which does not depend on the length) gives the number
                    of steps that fit in M minutes, less a margin for evaluations.
The schedule's length is saved in the checkpoint; --resume keeps it.

Tokens are counted over whole rows (batch_size x context_length per micro-batch), the
loss-free program-context tokens included.

Several GPUs: torchrun --nproc_per_node N training/train.py ... (DistributedDataParallel;
rank 0 logs and checkpoints; each rank samples its own batches).
"""
import argparse
import inspect
import json
import math
import os
import signal
import sys
import time
from contextlib import nullcontext
from dataclasses import asdict

import numpy as np
import torch
import torch.distributed as dist
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model import ModelConfig, Transformer, count_parameters  # noqa: E402

# Configurations: model shape and optimization, as plain values. context_length None means
# meta.json's context_length. batch_size is per rank and per micro-batch, in rows; a step sees
# world_size x grad_accum x batch_size x context_length tokens.
CONFIGS = {
    # For tests and the end-to-end export check: a minute on a CPU.
    "tiny": dict(
        n_layer=2, n_head=4, d_model=64, d_ff=192, context_length=256,
        batch_size=8, grad_accum=1, lr=3e-3, warmup_steps=10,
        eval_every=100, eval_batches=4,
    ),
    # About 3M parameters (2.7M besides the embedding): trains on a laptop CPU.
    "small": dict(
        n_layer=6, n_head=6, d_model=192, d_ff=512, context_length=None,
        batch_size=8, grad_accum=2, lr=2e-3, warmup_steps=100,
        eval_every=100, eval_batches=16,
    ),
    # About 5.8M parameters, context 2048: for a GPU (an H200 trains it at hundreds of
    # thousands of tokens/s); its int8 step graph still decodes in a few ms a token on a CPU.
    "medium": dict(
        n_layer=8, n_head=8, d_model=256, d_ff=512, context_length=None,
        batch_size=64, grad_accum=1, lr=2e-3, warmup_steps=100,
        eval_every=100, eval_batches=8,
    ),
    # About 12M parameters, context 2048: the size sweep's upper point (GPU).
    "large": dict(
        n_layer=10, n_head=10, d_model=320, d_ff=768, context_length=None,
        batch_size=64, grad_accum=1, lr=1.5e-3, warmup_steps=100,
        eval_every=100, eval_batches=8,
    ),
    # 1.8B-class, Llama-2 shape, for GPU clusters (about 1.76B parameters besides the
    # embedding). The paper's recipe: 1M-token steps (8 GPUs x grad_accum 8 x 16,384 tokens;
    # scale grad_accum with 1 / number of GPUs), peak learning rate 1e-3, 750 warm-up steps.
    # rope_theta is raised for the long context, as Llama 3 does.
    "1.8b": dict(
        n_layer=24, n_head=20, d_model=2560, d_ff=6144, context_length=16384, rope_theta=500000.0,
        batch_size=1, grad_accum=8, lr=1e-3, warmup_steps=750,
        eval_every=500, eval_batches=64,
    ),
}
COMMON = dict(
    rope_theta=10000.0, norm_eps=1e-5,
    min_lr_ratio=0.1, weight_decay=0.1, beta1=0.9, beta2=0.95, grad_clip=1.0, seed=1337,
)
MODEL_KEYS = ("n_layer", "n_head", "d_model", "d_ff", "context_length", "rope_theta", "norm_eps")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", required=True, help="folder with train.bin, validation.bin, meta.json")
    p.add_argument("--out", required=True, help="checkpoint folder (ckpt.pt, best.pt, log.jsonl)")
    p.add_argument("--config", default="small", choices=sorted(CONFIGS))
    p.add_argument("--resume", action="store_true", help="continue from OUT/ckpt.pt (its config wins)")
    p.add_argument("--init-from", metavar="WEIGHTS_PT",
                   help="start from these weights (a best.pt or ckpt.pt; its model shape wins) with a fresh optimizer "
                        "and a new schedule: how a run goes on across sessions without optimizer state in git")
    p.add_argument("--grow-layers", type=int, metavar="N",
                   help="with --init-from: deepen its model to N layers without changing what it computes "
                        "(each old block followed by copies whose output projections are zero; see grown_state)")
    p.add_argument("--total-tokens", type=float, help="length of the learning-rate schedule, in tokens")
    p.add_argument("--max-tokens", type=float, help="stop after this many tokens in all")
    p.add_argument("--max-minutes", type=float, help="stop after this many minutes of this job")
    p.add_argument("--device", choices=("cpu", "cuda"), help="default: cuda when available")
    p.add_argument("--dtype", choices=("bf16", "fp32"),
                   help="autocast precision (weights stay fp32). Default bf16 on CUDA and on CPUs with "
                        "AMX (where it trains about twice as fast), else fp32")
    p.add_argument("--batch-size", type=int, help="override the config's batch_size")
    p.add_argument("--grad-accum", type=int, help="override the config's grad_accum")
    p.add_argument("--lr", type=float, help="override the config's peak learning rate")
    p.add_argument("--warmup-steps", type=int, help="override the config's warm-up (a short re-warm suits --init-from)")
    p.add_argument("--eval-every", type=int, help="override the config's validation period, in steps")
    p.add_argument("--data-seed", type=int,
                   help="order of the training rows (default: the config's seed); a continuation on a build an "
                        "earlier run read gives a new one, or it replays that run's first rows (validation unchanged)")
    p.add_argument("--ckpt-minutes", type=float, default=10.0, help="checkpoint period (default 10)")
    p.add_argument("--log-every", type=int, default=10, help="progress line every K steps")
    compiling = p.add_mutually_exclusive_group()
    compiling.add_argument("--no-compile", action="store_true", help="skip torch.compile on CUDA")
    compiling.add_argument("--compile", action="store_true",
                   help="torch.compile on the CPU too (torch >= 2 and a C compiler; the first step compiles for about a minute)")
    p.add_argument("--weights-dtype", choices=("fp32", "bf16"), default="fp32",
                   help="dtype of the weights in best.pt (bf16 halves the file; export and --init-from cast back)")
    p.add_argument("--threads", type=int, help="CPU threads per process (default: all cores, shared by local ranks)")
    return p.parse_args()


# ----------------------------------------------------------------------------- data


def special_ids(meta):
    """meta.json's special token ids (`special_token_ids`, or `ids` in older folders)."""
    return meta["special_token_ids"] if "special_token_ids" in meta else meta["ids"]


def meta_id(meta, name):
    """A special token's id from meta.json, keyed `frame_sep` or `<|frame_sep|>`."""
    ids = special_ids(meta)
    for key in (name, f"<|{name}|>"):
        if key in ids:
            return int(ids[key])
    raise SystemExit(f"meta.json: no special token id {name!r} (has {sorted(ids)})")


class TokenFile:
    """One split, memory-mapped. Rows of row_len tokens start at a document start (a bos) and
    run on through the following documents."""

    def __init__(self, path, bos, row_len):
        self.tokens = np.memmap(path, dtype="<u2", mode="r")
        self.row_len = row_len
        # Scan in chunks so a corpus larger than memory needs only its list of starts.
        chunk = 1 << 28
        starts = np.concatenate([
            np.flatnonzero(self.tokens[i:i + chunk] == bos) + i for i in range(0, len(self.tokens), chunk)
        ])
        self.starts = starts[starts + row_len <= len(self.tokens)]
        if len(self.starts) == 0:
            raise SystemExit(f"{path}: no document start has {row_len} tokens after it")

    def rows(self, rng, n):
        picks = self.starts[rng.integers(len(self.starts), size=n)]
        return np.stack([self.tokens[s:s + self.row_len] for s in picks]).astype(np.int64)


def loss_weights(rows, bos, frame_sep):
    """Weight of each target rows[:, 1:]: 0 inside a document's program context (from its bos,
    through <|trace_context_start|> and the program, up to and including its first
    <|frame_sep|>), 1 elsewhere. The model is to predict frames, not recite programs: at
    inference the context is always given. Rows start at a bos."""
    n = rows.shape[1]
    is_fs = rows == frame_sep
    fs_before = np.cumsum(is_fs, axis=1) - is_fs  # frame separators strictly before each position
    doc_start = np.maximum.accumulate(np.where(rows == bos, np.arange(n), 0), axis=1)
    in_context = fs_before == np.take_along_axis(fs_before, doc_start, axis=1)
    return (~in_context[:, 1:]).astype(np.float32)


class Batches:
    """Batches as a pure function of (seed, rank, step): the step number is the data position,
    so a resumed run sees exactly the batches it would have seen."""

    def __init__(self, split: TokenFile, bos, frame_sep, seed, rank):
        self.split, self.bos, self.frame_sep, self.seed, self.rank = split, bos, frame_sep, seed, rank

    def get(self, step, micro, batch_size):
        rng = np.random.default_rng([self.seed, self.rank, step, micro])
        return to_batch(self.split.rows(rng, batch_size), self.bos, self.frame_sep)


def to_batch(rows, bos, frame_sep):
    x = torch.from_numpy(rows[:, :-1])
    y = torch.from_numpy(rows[:, 1:])
    return x, y, torch.from_numpy(loss_weights(rows, bos, frame_sep))


# ----------------------------------------------------------------------------- helpers


def grown_state(state, old_layers, new_layers):
    """A state dict of new_layers blocks that computes what the old_layers one did (depth
    up-scaling, so a deeper model starts from trained weights instead of from scratch): each
    old block is followed by copies of itself, new_layers / old_layers of them in all, whose
    attention and MLP output projections are zero. A zero projection adds nothing to the
    residual stream, so the copy starts as the identity, and its gradient is not zero, so it
    learns from the first step; the copy's other weights start as trained features."""
    if new_layers < old_layers:
        raise SystemExit(f"--grow-layers {new_layers}: the weights have {old_layers} layers already")
    grown = {k: v for k, v in state.items() if not k.startswith("blocks.")}
    # New block j copies old block source[j]; the first copy of each keeps its projections.
    source = [j * old_layers // new_layers for j in range(new_layers)]
    for j, i in enumerate(source):
        first = j == 0 or source[j - 1] != i
        for key, value in state.items():
            if key.startswith(f"blocks.{i}."):
                name = key[len(f"blocks.{i}."):]
                zero = not first and name in ("attn.out.weight", "mlp.down.weight")
                grown[f"blocks.{j}.{name}"] = torch.zeros_like(value) if zero else value.clone()
    return grown


def lr_at(step, cfg, total_steps):
    """Linear warm-up to the peak, then cosine decay to min_lr_ratio x peak at total_steps."""
    peak = cfg["lr"]
    if step < cfg["warmup_steps"]:
        return peak * (step + 1) / cfg["warmup_steps"]
    progress = min(1.0, (step - cfg["warmup_steps"]) / max(1, total_steps - cfg["warmup_steps"]))
    return peak * (cfg["min_lr_ratio"] + (1 - cfg["min_lr_ratio"]) * 0.5 * (1 + math.cos(math.pi * progress)))


def save_atomic(obj, path):
    """Write to a temporary file, then rename: a job killed mid-write leaves the old file whole."""
    tmp = path + ".tmp"
    torch.save(obj, tmp)
    os.replace(tmp, path)


def cpu_has_bf16():
    """Whether bf16 autocast pays on this CPU: AMX tiles (Linux's amx_bf16 flag). AVX512-BF16
    alone does not: on a Xeon with it and no AMX, PyTorch 2.15 ran bf16 matmuls at 0.085
    TFLOPS against 0.162 in fp32, and trained `small` at 1.75k against 2.3k tokens/s."""
    try:
        with open("/proc/cpuinfo") as f:
            flags = f.read()
    except OSError:
        return False
    return "amx_bf16" in flags


class Dist:
    """Single process, or one rank of torchrun (WORLD_SIZE > 1)."""

    def __init__(self, device):
        self.world = int(os.environ.get("WORLD_SIZE", "1"))
        self.rank = int(os.environ.get("RANK", "0"))
        self.local_rank = int(os.environ.get("LOCAL_RANK", "0"))
        if self.world > 1:
            dist.init_process_group(backend="nccl" if device == "cuda" else "gloo")
        self.master = self.rank == 0

    def sum(self, values, device):
        """Sum a list of floats over the ranks."""
        t = torch.tensor(values, dtype=torch.float64, device=device)
        if self.world > 1:
            dist.all_reduce(t)
        return t.tolist()

    def from_master(self, value, device):
        """Rank 0's value of a float, on every rank (decisions that depend on the clock)."""
        t = torch.tensor([value], dtype=torch.float64, device=device)
        if self.world > 1:
            dist.broadcast(t, 0)
        return t.item()


# ----------------------------------------------------------------------------- training


def main():
    args = parse_args()
    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    ddp = Dist(device)
    if device == "cpu":
        # Some PyTorch builds default to one thread; use the cores we were given.
        local_world = int(os.environ.get("LOCAL_WORLD_SIZE", "1"))
        torch.set_num_threads(args.threads or max(1, len(os.sched_getaffinity(0)) // local_world))
    if device == "cuda":
        torch.cuda.set_device(ddp.local_rank)
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
    os.makedirs(args.out, exist_ok=True)
    ckpt_path = os.path.join(args.out, "ckpt.pt")
    best_path = os.path.join(args.out, "best.pt")

    with open(os.path.join(args.data, "meta.json")) as f:
        meta = json.load(f)
    bos, frame_sep = meta_id(meta, "bos"), meta_id(meta, "frame_sep")

    ckpt = torch.load(ckpt_path, map_location="cpu") if args.resume else None
    init = torch.load(args.init_from, map_location="cpu") if args.init_from and not ckpt else None
    if ckpt:
        cfg = ckpt["config"]
    else:
        cfg = {**COMMON, **CONFIGS[args.config], "name": args.config}
        cfg["context_length"] = cfg["context_length"] or int(meta["context_length"])
        if init:
            # The shape is the weights', but the context is the data's: rotary positions hold no
            # weights, so a 1,024-token model can go on at 2,048 (positions past its old context
            # are new to it) instead of reading 2,048-token documents cut at 1,024.
            cfg.update({k: init["model_config"][k] for k in MODEL_KEYS if k != "context_length"})
            if init["model_config"]["context_length"] != cfg["context_length"]:
                print(f"context {init['model_config']['context_length']} -> {cfg['context_length']} (the data's)")
            if args.grow_layers:
                cfg["n_layer"] = args.grow_layers
    if args.grow_layers and not init:
        raise SystemExit("--grow-layers deepens the --init-from weights: give --init-from (and no --resume)")
    for key in ("batch_size", "grad_accum", "lr", "warmup_steps", "eval_every", "data_seed"):
        if getattr(args, key) is not None:
            cfg[key] = getattr(args, key)
    model_cfg = ModelConfig(vocab_size=int(meta["vocab_size"]), **{k: cfg[k] for k in MODEL_KEYS})
    tokens_per_step = ddp.world * cfg["grad_accum"] * cfg["batch_size"] * model_cfg.context_length
    if ckpt and ckpt["tokens_per_step"] != tokens_per_step:
        raise SystemExit(
            f"--resume: a step was {ckpt['tokens_per_step']} tokens, now {tokens_per_step}; "
            "keep world size x grad_accum x batch_size the same"
        )

    torch.manual_seed(cfg["seed"])
    model = Transformer(model_cfg).to(device)
    decay = [p for p in model.parameters() if p.dim() >= 2]  # matrices (embedding included)
    no_decay = [p for p in model.parameters() if p.dim() < 2]  # norm gains
    fused = {"fused": True} if device == "cuda" and "fused" in inspect.signature(torch.optim.AdamW).parameters else {}
    optimizer = torch.optim.AdamW(
        [{"params": decay, "weight_decay": cfg["weight_decay"]}, {"params": no_decay, "weight_decay": 0.0}],
        lr=cfg["lr"], betas=(cfg["beta1"], cfg["beta2"]), **fused,
    )
    step, tokens_seen, best_val, elapsed_before = 0, 0, float("inf"), 0.0
    # Tokens the weights had seen before this run began (--init-from): saved weights carry the sum.
    tokens_before = 0
    total_steps = None
    if ckpt:
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        torch.set_rng_state(ckpt["torch_rng"])
        step, tokens_seen, best_val = ckpt["step"], ckpt["tokens"] - ckpt.get("tokens_before", 0), ckpt["best_val"]
        total_steps, elapsed_before = ckpt["total_steps"], ckpt["elapsed_s"]
        tokens_before = ckpt.get("tokens_before", 0)
        del ckpt
    else:
        if init:
            old_layers = init["model_config"]["n_layer"]
            state = grown_state(init["model"], old_layers, model_cfg.n_layer) if args.grow_layers else init["model"]
            model.load_state_dict(state)
            if args.grow_layers:
                print(f"grown from {old_layers} to {model_cfg.n_layer} layers ({count_parameters(model)['total']:,} parameters)")
            tokens_before = int(init.get("tokens", 0))
            print(f"weights from {args.init_from} (trained on {tokens_before:,} tokens); fresh optimizer and schedule")
            del init
        if args.total_tokens or args.max_tokens:
            total_steps = math.ceil((args.total_tokens or args.max_tokens) / tokens_per_step)
        elif not args.max_minutes:
            raise SystemExit("say how long to train: --total-tokens, --max-tokens or --max-minutes")

    fwd = model
    # On a CPU only when asked: a minute of compiling (and a C compiler) does not pay for the
    # tests' short runs; a long run's steps ran about 1.2x faster compiled (training/README.md).
    if hasattr(torch, "compile") and not args.no_compile and (device == "cuda" or args.compile):
        fwd = torch.compile(model)
    elif args.compile and not hasattr(torch, "compile"):
        raise SystemExit("--compile needs torch >= 2 (this is torch " + torch.__version__ + ")")
    train_model = torch.nn.parallel.DistributedDataParallel(fwd, device_ids=[ddp.local_rank] if device == "cuda" else None) if ddp.world > 1 else fwd
    dtype = args.dtype or ("bf16" if device == "cuda" or cpu_has_bf16() else "fp32")
    autocast = torch.autocast(device, dtype=torch.bfloat16) if dtype == "bf16" else nullcontext()

    ctx = model_cfg.context_length
    train = Batches(TokenFile(os.path.join(args.data, "train.bin"), bos, ctx + 1), bos, frame_sep,
                    cfg.get("data_seed", cfg["seed"]), ddp.rank)
    val_file = TokenFile(os.path.join(args.data, "validation.bin"), bos, ctx + 1)
    # A fixed validation set (same seed every run); rank r evaluates batches r, r + world, ...
    val_rng = np.random.default_rng([cfg["seed"], 1 << 30])
    val_batches = [to_batch(val_file.rows(val_rng, cfg["batch_size"]), bos, frame_sep) for _ in range(cfg["eval_batches"])]
    val_batches = val_batches[ddp.rank::ddp.world]

    def weighted_loss_sum(x, y, w, m):
        with autocast:
            logits, _ = m(x)
        losses = F.cross_entropy(logits.float().view(-1, logits.size(-1)), y.reshape(-1), reduction="none")
        return (losses * w.view(-1)).sum()

    @torch.no_grad()
    def evaluate():
        loss_sum = weight_sum = 0.0
        for x, y, w in val_batches:
            loss_sum += weighted_loss_sum(x.to(device), y.to(device), w.to(device), fwd).item()
            weight_sum += w.sum().item()
        loss_sum, weight_sum = ddp.sum([loss_sum, weight_sum], device)
        return loss_sum / max(weight_sum, 1.0)

    def weights():
        """What export_onnx.py needs; best.pt holds only this (and its val loss)."""
        state = model.state_dict()
        if args.weights_dtype == "bf16":
            state = {k: v.to(torch.bfloat16) for k, v in state.items()}
        return {"model": state, "model_config": asdict(model_cfg), "meta": meta,
                "data": os.path.abspath(args.data), "step": step, "tokens": tokens_before + tokens_seen,
                "tokens_before": tokens_before}

    def checkpoint(elapsed):
        # The data position is the step: batches are a function of (seed, rank, step).
        save_atomic({
            **weights(), "model": model.state_dict(), "optimizer": optimizer.state_dict(), "config": cfg, "total_steps": total_steps,
            "tokens_per_step": tokens_per_step, "best_val": best_val, "elapsed_s": elapsed,
            "torch_rng": torch.get_rng_state(),
        }, ckpt_path)

    log_file = open(os.path.join(args.out, "log.jsonl"), "a") if ddp.master else None

    def log(record):
        if ddp.master:
            log_file.write(json.dumps(record) + "\n")
            log_file.flush()

    stop_signal = []  # a SIGTERM (cluster pre-emption) or Ctrl-C ends the job after this step
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop_signal.append(True))

    if ddp.master:
        counts = count_parameters(model)
        print(f"config {cfg['name']}: {counts['total']:,} parameters ({counts['non_embedding']:,} besides the embedding), "
              f"{tokens_per_step:,} tokens/step, device {device} ({dtype}), world {ddp.world}, "
              f"{len(train.split.starts):,} training documents" + (f", resuming at step {step}" if step else ""))

    start = time.time()
    last_ckpt = start
    # Only --max-minutes: the schedule is sized by the throughput of warm-up steps timing_from
    # to timing_to (warm-up does not depend on the length). Not from the first step: it pays
    # for start-up, and jobs sharing one GPU are still starting beside it.
    timing_to = max(2, min(cfg["warmup_steps"], 30))
    timing_from, timing_start = max(1, timing_to // 3), None
    interval_loss, interval_steps, interval_time = 0.0, 0, 0.0
    while True:
        if (total_steps is not None and step >= total_steps) or (args.max_tokens and tokens_seen >= args.max_tokens):
            break
        t0 = time.time()
        lr = lr_at(step, cfg, total_steps)
        for group in optimizer.param_groups:
            group["lr"] = lr
        micro = [train.get(step, i, cfg["batch_size"]) for i in range(cfg["grad_accum"])]
        # Normalize by the loss-bearing tokens of the whole step on all ranks, so every token
        # counts the same whatever micro-batch or rank it fell in. DDP averages gradients over
        # ranks, hence the factor world.
        total_weight = ddp.sum([float(sum(w.sum() for _, _, w in micro))], device)[0]
        scale = ddp.world / max(total_weight, 1.0)
        step_loss = 0.0
        for i, (x, y, w) in enumerate(micro):
            sync = ddp.world == 1 or i == len(micro) - 1
            with nullcontext() if sync else train_model.no_sync():
                loss = weighted_loss_sum(x.to(device), y.to(device), w.to(device), train_model) * scale
                loss.backward()
            step_loss += loss.detach()
        torch.nn.utils.clip_grad_norm_(model.parameters(), cfg["grad_clip"])
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        step += 1
        tokens_seen += tokens_per_step
        step_loss = step_loss.item() / ddp.world  # this rank's share of the step's mean loss
        now = time.time()
        interval_loss, interval_steps, interval_time = interval_loss + step_loss, interval_steps + 1, interval_time + now - t0

        if step == timing_from:
            timing_start = now
        if total_steps is None and step >= timing_to:
            # Decided by rank 0's clock.
            sec_per_step = (now - timing_start) / (step - timing_from)
            left = args.max_minutes * 60 - (now - start)
            total_steps = int(ddp.from_master(step + 0.9 * left / sec_per_step, device))
            if ddp.master:
                print(f"schedule: {total_steps} steps ({total_steps * tokens_per_step:,} tokens) fit in --max-minutes")

        elapsed = elapsed_before + now - start
        out_of_time = bool(args.max_minutes) and now - start >= args.max_minutes * 60
        done = (bool(ddp.from_master(float(out_of_time or bool(stop_signal)), device)) or step == total_steps
                or bool(args.max_tokens and tokens_seen >= args.max_tokens))
        val_loss = None
        if step % cfg["eval_every"] == 0 or done:
            val_loss = evaluate()
            if val_loss < best_val:
                best_val = val_loss
                if ddp.master:
                    save_atomic({**weights(), "val_loss": val_loss}, best_path)
        if step % args.log_every == 0 or val_loss is not None:
            train_loss = ddp.sum([interval_loss], device)[0] / interval_steps
            tok_s = interval_steps * tokens_per_step / interval_time
            # tokens: all the weights have seen, so the logs of runs that go on from each other join up.
            log({"step": step, "tokens": tokens_before + tokens_seen, "train_loss": train_loss, "val_loss": val_loss,
                 "lr": lr, "tokens_per_s": tok_s, "elapsed_s": elapsed})
            if ddp.master:
                print(f"step {step}{'/' + str(total_steps) if total_steps else ''} | {tokens_seen / 1e6:.2f}M tok | "
                      f"loss {train_loss:.4f}" + (f" | val {val_loss:.4f}" if val_loss is not None else "")
                      + f" | lr {lr:.2e} | {tok_s:,.0f} tok/s | {elapsed / 60:.1f} min", flush=True)
            interval_loss, interval_steps, interval_time = 0.0, 0, 0.0
        if ddp.master and (done or now - last_ckpt >= args.ckpt_minutes * 60):
            checkpoint(elapsed)
            last_ckpt = time.time()
        if done:
            break

    if ddp.master:
        print(f"stopped at step {step}, {tokens_seen:,} tokens; best val loss {best_val:.4f}; {args.out}")
    if ddp.world > 1:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()

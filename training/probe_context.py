"""How a checkpoint does past the context it was trained at, before any training there.

    python3 training/probe_context.py --ckpt RUN/best.pt --data TOK [--rows 16] [--threads 1]

TOK is a tokenization at the longer context (`ndb data tokenize --context 2048`), or at the
weights' own context (then only the two halves, as they are, are scored). Prints the
loss on the first and the second half of its validation rows (the weights train.py uses:
frames only), with the rotary positions as they are, and interpolated (positions scaled by
old context / new context, so that no position is new). Rotary positions hold no weights,
so the model runs at any length; what this shows is whether it can use what it has not
seen, i.e. how much a continuation at the new context has to teach (training/README.md).
"""
import argparse
import json
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model import ModelConfig, Transformer  # noqa: E402
from train import TokenFile, loss_weights, meta_id  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ckpt", required=True, help="a best.pt or ckpt.pt")
    p.add_argument("--data", required=True, help="token files at the longer context (meta.json, validation.bin)")
    p.add_argument("--rows", type=int, default=16, help="validation rows to score (default 16)")
    p.add_argument("--threads", type=int, default=1)
    args = p.parse_args()
    torch.set_num_threads(args.threads)

    with open(os.path.join(args.data, "meta.json")) as f:
        meta = json.load(f)
    ckpt = torch.load(args.ckpt, map_location="cpu")
    trained = ckpt["model_config"]["context_length"]
    ctx = int(meta["context_length"])
    if ctx < trained:
        raise SystemExit(f"{args.data} is at context {ctx}; the weights were trained at {trained}: give one at least as long")
    # Weights trained at this context: the halves show whether they learned its second half.
    split = trained if ctx > trained else ctx // 2
    model = Transformer(ModelConfig(**{**ckpt["model_config"], "context_length": ctx}))
    model.load_state_dict(ckpt["model"])
    model.eval()

    bos, frame_sep = meta_id(meta, "bos"), meta_id(meta, "frame_sep")
    rows = TokenFile(os.path.join(args.data, "validation.bin"), bos, ctx + 1).rows(np.random.default_rng(0), args.rows)
    x, y = torch.from_numpy(rows[:, :-1]), torch.from_numpy(rows[:, 1:])
    w = torch.from_numpy(loss_weights(rows, bos, frame_sep))
    positions = torch.arange(ctx)[None].expand(len(rows), -1)

    def halves(position_ids):
        with torch.no_grad():
            logits, _ = model(x, position_ids=position_ids)
        loss = F.cross_entropy(logits.flatten(0, 1), y.flatten(), reduction="none").view(y.shape) * w
        return [float(loss[:, s].sum() / w[:, s].sum()) for s in (slice(0, split), slice(split, ctx))]

    print(f"{args.ckpt}: trained at context {trained}; {len(rows)} validation rows of {ctx} tokens")
    ways = [("as they are", positions)]
    if ctx > trained:
        ways.append((f"interpolated x{trained / ctx:g}", positions * (trained / ctx)))
    for name, pos in ways:
        first, second = halves(pos)
        print(f"positions {name:<18} loss at 0-{split - 1}: {first:.4f}   at {split}-{ctx - 1}: {second:.4f}")


if __name__ == "__main__":
    main()

"""Plot a training run's loss curves (log.jsonl written by train.py) to a PNG for the model card.

    /usr/bin/python3 training/plot_loss.py training/runs/default/log.jsonl models/default/loss.png

Needs matplotlib (Debian: apt-get install python3-matplotlib); nothing else in ndb does.
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")  # no display: write the file only
import matplotlib.pyplot as plt  # noqa: E402


def main(log_path: str, png_path: str) -> None:
    rows = [json.loads(line) for line in open(log_path, encoding="utf-8") if line.strip()]
    train = [(r["tokens"] / 1e6, r["train_loss"]) for r in rows if r.get("train_loss") is not None]
    val = [(r["tokens"] / 1e6, r["val_loss"]) for r in rows if r.get("val_loss") is not None]
    fig, ax = plt.subplots(figsize=(7, 4), dpi=110)
    ax.plot(*zip(*train), label="train (frames only)", linewidth=1)
    if val:
        ax.plot(*zip(*val), "o-", label="validation", markersize=3)
    ax.set_xlabel("tokens seen (millions)")
    ax.set_ylabel("cross-entropy (nats / token)")
    ax.set_yscale("log")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    ax.set_title("ndb default model: training loss")
    fig.tight_layout()
    fig.savefig(png_path)
    print(f"wrote {png_path} ({len(train)} train points, {len(val)} validation points)")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: plot_loss.py LOG.jsonl OUT.png")
    main(sys.argv[1], sys.argv[2])

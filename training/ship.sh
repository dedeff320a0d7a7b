#!/usr/bin/env bash
# Assemble a model folder from a training run: tokenizer, loss curve, ONNX export (fp32 +
# int8), parity prompts and the sha256 manifest. Keep MODEL_DIR/README.md (the model card):
# it is covered by the manifest too, so run `ship.sh --manifest MODEL_DIR` after editing it.
#
#   training/ship.sh RUN_DIR TOKENIZER_DIR MODEL_DIR     e.g. training/runs/default /work/ndb-data/tok2048 models/default
#   training/ship.sh --manifest MODEL_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${NDB_TRAIN_PYTHON:-/usr/bin/python3}

if [ "${1:-}" = "--manifest" ]; then
  "$PY" -c "import sys; sys.path.insert(0, 'training'); from export_onnx import write_manifest; write_manifest(sys.argv[1])" "$2"
  echo "rewrote $2/manifest.json"
  exit 0
fi

run=$1 tok=$2 out=$3
mkdir -p "$out"
if [ "$(realpath "$tok")" != "$(realpath "$out")" ]; then
  cp "$tok/tokenizer.json" "$tok/tokenizer_config.json" "$tok/special_tokens_map.json" "$out/"
fi
"$PY" training/plot_loss.py "$run/log.jsonl" "$out/loss.png"
"$PY" training/export_onnx.py --ckpt "$run/best.pt" --out "$out" --quantize

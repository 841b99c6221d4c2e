#!/usr/bin/env bash
# Install what the main job needs and nothing else: a CPU build of torch (first, when torch
# is missing, so pip does not pull a multi-GB CUDA build), then this package (editable)
# with the plots extra, so that a training run draws its learning curves.
# The tests need more (test, clients, rllib, docs, web extras and a browser):
# scripts/test.sh installs those.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if ! "$PY" -c "import torch" >/dev/null 2>&1; then
  "$PY" -m pip install -q "torch==2.13.0" || "$PY" -m pip install -q torch --index-url https://download.pytorch.org/whl/cpu
fi
# torch stays pinned so that no dependency can swap in another build.
"$PY" -m pip install -q -e ".[plots]" "torch==$("$PY" -c 'import torch; print(torch.__version__.split("+")[0])')"

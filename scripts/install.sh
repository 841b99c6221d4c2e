#!/usr/bin/env bash
# Install rummy500 (editable) with its test extras. A CPU build of torch is
# installed first when torch is missing, so pip does not pull a multi-GB CUDA build.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if ! "$PY" -c "import torch" >/dev/null 2>&1; then
  "$PY" -m pip install -q "torch==2.13.0" || "$PY" -m pip install -q torch --index-url https://download.pytorch.org/whl/cpu
fi
"$PY" -m pip install -q -e ".[test,plots]"

#!/usr/bin/env bash
# Install rummy500 (editable) with its test extras. A CPU build of torch is
# installed first when torch is missing, so pip does not pull a multi-GB CUDA build.
# The browser tests need Chromium and its driver: installed with apt-get when missing
# and this runs as root (elsewhere the tests skip and say what to install).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if ! "$PY" -c "import torch" >/dev/null 2>&1; then
  "$PY" -m pip install -q "torch==2.13.0" || "$PY" -m pip install -q torch --index-url https://download.pytorch.org/whl/cpu
fi
if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver
  else
    echo "install.sh: chromium/chromedriver missing and not root: the browser tests will skip" >&2
  fi
fi
# torch stays pinned so that no extra (the RL clients) can swap in another build.
"$PY" -m pip install -q -e ".[test,plots,web,clients,docs,rllib]" "torch==2.13.0"

#!/usr/bin/env bash
# What the tests need beyond the main job's install (scripts/install.sh): the test, web,
# clients, docs and rllib extras, and Chromium with its driver for the browser tests
# (installed with apt-get when missing and this runs as root; elsewhere those tests skip
# and say what to install).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
bash scripts/install.sh
if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver
  else
    echo "install_test_deps.sh: chromium/chromedriver missing and not root: the browser tests will skip" >&2
  fi
fi
# torch stays pinned so that no extra (the RL clients) can swap in another build.
"$PY" -m pip install -q -e ".[test,plots,web,clients,docs,rllib]" "torch==$("$PY" -c 'import torch; print(torch.__version__.split("+")[0])')"

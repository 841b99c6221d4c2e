#!/usr/bin/env bash
# Install, lint, and run the whole test suite. pytest's exit code 5 ("no tests
# collected") is turned into a failure: a suite that runs nothing must not pass.
# Two workers (pytest-xdist), each test file on one of them: the suite is sized
# for a 2-core machine, and a file's module fixtures are built once.
set -uo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
bash scripts/install_test_deps.sh || exit 1
"$PY" -m ruff check . || exit 1
"$PY" -m ruff format --check . || exit 1
"$PY" -m mypy || exit 1
"$PY" -m pytest -q -p no:cacheprovider -n 2 --dist loadfile "$@"
status=$?
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests: failing" >&2
  exit 1
fi
exit "$status"

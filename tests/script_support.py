"""The programs in scripts/ run as a user runs them: a real process from the
repository's root, its output captured."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_script(name: str, *args: object, timeout: float = 600) -> subprocess.CompletedProcess:
    """``python scripts/NAME ARGS...``, its exit code and output returned, never raised."""
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / name), *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )

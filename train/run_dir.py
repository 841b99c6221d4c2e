"""Run folders: one per training run, named ``rummy500__<exp>__<seed>__<unix time>``.

A folder is created, never reused: two runs started in the same second with the
same name and seed get ``...__2``, ``...__3`` and so on, so their event files and
checkpoints never mix.
"""

from __future__ import annotations

import time
from pathlib import Path


def create_run_dir(root: str | Path, exp_name: str, seed: int) -> Path:
    """A new, empty folder under ``root`` for this run."""
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    base = f"rummy500__{exp_name}__{seed}__{int(time.time())}"
    for k in range(1, 10_000):
        path = root / (base if k == 1 else f"{base}__{k}")
        try:
            path.mkdir()
            return path
        except FileExistsError:
            continue
    raise RuntimeError(f"{root}: cannot find a free run folder name for {base}")

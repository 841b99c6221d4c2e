"""Writing checkpoints: weights plus everything needed to trust them, saved atomically.

The format and the loader are the players' (``rummy500.agents.checkpoint``); training
only writes them.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import torch

from rummy500.agents.checkpoint import FORMAT
from rummy_env.core import OBS_VERSION, Rules


def save_checkpoint(path: str | Path, policy: torch.nn.Module, *, arch: str,
                    arch_kwargs: dict[str, Any], rules: Rules, config: dict[str, Any],
                    global_step: int, extra: dict[str, Any] | None = None) -> Path:
    """Write the checkpoint to a temporary file, then rename it over ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "format": FORMAT,
        "arch": arch,
        "arch_kwargs": arch_kwargs,
        "state_dict": {k: v.detach().cpu() for k, v in policy.state_dict().items()},
        "rules": rules.to_dict(),
        "obs_version": OBS_VERSION,
        "config": config,
        "global_step": int(global_step),
        "extra": extra or {},
    }
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    os.close(fd)
    try:
        torch.save(payload, tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return path

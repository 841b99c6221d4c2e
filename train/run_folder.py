"""A run's folder on disk: made once, locked by the process training in it, and its
checkpoints written atomically.

A folder is named ``rummy500__<exp>__<seed>__<unix time>`` and never reused: two runs
started in the same second with the same name and seed get ``...__2``, ``...__3``
and so on, so their event files and checkpoints never mix. The process training in
a folder holds its lock (``lock_run``): a second process cannot resume the same run
while the first lives, and a lock whose process died (killed, crashed) is free again,
since the operating system releases it with the process. A checkpoint (weights plus
everything needed to trust them; the format and the loader are the players',
``rummy500.agents.checkpoint``) goes to a temporary file that is then renamed, so a
file is whole or absent.
"""

from __future__ import annotations

import io
import os
import time
from pathlib import Path
from typing import IO, Any

import torch

from rummy500.agents.checkpoint import FORMAT
from rummy_env.core import OBS_VERSION, Rules
from rummy_env.core.records import write_whole

from .config_checks import ConfigError

LOCK_FILE = ".lock"
"""The run folder's lock file; it holds the process id of the training that holds it."""


def lock_run(run_dir: Path) -> IO[str] | None:
    """Take the run's lock for this process (kept until the returned file is closed or the
    process ends); a one-line ConfigError when another live process holds it or the folder
    cannot be written. None where the system has no file locks."""
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock, as before
        return None
    try:
        handle = open(run_dir / LOCK_FILE, "a+", encoding="ascii")
    except OSError as e:
        raise ConfigError(f"run {run_dir}: cannot be written ({e.strerror or e})") from None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.seek(0)
        holder = handle.read().strip() or "another process"
        handle.close()
        raise ConfigError(
            f"run {run_dir} is being trained by process {holder}; wait for it "
            "to end (or stop it) before resuming"
        ) from None
    handle.seek(0)
    handle.truncate()
    handle.write(str(os.getpid()))
    handle.flush()
    return handle


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


def save_checkpoint(
    path: str | Path,
    policy: torch.nn.Module,
    *,
    arch: str,
    arch_kwargs: dict[str, Any],
    rules: Rules,
    config: dict[str, Any],
    global_step: int,
    extra: dict[str, Any] | None = None,
) -> Path:
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
    buffer = io.BytesIO()  # serialized in memory: torch's own file writer reports a full
    torch.save(payload, buffer)  # disk as a RuntimeError, a plain write as OSError
    return write_whole(path, buffer.getvalue())

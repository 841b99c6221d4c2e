"""Resuming a run: its own config, the few settings that may change, and what is refused.

A run resumes from its ``last.pt`` with the config stored there; settings given
on the command line (or a ``--config`` file) are compared with it. Only the
settings in ``CHANGEABLE_ON_RESUME`` may differ: how long to train, evaluation,
checkpointing, progress and where it runs. Any other difference (rules, reward,
network, batch sizes, seed, PPO or league settings) would make a different run
and is refused, naming the keys. A finished run, a damaged ``last.pt`` (the
newest intact ``step_*.pt`` is named) and a missing run are refused too, before
anything on disk changes.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from rummy500.agents.checkpoint import CheckpointDamaged, CheckpointMismatch, read_checkpoint

from .config import TrainConfig, config_data, load_config
from .config_checks import ConfigError
from .run_dir import lock_run

CHANGEABLE_ON_RESUME = ("total_steps", "max_minutes", "eval_every", "eval_games",
                        "eval_opponents", "checkpoint_every", "keep_checkpoints", "progress",
                        "device", "torch_threads", "run_dir")
"""Settings a resumed run may change; the others make a different run."""


RESUME_STATE = {"optimizer", "best_score", "run_state"}
"""What a checkpoint's ``extra`` must hold for a run to resume from it."""


class ResumeRefused(ConfigError):
    """A run that cannot be resumed as asked; the message says why and what to do."""


def find_run(name: str | Path, runs_root: str | Path) -> Path:
    """The run folder ``name``: a path, or a run's name under ``runs_root``."""
    for path in (Path(name), Path(runs_root) / str(name)):
        if path.is_dir():
            return path
    raise ResumeRefused(f"resume: no run folder {name} (nor {Path(runs_root) / str(name)})")


def newest_intact_checkpoint(run_dir: Path) -> Path | None:
    """The newest numbered checkpoint (``step_*.pt``) that still reads, if any."""
    for path in sorted(run_dir.glob("step_*.pt"), reverse=True):
        try:
            read_checkpoint(path)
        except (CheckpointDamaged, CheckpointMismatch):
            continue
        return path
    return None


def read_last(run_dir: Path) -> dict[str, Any]:
    """The run's ``last.pt``; a damaged or missing one is refused, naming the newest intact
    numbered checkpoint to resume from instead."""
    last = run_dir / "last.pt"
    try:
        payload = read_checkpoint(last)
    except (CheckpointDamaged, CheckpointMismatch, FileNotFoundError) as e:
        problem = str(e) if not isinstance(e, FileNotFoundError) else f"{last} does not exist"
        fallback = newest_intact_checkpoint(run_dir)
        if fallback is None:
            raise ResumeRefused(f"resume: {problem}, and no intact step_*.pt is left in "
                                f"{run_dir}; start a new run") from None
        raise ResumeRefused(f"resume: {problem}; the newest intact checkpoint is {fallback}: "
                            f"to resume from it, run: cp {fallback} {last}") from None
    if not RESUME_STATE <= set(payload["extra"]):
        raise ResumeRefused(f"resume: {last} holds no training state to go on from (written by "
                            "the RLlib backend or an older version); it can still be played "
                            f"as ckpt:{last}")
    return payload


def resumed_config(resume: str | Path, config_path: str | Path | None,
                   overrides: list[str]) -> TrainConfig:
    """The config of run ``resume`` (from its ``last.pt``) with the settings asked for; they
    are checked against the run's when training starts (``open_run``)."""
    runs_root = config_data(config_path, overrides).get("run_dir", TrainConfig.run_dir)
    payload = read_last(find_run(resume, runs_root))
    return load_config(config_path, overrides, base=payload["config"])


def check_same_run(stored: dict[str, Any], cfg: TrainConfig, run_dir: Path) -> None:
    """Refuse a config that differs from the run's own in a setting that makes another run."""
    asked = cfg.to_dict()
    defaults = {f.name: f.default_factory() if f.default is dataclasses.MISSING else f.default
                for f in dataclasses.fields(TrainConfig)}
    stored = {**defaults, **stored}  # a setting newer than the run has its default there
    differing = [k for k in asked if k not in CHANGEABLE_ON_RESUME and stored.get(k) != asked[k]]
    if not differing:
        return
    changes = "; ".join(f"{k} (run: {stored.get(k)!r}, asked: {asked[k]!r})" for k in differing)
    raise ResumeRefused(f"resume: {run_dir} cannot change {changes}: that would be a different "
                        f"run; a resume may change only {', '.join(CHANGEABLE_ON_RESUME)} "
                        "(without --config, a resume uses the run's own config)")


def check_unfinished(cfg: TrainConfig, global_step: int, run_dir: Path) -> None:
    """Refuse to resume a run that has already trained for all its steps."""
    if global_step >= cfg.planned_steps:
        raise ResumeRefused(
            f"resume: {run_dir} is finished ({global_step:,} agent-steps, total_steps="
            f"{cfg.total_steps}); to train on, resume with a larger total, e.g. "
            f"rummy500 train --resume {run_dir} total_steps={2 * cfg.total_steps}")


def remove_unfinished_saves(run_dir: Path) -> list[Path]:
    """Delete the temporary files of checkpoint writes that were killed (``*.tmp``)."""
    leftovers = sorted(run_dir.glob("*.tmp"))
    for path in leftovers:
        path.unlink()
    return leftovers


def open_run(resume: str | Path, cfg: TrainConfig) -> tuple[Path, dict[str, Any], Any]:
    """(run folder, its ``last.pt`` data, the run's lock) once every check passed and the
    lock is taken; then the leftovers of killed checkpoint writes are removed."""
    run_dir = find_run(resume, cfg.run_dir)
    payload = read_last(run_dir)
    check_same_run(payload["config"], cfg, run_dir)
    check_unfinished(cfg, int(payload["global_step"]), run_dir)
    try:
        lock = lock_run(run_dir)
    except ConfigError as e:
        raise ResumeRefused(f"resume: {e}") from None
    for path in remove_unfinished_saves(run_dir):
        print(f"resume: removed {path} (left by a checkpoint write that was cut short)")
    return run_dir, payload, lock

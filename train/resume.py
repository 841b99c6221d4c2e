"""Resuming a run as the run it continues.

What a checkpoint holds besides the weights (``capture`` and ``restore``), as plain
data only (tensors, numbers, strings, lists, dicts), so ``weights_only=True`` still
loads it:

* ``league``: each member's name, win rate, whether it is a snapshot (then its
  weights) and the state of its own generator (an agent's numpy ``rng`` or torch
  ``generator``; an agent with neither has none to keep);
* ``seating``: who holds each seat of each game, the learner's seat and return so far;
* ``games``: every array of the games in progress, the next deal of the env's stream
  and the games' lengths;
* ``rng``: the trainer's numpy generator and torch's CPU generator (and CUDA's when
  training on CUDA: a resume on another device draws other samples).

A checkpoint is written between updates, when no decision chain is open, so nothing of
the rollout itself needs keeping. ``open_run`` checks a resume before any work: the
run's own config (only total_steps, max_minutes, the evaluation, checkpoint and
progress settings, device and torch_threads may change), an intact ``last.pt`` (or
the newest intact numbered checkpoint to copy over it), an unfinished run, and the
run's lock.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch

from rummy500.agents.base import Agent
from rummy500.agents.checkpoint import (
    CheckpointDamaged,
    CheckpointMismatch,
    check_obs_version,
    read_checkpoint,
)
from rummy_env.envs.vector import RummyVectorEnv

from .config import TrainConfig, config_data, load_config
from .config_checks import ConfigError
from .league import League, SeatControl
from .run_folder import lock_run


def _tensor(array: np.ndarray) -> torch.Tensor:
    """A copy of ``array`` as a tensor (uint64, which torch does not store, as int64 bits)."""
    if array.dtype == np.uint64:
        array = array.view(np.int64)
    return torch.from_numpy(np.array(array, copy=True))


def _array(tensor: torch.Tensor, like: np.ndarray) -> np.ndarray:
    """A tensor from ``_tensor`` back as an array of ``like``'s dtype."""
    return tensor.numpy().view(like.dtype)


def _plain(value: Any) -> Any:
    """``value`` with every array turned into a tensor (``_tensor``), for ``torch.save``."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return _tensor(value) if isinstance(value, np.ndarray) else value


def _unplain(value: Any, like: Any) -> Any:
    """``_plain``'s inverse, with the dtypes of ``like`` (a fresh snapshot)."""
    if isinstance(value, dict):
        return {k: _unplain(v, like[k]) for k, v in value.items()}
    return _array(value, like) if isinstance(value, torch.Tensor) else value


def _agent_rng(agent: Agent) -> Any:
    """The state of an agent's own generator (None: it has none)."""
    if isinstance(getattr(agent, "generator", None), torch.Generator):
        return {"device": agent.generator.device.type, "torch": agent.generator.get_state()}
    if isinstance(getattr(agent, "rng", None), np.random.Generator):
        return agent.rng.bit_generator.state
    return None


def _set_agent_rng(agent: Agent, state: Any) -> None:
    """Put back the generator state ``_agent_rng`` took (a torch one only on the same kind
    of device)."""
    if state is None:
        return
    if "torch" in state:
        if state["device"] == agent.generator.device.type:
            agent.generator.set_state(state["torch"])
    else:
        agent.rng.bit_generator.state = state


def capture(
    league: League,
    seating: SeatControl,
    env: RummyVectorEnv,
    rng: np.random.Generator,
    device: torch.device,
) -> dict[str, Any]:
    """Everything besides the weights that the run's future depends on, as plain data."""
    members = [
        {
            "name": name,
            "win_rate": rate,
            "snapshot": snap,
            "rng": _agent_rng(agent),
            "weights": (
                {k: v.detach().cpu() for k, v in agent.policy.state_dict().items()}
                if snap
                else None
            ),
        }
        for name, agent, rate, snap in zip(
            league.names, league.agents, league.win_rate, league.snapshot
        )
    ]
    return {
        "league": members,
        "seating": {
            "member": _tensor(seating.member),
            "learner_seat": _tensor(seating.learner_seat),
            "episode_return": _tensor(seating.episode_return),
        },
        "games": _plain(env.snapshot()),
        "rng": {
            "numpy": rng.bit_generator.state,
            "torch": torch.get_rng_state(),
            "cuda": torch.cuda.get_rng_state(device) if device.type == "cuda" else None,
        },
    }


def restore(
    saved: dict[str, Any],
    league: League,
    seating: SeatControl,
    env: RummyVectorEnv,
    rng: np.random.Generator,
    device: torch.device,
    snapshot: Callable[[str, dict[str, torch.Tensor]], Agent],
    heuristic: Callable[[str], Agent],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Put ``capture``'s data back (members rebuilt by ``snapshot(name, weights)`` or
    ``heuristic(name)``); returns the env's (obs, mask, seat) for the games in progress."""
    for values in (league.names, league.agents, league.win_rate, league.snapshot):
        values.clear()
    for m in saved["league"]:
        agent = snapshot(m["name"], m["weights"]) if m["snapshot"] else heuristic(m["name"])
        _set_agent_rng(agent, m["rng"])
        league.add(m["name"], agent, is_snapshot=m["snapshot"])
        league.win_rate[-1] = float(m["win_rate"])

    seats = dict(saved["seating"])
    member = seats.pop("member")
    for name, value in seats.items():
        current = getattr(seating, name)
        current[:] = _array(value, current)
    if member.dim() == 1:  # one member per game: a checkpoint from before mixed tables
        seating.seat_members(_array(member, seating.member))
    else:
        seating.member[:] = _array(member, seating.member)

    obs, mask, seat = env.restore(_unplain(saved["games"], env.snapshot()))

    rng.bit_generator.state = saved["rng"]["numpy"]
    torch.set_rng_state(saved["rng"]["torch"])
    if saved["rng"]["cuda"] is not None and device.type == "cuda":
        torch.cuda.set_rng_state(saved["rng"]["cuda"], device)
    return obs, mask, seat


CHANGEABLE_ON_RESUME = (
    "total_steps",
    "max_minutes",
    "eval_every",
    "eval_games",
    "eval_opponents",
    "checkpoint_every",
    "keep_checkpoints",
    "progress",
    "device",
    "torch_threads",
    "run_dir",
)
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
            raise ResumeRefused(
                f"resume: {problem}, and no intact step_*.pt is left in {run_dir}; start a new run"
            ) from None
        raise ResumeRefused(
            f"resume: {problem}; the newest intact checkpoint is {fallback}: "
            f"to resume from it, run: cp {fallback} {last}"
        ) from None
    try:
        check_obs_version(payload, last)
    except CheckpointMismatch as e:
        raise ResumeRefused(
            f"resume: {e}: the run cannot go on under this version; start "
            f"a new one (init_from={last} refuses it too)"
        ) from None
    if not RESUME_STATE <= set(payload["extra"]):
        raise ResumeRefused(
            f"resume: {last} holds no training state to go on from (written by "
            "the RLlib backend or an older version); it can still be played "
            f"as ckpt:{last}"
        )
    return payload


def resumed_config(
    resume: str | Path, config_path: str | Path | None, overrides: list[str]
) -> TrainConfig:
    """The config of run ``resume`` (from its ``last.pt``) with the settings asked for; they
    are checked against the run's when training starts (``open_run``)."""
    runs_root = config_data(config_path, overrides).get("run_dir", TrainConfig.run_dir)
    payload = read_last(find_run(resume, runs_root))
    return load_config(config_path, overrides, base=payload["config"])


def check_same_run(stored: dict[str, Any], cfg: TrainConfig, run_dir: Path) -> None:
    """Refuse a config that differs from the run's own in a setting that makes another run."""
    asked = cfg.to_dict()
    defaults = {
        f.name: f.default_factory() if f.default is dataclasses.MISSING else f.default
        for f in dataclasses.fields(TrainConfig)
    }
    stored = {**defaults, **stored}  # a setting newer than the run has its default there
    differing = [k for k in asked if k not in CHANGEABLE_ON_RESUME and stored.get(k) != asked[k]]
    if not differing:
        return
    changes = "; ".join(f"{k} (run: {stored.get(k)!r}, asked: {asked[k]!r})" for k in differing)
    raise ResumeRefused(
        f"resume: {run_dir} cannot change {changes}: that would be a different "
        f"run; a resume may change only {', '.join(CHANGEABLE_ON_RESUME)} "
        "(without --config, a resume uses the run's own config)"
    )


def check_unfinished(cfg: TrainConfig, global_step: int, run_dir: Path) -> None:
    """Refuse to resume a run that has already trained for all its steps."""
    if global_step >= cfg.planned_steps:
        raise ResumeRefused(
            f"resume: {run_dir} is finished ({global_step:,} agent-steps, total_steps="
            f"{cfg.total_steps}); to train on, resume with a larger total, e.g. "
            f"rummy500 train --resume {run_dir} total_steps={2 * cfg.total_steps}"
        )


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

"""Warm start: a new run's first weights taken from a checkpoint or the shipped champion.

``init_from`` names a checkpoint file (a run's ``best.pt``, any ``step_*.pt``),
``champion`` (the champion shipped for the run's rules; ``champion@N``: of release N)
or ``champion@N/NAME`` (the shipped checkpoint NAME of release N, whatever its rules).
Its rules, observation version and network (``arch`` and ``arch_kwargs``) must be the run's, so the
weights fit; anything else is refused in one line before the run starts.
``init_rules: any`` lifts the rules check (a transfer to a variant, such as the
standard champion to ``web``): then the observation and action sizes must agree. Only
the weights are taken: the optimizer, league and step count start fresh.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from rummy500.agents.checkpoint import (
    CheckpointDamaged,
    CheckpointMismatch,
    policy_from,
    read_checkpoint,
)
from rummy_env.core import Rules, action_layout, observation_size

from .config_checks import ConfigError


class WarmStartRefused(ConfigError):
    """``init_from`` names weights this run cannot start from; the message says why."""


def _read(init_from: str, rules: Rules) -> tuple[Path, dict[str, Any]]:
    """(path, data) of the checkpoint ``init_from`` names."""
    if init_from == "champion" or init_from.startswith("champion@"):
        from rummy500.agents.champion import champion_checkpoint, champion_files

        release, _, name = init_from.removeprefix("champion").removeprefix("@").partition("/")
        version = int(release) if release.isdigit() else None
        if release and version is None:
            raise WarmStartRefused(
                f"init_from: {init_from}: a release is a number, e.g. champion@1"
            )
        if name:
            found = [p for p in champion_files(version) if p.stem == name]
            if not found:
                shipped = ", ".join(p.stem for p in champion_files(version)) or "none"
                raise WarmStartRefused(
                    f"init_from: {init_from}: no such shipped checkpoint "
                    f"(release {release}: {shipped})"
                )
            return found[0], read_checkpoint(found[0])
        try:
            return champion_checkpoint(rules, version)
        except ValueError as e:
            raise WarmStartRefused(f"init_from: {e}") from None
    path = Path(init_from)
    try:
        return path, read_checkpoint(path)
    except FileNotFoundError:
        raise WarmStartRefused(f"init_from: {path} does not exist") from None
    except (CheckpointDamaged, CheckpointMismatch) as e:
        raise WarmStartRefused(f"init_from: {e}") from None


def initial_weights(
    init_from: str, rules: Rules, arch: str, arch_kwargs: dict[str, Any], any_rules: bool = False
) -> dict[str, torch.Tensor] | None:
    """The weights ``init_from`` names, checked to fit a run of ``rules`` and this network;
    None when it is empty (a fresh network). ``any_rules``: a checkpoint of other rules
    is taken too, when its observation and action sizes are this run's."""
    if not init_from:
        return None
    path, payload = _read(init_from, rules)
    if (payload["arch"], payload["arch_kwargs"]) != (arch, arch_kwargs):
        raise WarmStartRefused(
            f"init_from: {path} holds arch={payload['arch']} arch_kwargs="
            f"{payload['arch_kwargs']}, the run asks arch={arch} arch_kwargs={arch_kwargs}; "
            "set the run's network to the checkpoint's"
        )
    if any_rules:
        return _transferred(path, payload, rules)
    try:
        return policy_from(payload, path, rules).state_dict()
    except CheckpointMismatch as e:
        raise WarmStartRefused(f"init_from: {e}") from None


def _transferred(path: Path, payload: dict[str, Any], rules: Rules) -> dict[str, torch.Tensor]:
    """The weights of a checkpoint for any rules whose network has this run's shape."""
    saved = Rules.from_dict(payload["rules"])
    sizes = {
        "observation": (observation_size(saved), observation_size(rules)),
        "action": (action_layout(saved).size, action_layout(rules).size),
    }
    for what, (theirs, ours) in sizes.items():
        if theirs != ours:
            raise WarmStartRefused(
                f"init_from: {path} has {theirs} {what} entries, this run "
                f"{ours} (its rules seat {saved.players})"
            )
    try:
        return policy_from(payload, path).state_dict()
    except CheckpointMismatch as e:
        raise WarmStartRefused(f"init_from: {e}") from None

"""Warm start: a new run's first weights taken from a checkpoint or the shipped champion.

``init_from`` names a checkpoint file (a run's ``best.pt``, any ``step_*.pt``) or
``champion`` (the champion shipped for the run's rules). Its rules, observation
version and network (``arch`` and ``arch_kwargs``) must be the run's, so the
weights fit; anything else is refused in one line before the run starts. Only
the weights are taken: the optimizer, league and step count start fresh.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from agents.checkpoint import CheckpointDamaged, CheckpointMismatch, policy_from, read_checkpoint
from rummy_env.core import Rules

from .config_checks import ConfigError


class WarmStartRefused(ConfigError):
    """``init_from`` names weights this run cannot start from; the message says why."""


def _read(init_from: str, rules: Rules) -> tuple[Path, dict[str, Any]]:
    """(path, data) of the checkpoint ``init_from`` names."""
    if init_from == "champion":
        from agents.champion import champion_checkpoint

        try:
            return champion_checkpoint(rules)
        except ValueError as e:
            raise WarmStartRefused(f"init_from: {e}") from None
    path = Path(init_from)
    try:
        return path, read_checkpoint(path)
    except FileNotFoundError:
        raise WarmStartRefused(f"init_from: {path} does not exist") from None
    except (CheckpointDamaged, CheckpointMismatch) as e:
        raise WarmStartRefused(f"init_from: {e}") from None


def initial_weights(init_from: str, rules: Rules, arch: str,
                    arch_kwargs: dict[str, Any]) -> dict[str, torch.Tensor] | None:
    """The weights ``init_from`` names, checked to fit a run of ``rules`` and this network;
    None when it is empty (a fresh network)."""
    if not init_from:
        return None
    path, payload = _read(init_from, rules)
    if (payload["arch"], payload["arch_kwargs"]) != (arch, arch_kwargs):
        raise WarmStartRefused(
            f"init_from: {path} holds arch={payload['arch']} arch_kwargs="
            f"{payload['arch_kwargs']}, the run asks arch={arch} arch_kwargs={arch_kwargs}; "
            "set the run's network to the checkpoint's")
    try:
        return policy_from(payload, path, rules).state_dict()
    except CheckpointMismatch as e:
        raise WarmStartRefused(f"init_from: {e}") from None

"""Checkpoints as players read them: the format, its checks, and the loader.

A checkpoint is a ``torch.save`` of plain data only (tensors, numbers, strings,
lists, dicts), so ``torch.load(..., weights_only=True)`` reads it and nothing
is ever unpickled. It records the architecture, the training config, the rules
and the observation version; ``load_policy`` refuses a checkpoint whose rules
or observation version do not match the ones asked for. ``rummy500.train.run_folder``
writes them.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import torch

from rummy500.agents.torch_policy import build_policy
from rummy_env.core import OBS_VERSION, Rules, action_layout, observation_size

FORMAT = 1
"""Version of the checkpoint's layout of keys."""


class CheckpointMismatch(ValueError):
    """A checkpoint made for other rules or another observation version."""


class CheckpointDamaged(ValueError):
    """A checkpoint file that cannot be read (cut short, overwritten, not a torch file)."""


def read_checkpoint(path: str | Path) -> dict[str, Any]:
    """The checkpoint's data, loaded with ``weights_only=True`` once the checksum of every
    part of the file has been verified; a file that cannot be read, fails a checksum or
    holds a non-finite weight raises ``CheckpointDamaged`` (a missing one
    ``FileNotFoundError``)."""
    verify_checksums(path)
    try:
        payload = torch.load(Path(path), map_location="cpu", weights_only=True)
    except FileNotFoundError:
        raise
    except Exception as e:  # torch raises many kinds for a damaged file
        reason = str(e).split(". ")[0].splitlines()[0] if str(e) else type(e).__name__
        raise CheckpointDamaged(f"{path} is damaged and cannot be read ({reason})") from None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise CheckpointMismatch(f"{path} is not a rummy500 checkpoint (format {FORMAT})")
    weights = payload.get("state_dict")
    broken = [
        k
        for k, w in (weights.items() if isinstance(weights, dict) else ())
        if isinstance(w, torch.Tensor) and w.is_floating_point() and not torch.isfinite(w).all()
    ]
    if broken:
        raise CheckpointDamaged(f"{path} is damaged: its weights {broken[0]} are not finite")
    return payload


def verify_checksums(path: str | Path) -> None:
    """``CheckpointDamaged`` unless every part of the file (a zip archive, as torch.save
    writes it) matches the CRC-32 checksum the archive carries for it."""
    try:
        with zipfile.ZipFile(path) as archive:
            failed = archive.testzip()
    except FileNotFoundError:
        raise
    except (OSError, zipfile.BadZipFile, EOFError, ValueError) as e:
        raise CheckpointDamaged(f"{path} is damaged and cannot be read ({e})") from None
    if failed is not None:
        raise CheckpointDamaged(f"{path} is damaged: its part {failed} fails its checksum")


def rules_differences(saved: Rules, asked: Rules) -> dict[str, tuple[Any, Any]]:
    """{flag: (saved value, asked value)} for every rule flag where the two differ."""
    return {k: (v, getattr(asked, k)) for k, v in saved.to_dict().items() if getattr(asked, k) != v}


def check_obs_version(payload: dict[str, Any], path: str | Path) -> None:
    """``CheckpointMismatch`` unless the checkpoint was trained on this code's observation
    version: every load and resume asks (a network reading another encoding plays or
    trains on nonsense, or fails on a wider input)."""
    if payload.get("obs_version") != OBS_VERSION:
        raise CheckpointMismatch(
            f"{path} was trained on observation version {payload.get('obs_version')}, "
            f"this code encodes version {OBS_VERSION}"
        )


def load_policy(
    path: str | Path, rules: Rules | None = None, device: str | torch.device = "cpu"
) -> tuple[torch.nn.Module, dict[str, Any]]:
    """(network in eval mode, checkpoint data). With ``rules``, they must match the
    checkpoint's rules; the observation version must match this code's."""
    payload = read_checkpoint(path)
    return policy_from(payload, path, rules, device), payload


def policy_from(
    payload: dict[str, Any],
    path: str | Path,
    rules: Rules | None = None,
    device: str | torch.device = "cpu",
) -> torch.nn.Module:
    """The network (in eval mode) of checkpoint data already read from ``path``, with the
    checks of ``load_policy``."""
    saved_rules = Rules.from_dict(payload["rules"])
    check_obs_version(payload, path)
    if rules is not None and rules != saved_rules:
        raise CheckpointMismatch(
            f"{path} was trained with other rules (checkpoint vs asked): "
            f"{rules_differences(saved_rules, rules)}"
        )
    policy = build_policy(
        payload["arch"],
        saved_rules,
        observation_size(saved_rules),
        action_layout(saved_rules).size,
        **payload["arch_kwargs"],
    )
    policy.load_state_dict(payload["state_dict"])
    policy.to(device).eval()
    return policy

"""``champion``: the strongest trained policy that ships with the package, by release.

Each champion is a plain checkpoint (``agents/champions/vN/*.pt``, loaded with
``weights_only=True``) trained for one rules config; a release's folder holds the
checkpoints it retrained, and keeps the earlier release's for the other rules.
``champion`` is the latest release and ``champion@N`` release N, kept so that
published numbers stay reproducible after a stronger one ships. Either picks the
checkpoint made for the rules asked for, and refuses other rules with a one-line
reason naming what differs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rummy500.agents.base import Agent
from rummy_env.core import Rules

CHAMPIONS = Path(__file__).resolve().parent / "champions"
"""The folder of shipped champion checkpoints, one folder ``vN`` per release."""


def champion_versions() -> list[int]:
    """The releases that ship, oldest first."""
    return sorted(
        int(folder.name[1:])
        for folder in CHAMPIONS.glob("v*")
        if folder.name[1:].isdigit() and any(folder.glob("*.pt"))
    )


def champion_files(version: int | None = None) -> list[Path]:
    """The checkpoints of release ``version`` (default: the latest), by name. A release's
    folder holds the checkpoints it retrained; for the other rules it keeps the newest
    checkpoint of an earlier release."""
    versions = champion_versions()
    if version is None:
        version = versions[-1] if versions else 0
    if version not in versions:
        return []
    newest: dict[str, Path] = {}
    for release in (v for v in versions if v <= version):
        newest.update((path.stem, path) for path in (CHAMPIONS / f"v{release}").glob("*.pt"))
    return [newest[name] for name in sorted(newest)]


def champion_checkpoint(rules: Rules, version: int | None = None) -> tuple[Path, dict[str, Any]]:
    """(path, data) of the shipped checkpoint trained for ``rules`` (release ``version``,
    default the latest); a one-line ``ValueError`` naming what differs in the nearest one
    when none is."""
    from rummy500.agents.checkpoint import read_checkpoint, rules_differences

    made_for = []
    for path in champion_files(version):
        payload = read_checkpoint(path)
        saved = Rules.from_dict(payload["rules"])
        if saved == rules:
            return path, payload
        made_for.append((path.stem, saved))
    if not made_for:
        raise ValueError(
            f"champion@{version}: no such release (releases: "
            f"{', '.join(map(str, champion_versions()))})"
            if version is not None
            else "champion: no champion checkpoint is installed"
        )
    name, nearest = min(made_for, key=lambda item: len(rules_differences(item[1], rules)))
    raise ValueError(
        f"champion: trained only for other rules; the nearest ({name}) differs in "
        + ", ".join(
            f"{k}={v!r} (asked {a!r})" for k, (v, a) in rules_differences(nearest, rules).items()
        )
    )


def make_champion(rules: Rules, seed: int = 0, version: int | None = None) -> Agent:
    """The shipped champion trained for ``rules`` (release ``version``, default the latest),
    playing greedily."""
    from rummy500.agents.checkpoint import policy_from
    from rummy500.agents.torch_policy import TorchAgent

    path, payload = champion_checkpoint(rules, version)
    policy = policy_from(payload, path, rules)
    name = "champion" if version is None else f"champion@{version}"
    return TorchAgent(policy, rules, name=name, greedy=True, seed=seed)

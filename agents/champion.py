"""``champion``: the strongest trained policy that ships with the package.

Each champion is a plain checkpoint (``agents/champions/*.pt``, loaded with
``weights_only=True``) trained for one rules config; ``champion`` picks the one
made for the rules asked for, and refuses other rules with a one-line reason
naming what differs. How each was made is in the README ("The champion").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rummy500.agents.base import Agent
from rummy_env.core import Rules

CHAMPIONS = Path(__file__).resolve().parent / "champions"
"""The folder of shipped champion checkpoints."""


def champion_files() -> list[Path]:
    """The shipped champion checkpoints, by name."""
    return sorted(CHAMPIONS.glob("*.pt"))


def champion_checkpoint(rules: Rules) -> tuple[Path, dict[str, Any]]:
    """(path, data) of the shipped checkpoint trained for ``rules``; a one-line
    ``ValueError`` naming what differs in the nearest one when none is."""
    from rummy500.agents.checkpoint import read_checkpoint, rules_differences

    made_for = []
    for path in champion_files():
        payload = read_checkpoint(path)
        saved = Rules.from_dict(payload["rules"])
        if saved == rules:
            return path, payload
        made_for.append((path.stem, saved))
    if not made_for:
        raise ValueError("champion: no champion checkpoint is installed")
    name, nearest = min(made_for, key=lambda item: len(rules_differences(item[1], rules)))
    raise ValueError(f"champion: trained only for other rules; the nearest ({name}) differs in "
                     + ", ".join(f"{k}={v!r} (asked {a!r})"
                                 for k, (v, a) in rules_differences(nearest, rules).items()))


def make_champion(rules: Rules, seed: int = 0) -> Agent:
    """The shipped champion trained for ``rules``, playing greedily."""
    from rummy500.agents.checkpoint import policy_from
    from rummy500.agents.torch_policy import TorchAgent

    path, payload = champion_checkpoint(rules)
    policy = policy_from(payload, path, rules)
    return TorchAgent(policy, rules, name="champion", greedy=True, seed=seed)

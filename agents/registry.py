"""Agents by name: ``make_agent("sharp", rules, seed)`` for the CLI, the arena and training.

Specs: ``random``, ``casual``, ``sharp``, ``expert`` (with a search budget:
``expert:worlds=16,horizon=30``, see ``agents.expert``), ``champion`` (the trained policy
that ships with the package, ``agents.champion``), and ``ckpt:PATH`` (a trained torch
policy from a checkpoint file (``agents.checkpoint``), played greedily; torch is imported
only for such specs). ``oracle`` / ``oracle:OPTIONS`` (``agents.oracle``) sees hidden
cards, so only the programs that play in the arena accept it (``hidden_cards=True``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from agents.base import Agent
from rummy_env.core import Rules


def _random(rules: Rules, seed: int) -> Agent:
    from agents.random_agent import RandomAgent

    return RandomAgent(seed)


def _casual(rules: Rules, seed: int) -> Agent:
    from agents.casual import CasualAgent

    return CasualAgent(rules, seed)


def _sharp(rules: Rules, seed: int) -> Agent:
    from agents.sharp import SharpAgent

    return SharpAgent(rules, seed)


def _champion(rules: Rules, seed: int) -> Agent:
    from agents.champion import make_champion

    return make_champion(rules, seed)


def _expert(rules: Rules, seed: int, options: str = "") -> Agent:
    from agents.expert import make_expert

    return make_expert(options, rules, seed)


BUILTIN: dict[str, Callable[[Rules, int], Agent]] = {
    "random": _random,
    "casual": _casual,
    "sharp": _sharp,
    "expert": _expert,
    "champion": _champion,
}
"""Name -> factory(rules, seed) of the built-in agents."""

SPEC_FORMS = ", ".join(BUILTIN) + ", expert:OPTIONS, ckpt:PATH"
"""Every form an agent spec takes, for the programs' help texts."""

ORACLE_FORMS = SPEC_FORMS + ", oracle[:OPTIONS] (sees hidden cards: a bound, not a player)"
"""The forms the arena's programs take (``eval``, ``ladder``): the oracle too."""

NO_ORACLE = ("oracle: sees hidden cards, so it plays only where the arena hands them over "
             "(rummy500 eval, rummy500 ladder)")
"""Why a program outside the arena refuses the oracle."""


def load_checkpoint_agent(path: str, rules: Rules, seed: int) -> Agent:
    """``ckpt:PATH``: a trained policy from a checkpoint file, acting greedily.

    The checkpoint must have been trained under these rules and this
    observation version (``agents.checkpoint.load_policy`` checks both). Any
    problem comes back as a ``ValueError`` naming the path, or
    ``NotImplementedError`` when torch or the training package is missing.
    """
    try:
        from agents.checkpoint import load_policy
        from agents.torch_policy import TorchAgent
    except ImportError as e:
        raise NotImplementedError(
            f"ckpt:{path}: checkpoint agents need torch ({e}); "
            f"use one of {sorted(BUILTIN)}") from None
    if not Path(path).is_file():
        raise ValueError(f"ckpt:{path}: no such checkpoint file")
    try:
        policy, _ = load_policy(path, rules)
    except ValueError as e:  # CheckpointMismatch and friends
        raise ValueError(f"ckpt:{path}: {e}") from None
    except Exception as e:  # a corrupt file can raise almost anything
        raise ValueError(f"ckpt:{path}: cannot read the checkpoint ({e})") from None
    return TorchAgent(policy, rules, name=f"ckpt:{path}", greedy=True, seed=seed)


def is_oracle(spec: str) -> bool:
    """Whether ``spec`` names the oracle (``oracle`` or ``oracle:OPTIONS``)."""
    name = spec.strip().lower()
    return name == "oracle" or name.startswith("oracle:")


def check_spec(spec: str, hidden_cards: bool = False) -> None:
    """Raise ``ValueError`` (one line) unless ``spec`` names an agent; builds nothing, loads
    no file (configs check their agent lists with it before any work starts).
    ``hidden_cards``: the caller hands the true games to agents that see them (the arena),
    so the oracle is accepted."""
    name = spec.strip().lower()
    if is_oracle(name):
        if not hidden_cards:
            raise ValueError(NO_ORACLE)
        from agents.oracle import parse_oracle

        parse_oracle(spec.strip()[len("oracle:"):])
    elif name.startswith("ckpt:"):
        if not name[len("ckpt:"):]:
            raise ValueError("ckpt: needs a path, e.g. ckpt:runs/ppo/latest.pt")
    elif name.startswith("expert:"):
        from agents.expert import ExpertBudget

        ExpertBudget.parse(spec.strip()[len("expert:"):])
    elif name not in BUILTIN:
        oracle = ", oracle[:OPTIONS]" if hidden_cards else ""
        raise ValueError(f"unknown agent {spec!r}; known: {sorted(BUILTIN)}, "
                         f"expert:OPTIONS{oracle} or ckpt:PATH")


def make_agent(spec: str, rules: Rules, seed: int = 0, hidden_cards: bool = False) -> Agent:
    """An agent from its spec: a built-in name, ``expert:OPTIONS`` or ``ckpt:PATH``, and with
    ``hidden_cards`` (the arena's programs) ``oracle[:OPTIONS]``."""
    name = spec.strip()
    if is_oracle(name):
        if not hidden_cards:
            raise ValueError(NO_ORACLE)
        from agents.oracle import make_oracle

        return make_oracle(name[len("oracle:"):], rules, seed)
    if name.lower().startswith("ckpt:"):
        path = name[len("ckpt:"):]
        if not path:
            raise ValueError("ckpt: needs a path, e.g. ckpt:runs/ppo/latest.pt")
        return load_checkpoint_agent(path, rules, seed)
    if name.lower().startswith("expert:"):
        return _expert(rules, seed, name[len("expert:"):])
    check_spec(name, hidden_cards)
    return BUILTIN[name.lower()](rules, seed)

"""Agents by name: ``make_agent("sharp", rules, seed)`` for the CLI, the arena and training.

Specs: ``random``, ``casual``, ``sharp``, ``expert`` (with a search budget:
``expert:worlds=16,horizon=30``, see ``rummy500.agents.expert``), ``champion`` (the trained policy
that ships with the package, ``rummy500.agents.champion``), and ``ckpt:PATH`` (a trained torch
policy from a checkpoint file (``rummy500.agents.checkpoint``), played greedily; torch is imported
only for such specs). The ``oracle`` sees hidden cards, so it is no agent: the arena's
programs build it (``rummy500.eval.oracle``), and every other program refuses it here.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rummy500.agents.base import Agent
from rummy_env.core import Rules


def _random(rules: Rules, seed: int) -> Agent:
    from rummy500.agents.random_agent import RandomAgent

    return RandomAgent(seed)


def _casual(rules: Rules, seed: int) -> Agent:
    from rummy500.agents.casual import CasualAgent

    return CasualAgent(rules, seed)


def _sharp(rules: Rules, seed: int) -> Agent:
    from rummy500.agents.sharp import SharpAgent

    return SharpAgent(rules, seed)


def _champion(rules: Rules, seed: int) -> Agent:
    from rummy500.agents.champion import make_champion

    return make_champion(rules, seed)


def _expert(rules: Rules, seed: int, options: str = "") -> Agent:
    from rummy500.agents.expert import make_expert

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

NO_ORACLE = ("oracle: sees hidden cards, so only rummy500 eval and rummy500 ladder "
             "accept it")
"""Why a program outside the arena refuses the oracle."""


def load_checkpoint_agent(path: str, rules: Rules, seed: int) -> Agent:
    """``ckpt:PATH``: a trained policy from a checkpoint file, acting greedily.

    The checkpoint must have been trained under these rules and this
    observation version (``rummy500.agents.checkpoint.load_policy`` checks both). Any
    problem comes back as a ``ValueError`` naming the path, or
    ``NotImplementedError`` when torch or the training package is missing.
    """
    try:
        from rummy500.agents.checkpoint import load_policy
        from rummy500.agents.torch_policy import TorchAgent
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


def check_spec(spec: str, forms: str = SPEC_FORMS) -> None:
    """Raise ``ValueError`` (one line) unless ``spec`` names an agent; builds nothing, loads
    no file (configs check their agent lists with it before any work starts). ``forms``
    is what the complaint about an unknown name lists."""
    name = spec.strip().lower()
    if is_oracle(name):
        raise ValueError(NO_ORACLE)
    if name.startswith("ckpt:"):
        if not name[len("ckpt:"):]:
            raise ValueError("ckpt: needs a path, e.g. ckpt:runs/ppo/latest.pt")
    elif name.startswith("expert:"):
        from rummy500.agents.expert import ExpertBudget

        ExpertBudget.parse(spec.strip()[len("expert:"):])
    elif name not in BUILTIN:
        raise ValueError(f"unknown agent {spec!r}; known: {forms}")


def make_agent(spec: str, rules: Rules, seed: int = 0) -> Agent:
    """An agent from its spec: a built-in name, ``expert:OPTIONS`` or ``ckpt:PATH``."""
    name = spec.strip()
    if name.lower().startswith("ckpt:"):
        path = name[len("ckpt:"):]
        if not path:
            raise ValueError("ckpt: needs a path, e.g. ckpt:runs/ppo/latest.pt")
        return load_checkpoint_agent(path, rules, seed)
    if name.lower().startswith("expert:"):
        return _expert(rules, seed, name[len("expert:"):])
    check_spec(name)
    return BUILTIN[name.lower()](rules, seed)

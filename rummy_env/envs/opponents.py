"""Opponents for the single-agent envs: one interface over agents and plain callables.

The single-agent envs (``gym_env``, ``vector.RummySingleAgentVectorEnv``) let the
non-learning seats be played by

* any agent: an object with ``name`` and ``act(Decision) -> int64 [n]`` (the
  protocol of ``rummy500.agents.base.Agent``), given the seat's view and mask, or
* any callable ``(observations float32 [n, D], masks bool [n, A]) -> int [n]``,
  applied to the batch; ``single=True`` calls it once per game with
  ``(observation [D], mask [A]) -> int`` instead (the Gymnasium env's convention).

``as_policy`` turns either into a ``BatchPolicy``: ``policy(rules, state, mask)``
returns one action per game of ``state`` for the seat to play there, built from
exactly what that seat may see (``mask`` is ``core.legal_mask(rules, state)``).
An opponent that returns anything but a legal action id in every game is a
``ValueError`` naming the opponent, the game and the id.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from rummy_env.core import Decision, Rules, State, action_layout, encode, player_view, sample_legal

from .inputs import action_batch

BatchPolicy = Callable[[Rules, State, np.ndarray], np.ndarray]
"""``policy(rules, state, mask) -> int64 [B]``: an action for the seat to play in each game."""


class UniformLegal:
    """The default opponent: a uniformly random legal move, drawn from the env's generator
    (so seeding the env seeds it)."""

    name = "random"

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def act(self, decision: Decision) -> np.ndarray:
        return sample_legal(decision.mask, self.rng)


def is_agent(opponent: Any) -> bool:
    """Whether ``opponent`` follows the agent protocol (``name`` and ``act(decision)``)."""
    return hasattr(opponent, "name") and callable(getattr(opponent, "act", None))


def opponent_name(opponent: Any) -> str:
    """What error messages call an opponent: an agent's ``name``, a function's name."""
    if is_agent(opponent):
        return str(opponent.name)
    return getattr(opponent, "__name__", type(opponent).__name__)


def checked_actions(opponent: Any, rules: Rules, mask: np.ndarray, actions: Any) -> np.ndarray:
    """int64 [n]: ``actions`` of ``opponent``, each a legal id in its row of ``mask`` [n, A]."""
    name = opponent_name(opponent)
    try:
        actions = action_batch(actions, mask.shape[0])
    except ValueError as error:
        raise ValueError(f"opponent {name!r} returned bad {error}") from None
    layout = action_layout(rules)
    legal = layout.legal(mask, actions)
    if not legal.all():
        g = int(np.flatnonzero(~legal)[0])
        raise ValueError(
            layout.illegal_message(
                actions[g], mask[g], f" by opponent {name!r} (id {int(actions[g])}) in game {g}"
            )
        )
    return actions


def as_policy(opponent: Any, *, single: bool = False) -> BatchPolicy:
    """A ``BatchPolicy`` for an agent or a callable (see the module docstring). The policies
    are plain objects, not closures, so an env holding them pickles (multiprocessing vector
    envs need that) and a deep copy gets its own opponents and their generators."""
    if isinstance(opponent, UniformLegal):  # needs neither a view nor observations
        return UniformPolicy(opponent)
    if not is_agent(opponent) and not callable(opponent):
        raise ValueError(
            f"opponent {opponent!r}: expected an agent (name, act(decision)) "
            "or a callable (observation, mask) -> action"
        )
    return OpponentPolicy(opponent, single)


class UniformPolicy:
    """``UniformLegal``'s moves from its generator, straight from the mask."""

    def __init__(self, opponent: UniformLegal) -> None:
        self.opponent = opponent

    def __call__(self, rules: Rules, state: State, mask: np.ndarray) -> np.ndarray:
        return sample_legal(mask, self.opponent.rng)


class OpponentPolicy:
    """An agent's moves on the seat's view, or a callable's on the observations (one at a
    time when ``single``), each checked legal."""

    def __init__(self, opponent: Any, single: bool) -> None:
        self.opponent, self.single, self.agent = opponent, single, is_agent(opponent)

    def __call__(self, rules: Rules, state: State, mask: np.ndarray) -> np.ndarray:
        view = player_view(rules, state)
        if self.agent:
            actions = self.opponent.act(Decision(rules, mask, view))
        else:
            obs = encode(rules, view)
            if self.single:
                actions = [self.opponent(obs[i], mask[i]) for i in range(state.batch_size)]
            else:
                actions = self.opponent(obs, mask)
        return checked_actions(self.opponent, rules, mask, actions)


def opponent_list(opponents: Any, default: Any, players: int) -> list:
    """One opponent per non-learning seat: ``None`` -> ``default`` everywhere, a single
    opponent -> everywhere, or a list of exactly P - 1."""
    if opponents is None:
        opponents = default
    if not isinstance(opponents, (list, tuple)):
        opponents = [opponents] * (players - 1)
    if len(opponents) != players - 1:
        raise ValueError(
            f"opponents: give one opponent or a list of {players - 1}, got {len(opponents)}"
        )
    return list(opponents)

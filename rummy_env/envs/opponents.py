"""Opponents for the single-agent envs: one interface over agents and plain callables.

The single-agent envs (``gym_env``, ``vector.RummySingleAgentVectorEnv``) let the
non-learning seats be played by

* any agent: an object with ``name`` and ``act(Decision) -> int64 [n]`` (the
  protocol of ``agents.base.Agent``), given the seat's view and mask, or
* any callable ``(observations float32 [n, D], masks bool [n, A]) -> int [n]``,
  applied to the batch; ``single=True`` calls it once per game with
  ``(observation [D], mask [A]) -> int`` instead (the Gymnasium env's convention).

``as_policy`` turns either into a ``BatchPolicy``: ``policy(rules, state, mask)``
returns one action per game of ``state`` for the seat to play there, built from
exactly what that seat may see (``mask`` is ``core.legal_mask(rules, state)``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from rummy_env.core import Decision, Rules, State, encode, player_view, sample_legal

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


def as_policy(opponent: Any, *, single: bool = False) -> BatchPolicy:
    """A ``BatchPolicy`` for an agent or a callable (see the module docstring)."""
    if isinstance(opponent, UniformLegal):  # needs neither a view nor observations
        return lambda rules, state, mask: sample_legal(mask, opponent.rng)
    agent = is_agent(opponent)
    if not agent and not callable(opponent):
        raise ValueError(f"opponent {opponent!r}: expected an agent (name, act(decision)) "
                         "or a callable (observation, mask) -> action")

    def policy(rules: Rules, state: State, mask: np.ndarray) -> np.ndarray:
        view = player_view(rules, state)
        if agent:
            actions = opponent.act(Decision(rules, mask, view))
            return np.asarray(actions, dtype=np.int64).reshape(state.batch_size)
        obs = encode(rules, view)
        if single:
            actions = [opponent(obs[i], mask[i]) for i in range(state.batch_size)]
        else:
            actions = opponent(obs, mask)
        return np.asarray(actions, dtype=np.int64).reshape(state.batch_size)

    return policy


def opponent_list(opponents: Any, default: Any, players: int) -> list:
    """One opponent per non-learning seat: ``None`` -> ``default`` everywhere, a single
    opponent -> everywhere, or a list of exactly P - 1."""
    if opponents is None:
        opponents = default
    if not isinstance(opponents, (list, tuple)):
        opponents = [opponents] * (players - 1)
    if len(opponents) != players - 1:
        raise ValueError(f"opponents: give one opponent or a list of {players - 1}, "
                         f"got {len(opponents)}")
    return list(opponents)

"""Opponents for the single-agent envs: one interface over agents and plain callables.

The single-agent envs (``gym_env``, ``vector.RummySingleAgentVectorEnv``) let the
non-learning seats be played by

* any object following ``agents.base.Agent`` (``act(Decision) -> int64 [n]``); its
  ``Decision`` carries observations only if it sets ``needs_observation = True``
  (the arena's convention), or
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

from agents.base import Agent, Decision, sample_legal
from agents.random_agent import RandomAgent

from .observation import encode
from .rules import Rules
from .state import State
from .view import player_view

BatchPolicy = Callable[[Rules, State, np.ndarray], np.ndarray]
"""``policy(rules, state, mask) -> int64 [B]``: an action for the seat to play in each game."""


def as_policy(opponent: Any, *, single: bool = False) -> BatchPolicy:
    """A ``BatchPolicy`` for an ``Agent`` or a callable (see the module docstring)."""
    if isinstance(opponent, RandomAgent):  # needs neither a view nor observations
        return lambda rules, state, mask: sample_legal(mask, opponent.rng)
    is_agent = isinstance(opponent, Agent)
    if not is_agent and not callable(opponent):
        raise ValueError(f"opponent {opponent!r}: expected an Agent (name, act(decision)) "
                         "or a callable (observation, mask) -> action")

    # Agents get observations only when they declare ``needs_observation`` (as in the arena).
    wants_obs = not is_agent or bool(getattr(opponent, "needs_observation", False))

    def policy(rules: Rules, state: State, mask: np.ndarray) -> np.ndarray:
        view = player_view(rules, state)
        obs = encode(rules, view) if wants_obs else None
        if is_agent:
            actions = opponent.act(Decision(rules, mask, view, obs))
        elif single:
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

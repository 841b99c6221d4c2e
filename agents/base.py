"""The one agent protocol: every agent acts on a batch of decisions.

A ``Decision`` holds, for n games in which the agent's seats must act, what
those seats may see and nothing more: the flat observation, the legal-action
mask, and the structured public view (``rummy_env.view.PlayerView``). An agent
returns one legal action id per game.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from rummy_env.rules import Rules
from rummy_env.view import PlayerView


@dataclass
class Decision:
    """What n acting seats see: rules, observations [n, D], masks [n, A], views."""

    rules: Rules
    mask: np.ndarray
    view: PlayerView
    observation: np.ndarray | None = None

    @property
    def size(self) -> int:
        return self.mask.shape[0]


@runtime_checkable
class Agent(Protocol):
    """Anything with a name and ``act(decision) -> int64 [n]`` legal action ids."""

    name: str

    def act(self, decision: Decision) -> np.ndarray: ...


def sample_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of a bool mask [n, A].

    Picks the k-th legal id of each row from one flat ``nonzero`` pass, which is
    far cheaper than drawing a random number per action.
    """
    counts = np.count_nonzero(mask, axis=1)
    if (counts == 0).any():
        raise ValueError("sample_legal: a row has no legal action")
    legal_ids = np.flatnonzero(mask)
    first = np.cumsum(counts) - counts
    pick = (rng.random(mask.shape[0]) * counts).astype(np.int64)
    return legal_ids[first + pick] % mask.shape[1]

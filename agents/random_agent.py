"""Random: a uniformly random legal action, from a seeded generator (the floor baseline)."""

from __future__ import annotations

import numpy as np

from rummy_env.core import Decision, sample_legal


class RandomAgent:
    """Uniform over the legal actions of each game; reproducible from ``seed`` (or drawing
    from a given generator ``rng``, e.g. an environment's, so its seeding covers it)."""

    name = "random"

    def __init__(self, seed: int = 0, rng: np.random.Generator | None = None):
        self.rng = rng if rng is not None else np.random.default_rng(seed)

    def act(self, decision: Decision) -> np.ndarray:
        return sample_legal(decision.mask, self.rng)

"""Helpers for the environment tests: positions reached by random legal play."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from rummy_env.core import GameStream, Rules, State, legal_mask, sample_legal, step_inplace


def random_positions(
    rules: Rules, batch: int, steps: int, every: int, seed: int = 0
) -> Iterator[State]:
    """Copies of a batch of games after 0, every, 2*every, ... random legal steps.

    Finished games are replaced by fresh ones, so every yielded game is live.
    """
    rng = np.random.default_rng(seed)
    stream = GameStream(rules, seed, batch)
    state = stream.state
    for t in range(steps):
        stream.replace(stream.finished())
        if t % every == 0:
            yield state.copy()
        mask = legal_mask(rules, state)
        step_inplace(rules, state, sample_legal(mask, rng), mask=mask)

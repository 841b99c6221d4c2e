"""Helpers for the environment tests: positions reached by random legal play."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from rummy_env import core
from rummy_env.core import Rules, State, sample_legal


def random_positions(rules: Rules, batch: int, steps: int, every: int,
                     seed: int = 0) -> Iterator[State]:
    """Copies of a batch of games after 0, every, 2*every, ... random legal steps.

    Finished games are replaced by fresh ones, so every yielded game is live.
    """
    rng = np.random.default_rng(seed)
    state = core.init(rules, seed, batch)
    next_game = batch
    for t in range(steps):
        done = np.flatnonzero(state.game_over)
        if done.size:
            ids = np.arange(next_game, next_game + done.size)
            next_game += done.size
            state.assign(done, core.init(rules, seed, game_ids=ids))
        if t % every == 0:
            yield state.copy()
        mask = core.legal_mask(rules, state)
        core.step_inplace(rules, state, sample_legal(mask, rng), mask=mask)

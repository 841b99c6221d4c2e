"""A batch of games fed from a stream of game ids: a finished game makes room for the next.

Every program that plays many games through the batched core (the vector env,
the arena, the benchmarks) keeps a fixed number of slots busy this way, through the
driver that owns the stream (``Games``). Game k
of the stream is dealt from ``init(rules, seed, game_ids=[deals[k]])``, so it is
the same game whatever the batch width or the order in which slots free up.

>>> from rummy_env.core import Rules
>>> stream = GameStream(Rules(), seed=0, width=2, deals=[7, 8, 9])
>>> stream.slot_game.tolist()
[0, 1]
>>> stream.replace(np.array([1])).tolist()    # slot 1's game ended: game 2 (deal 9) comes in
[2]
>>> stream.replace(np.array([0])).tolist(), stream.slot_game.tolist()    # the stream ran dry
([], [-1, 2])
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .rules import Rules
from .state import State
from .step import init


class GameStream:
    """``width`` slots of live games over a stream of deals (``None``: 0, 1, 2, ... endlessly).

    ``slot_game[i]`` is the stream index of the game in slot i, -1 once the slot
    is empty (the stream ran dry).
    """

    def __init__(
        self, rules: Rules, seed: int, width: int, deals: Sequence[int] | np.ndarray | None = None
    ) -> None:
        self.rules, self.seed = rules, seed
        self.deals = None if deals is None else np.asarray(deals, np.int64)
        n = width if self.deals is None else min(width, self.deals.size)
        self.slot_game = np.arange(n)
        self.next_game = n
        self.state: State = init(rules, seed, game_ids=self.deal_of(self.slot_game))

    def deal_of(self, games: np.ndarray) -> np.ndarray:
        """The deal (game id given to ``init``) of stream games ``games``."""
        return games if self.deals is None else self.deals[games]

    @property
    def exhausted(self) -> bool:
        return self.deals is not None and self.next_game >= self.deals.size

    def replace(self, slots: np.ndarray) -> np.ndarray:
        """Deal the stream's next games into ``slots``; slots past its end are emptied.

        Returns the stream indices of the games dealt, in slot order."""
        left = slots.size if self.deals is None else self.deals.size - self.next_game
        k = min(slots.size, left)
        games = np.arange(self.next_game, self.next_game + k)
        if k:
            self.state.assign(slots[:k], init(self.rules, self.seed, game_ids=self.deal_of(games)))
        self.slot_game[slots[:k]] = games
        self.slot_game[slots[k:]] = -1
        self.next_game += k
        return games

    def finished(self) -> np.ndarray:
        """The slots whose game is over (read their results, then ``replace`` them)."""
        return np.flatnonzero(self.state.game_over & (self.slot_game >= 0))

    def compact(self) -> None:
        """Drop the empty slots once the stream has run dry and they are half the batch."""
        empty = self.slot_game < 0
        if self.exhausted and empty.any() and empty.sum() * 2 >= self.slot_game.size:
            keep = np.flatnonzero(~empty)
            self.state = self.state.select(keep)
            self.slot_game = self.slot_game[keep]

"""A batch of games in play: the one stateful driver of the engine.

The engine's contract is pure functions (``init``, ``legal_mask``, ``step``), which a
research script calls as they are. Playing many games fast takes three more things,
the same for every caller: a stream of deals that refills the row of a finished game
(``GameStream``), what each table accepts and scores kept while it stands (the table
cache, ``_table_cache``, which must be brought up to date after every change and handed
to the mask, the step and the views), and for a lone game the plain-Python path
(``_one_game``). ``Games`` owns the three, so a caller (the envs, the arena, the
expert's play-outs, the speed bench, the web table, the trainer through the vector env)
holds one object and asks it for the mask, the views or observations of some rows, a
step, and new games in the rows of finished ones; it cannot forget an update or pass a
stale cache. Every answer equals the pure functions' own, bit for bit.

>>> from rummy_env.core import Games, Rules, sample_legal
>>> games = Games(Rules(), 4, seed=0, deals=[0, 1, 2, 3, 4])
>>> rng = np.random.default_rng(0)
>>> while games.slot_game.size:
...     games.step(sample_legal(games.mask() | games.state.game_over[:, None], rng))
...     _ = games.replace(games.finished())
...     games.compact()
>>> games.next_game
5

What is kept depends on what is asked (``sees``): ``"mask"`` keeps what the mask and the
step read (random play, the speed bench); ``"views"`` also each table's points
(``view``: agents); ``"observations"`` also the table's observation columns
(``observe``: networks). ``one_game=True`` plays a lone game through the plain-Python
path instead (the one-game envs, the web table): its mask and observation equal the
batched ones bit for bit (``tests/test_one_game_path.py``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any, Literal, overload

import numpy as np

from ._one_game import OneGameMask, OneGameObserver
from ._table_cache import TableCache
from .masks import legal_mask
from .observation import CompactObservation, observe
from .rules import Rules
from .state import State
from .step import step_inplace
from .stream import GameStream
from .view import PlayerView, player_view

SEES = ("mask", "views", "observations")
"""What a ``Games`` may be asked for, each adding to the one before."""

Chooser = Callable[[State, np.ndarray], np.ndarray]
"""``(states of some games, their legal masks bool [n, A]) -> actions int [n]``."""


def _check(sees: str, one_game: bool, width: int) -> None:
    """Refuse, in one line and before any game is dealt, what a ``Games`` cannot serve."""
    if sees not in SEES:
        raise ValueError(f"sees={sees!r}: one of {', '.join(SEES)}")
    if one_game and width != 1:
        raise ValueError(f"one_game: one game, not {width}")


class Games:
    """``width`` games played side by side from the deals of ``seed`` (module docstring).

    ``deals``: the game ids to play, in order (None: 0, 1, 2, ... endlessly); a finished
    game's row takes the next (``replace``). ``auto_deal``: a hand's end deals the next
    hand (False: the hand stops, as a search's play-out wants).
    """

    def __init__(
        self,
        rules: Rules,
        width: int,
        seed: int = 0,
        deals: Sequence[int] | np.ndarray | None = None,
        *,
        auto_deal: bool = True,
        sees: str = "views",
        one_game: bool = False,
    ) -> None:
        _check(sees, one_game, width)
        self.rules, self.auto_deal, self.one_game = rules, auto_deal, one_game
        self.stream: GameStream | None = GameStream(rules, seed, width, deals)
        self.state: State = self.stream.state
        """The games (read them; change them only through this object)."""
        self._start(sees)

    @classmethod
    def of(
        cls,
        rules: Rules,
        state: State,
        *,
        auto_deal: bool = True,
        sees: str = "views",
        one_game: bool = False,
    ) -> Games:
        """Drive games dealt elsewhere (``state``: a search's sampled worlds, a replay's
        position), in place; with no stream, no ``replace``."""
        _check(sees, one_game, state.batch_size)
        games = cls.__new__(cls)
        games.rules, games.auto_deal, games.one_game = rules, auto_deal, one_game
        games.stream, games.state = None, state
        games._start(sees)
        return games

    def _start(self, sees: str) -> None:
        if self.one_game:
            self._tables = None
            self._one_mask, self._one_observer = (
                OneGameMask(self.rules),
                OneGameObserver(self.rules),
            )
        else:
            self._tables = TableCache(
                self.rules, points=sees != "mask", observed=sees == "observations"
            )
        self._fresh = False  # the table cache matches the state
        self._mask: np.ndarray | None = None
        self._redealt: np.ndarray | None = None  # bool [B]: rows dealt since ``_mask``

    # -- the stream ---------------------------------------------------------------------
    @property
    def slot_game(self) -> np.ndarray:
        """int64 [B]: the stream index of the game in each row, -1 for an emptied row."""
        return self.stream.slot_game

    @property
    def next_game(self) -> int:
        """The stream index of the next game to deal."""
        return self.stream.next_game

    def finished(self) -> np.ndarray:
        """The rows whose game is over (read their results, then ``replace`` them)."""
        return self.stream.finished()

    def replace(self, rows: np.ndarray) -> np.ndarray:
        """Deal the stream's next games into ``rows`` (rows past its end are emptied);
        returns their stream indices, in row order."""
        games = self.stream.replace(rows)
        if rows.size:
            self._fresh = False
            if self._mask is not None:
                if self._redealt is None:
                    self._redealt = np.zeros(self.state.batch_size, bool)
                self._redealt[rows] = True
        return games

    def compact(self) -> None:
        """Drop the emptied rows once the stream has run dry and they are half the batch
        (their games' rows move: read ``slot_game`` again)."""
        self.stream.compact()
        if self.stream.state is not self.state:
            self.state = self.stream.state
            if self._tables is not None:
                self._tables.forget()
            self._changed()

    def keep(self, rows: np.ndarray) -> None:
        """Keep only the games ``rows``, in that order (a play-out drops finished ones)."""
        self.state = self.state.select(rows)
        if self.stream is not None:
            self.stream.state, self.stream.slot_game = self.state, self.stream.slot_game[rows]
        if self._tables is not None:
            self._tables.select(rows)  # each kept row keeps its key: still up to date or not
        self._mask, self._redealt = None, None

    def snapshot(self) -> dict[str, Any]:
        """The games and the stream's place, as numpy arrays and ints (``restore``)."""
        return {
            "state": {
                f.name: getattr(self.state, f.name).copy() for f in dataclasses.fields(self.state)
            },
            "next_game": int(self.stream.next_game),
            "slot_game": self.stream.slot_game.copy(),
        }

    def restore(self, snapshot: dict[str, Any]) -> None:
        """Put back a ``snapshot`` of games of the same rules and width."""
        self.state.assign(
            slice(None),
            State(
                **{
                    name: np.asarray(value, getattr(self.state, name).dtype)
                    for name, value in snapshot["state"].items()
                }
            ),
        )
        self.stream.next_game = int(snapshot["next_game"])
        self.stream.slot_game[:] = snapshot["slot_game"]
        if self._tables is not None:
            self._tables.forget()
        self._changed()

    # -- what the seats see -------------------------------------------------------------
    def mask(self) -> np.ndarray:
        """bool [B, A]: ``legal_mask`` of every game now (kept until the games change)."""
        if self._mask is None or self._redealt is not None:
            if self.one_game:
                self._mask = self._one_mask(self.state)
            else:
                tables = self._cache()
                self._mask = legal_mask(
                    self.rules, self.state, fits=tables.fits, blocked=tables.blocked
                )
            self._redealt = None
        return self._mask

    def view(self, seats: np.ndarray | None = None, rows: np.ndarray | None = None) -> PlayerView:
        """``player_view`` of ``seats[i]`` in game ``rows[i]`` (defaults: every game, the
        seat to play)."""
        return player_view(self.rules, self.state, seats, rows, points=self._kept("points", rows))

    @overload
    def observe(
        self,
        seats: np.ndarray | None = None,
        rows: np.ndarray | None = None,
        *,
        out: np.ndarray | None = None,
        compact: Literal[False] = False,
    ) -> np.ndarray: ...

    @overload
    def observe(
        self,
        seats: np.ndarray | None = None,
        rows: np.ndarray | None = None,
        *,
        out: np.ndarray | None = None,
        compact: bool,
    ) -> np.ndarray | CompactObservation: ...

    def observe(
        self,
        seats: np.ndarray | None = None,
        rows: np.ndarray | None = None,
        *,
        out: np.ndarray | None = None,
        compact: bool = False,
    ) -> np.ndarray | CompactObservation:
        """``observe`` of ``seats[i]`` in game ``rows[i]`` (defaults as for ``view``);
        ``out`` and ``compact`` as there."""
        return observe(
            self.rules,
            self.state,
            seats,
            rows,
            points=self._kept("points", rows),
            table=self._kept("columns", rows),
            out=out,
            compact=compact,
        )

    def observe_one(self, seat: int) -> np.ndarray:
        """float32 [D]: what ``seat`` observes in the lone game (``one_game``)."""
        return self._one_observer(self.state, seat)

    def _kept(self, what: str, rows: np.ndarray | None) -> np.ndarray | None:
        """The cache's ``points`` or ``columns`` for a view of ``rows``: brought up to date
        for every game, or None (worked out afresh) for some games of a changed batch."""
        if self._tables is None or (rows is not None and not self._fresh):
            return None
        return getattr(self._cache(), what)

    def _cache(self) -> TableCache:
        """The table cache, brought up to date with the games."""
        if not self._fresh:
            self._tables.update(self.state)
            self._fresh = True
        return self._tables

    # -- moves --------------------------------------------------------------------------
    def step(self, actions: np.ndarray, rows: np.ndarray | None = None) -> None:
        """Apply one legal action to each game (``rows``: to those games only, ``actions``
        theirs); ``ValueError`` for an illegal one."""
        if rows is None:
            mask = self.mask()
            if self.one_game:
                step_inplace(self.rules, self.state, actions, auto_deal=self.auto_deal, mask=mask)
            else:
                tables = self._tables
                step_inplace(
                    self.rules,
                    self.state,
                    actions,
                    auto_deal=self.auto_deal,
                    mask=mask,
                    fits=tables.fits,
                    blocked=tables.blocked,
                )
        else:
            if self._mask is not None and (self._redealt is None or not self._redealt[rows].any()):
                mask = self._mask[rows]
            else:
                mask = None
            self.play(rows, lambda _, __: actions, mask)
            return
        self._changed()

    def play(self, rows: np.ndarray, choose: Chooser, mask: np.ndarray | None = None) -> None:
        """Let ``choose`` pick the actions of the games ``rows`` from their states and masks
        (``mask``: those masks when known), and step those games (batched games only)."""
        tables = self._cache()
        part = self.state.select(rows)
        fits = tables.fits[rows]
        blocked = None if tables.blocked is None else tables.blocked[rows]
        if mask is None:
            mask = legal_mask(self.rules, part, fits=fits, blocked=blocked)
        step_inplace(
            self.rules,
            part,
            choose(part, mask),
            auto_deal=self.auto_deal,
            mask=mask,
            fits=fits,
            blocked=blocked,
        )
        self.state.assign(rows, part)
        self._changed()

    def _changed(self) -> None:
        """The games moved: what was worked out for them is stale."""
        self._fresh = False
        self._mask, self._redealt = None, None

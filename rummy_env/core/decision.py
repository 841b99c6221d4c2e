"""What a seat is asked to decide on, and the uniform legal choice.

A ``Decision`` holds, for n games in which some seats must act, what those
seats may see and nothing more: the legal-action mask, the structured public
view (``PlayerView``) and, when built, the flat observation (float32, or the
``CompactObservation`` a compact env hands out). Every player of
the project (agents, env opponents, people) decides on one; it lives in the
engine so that the layers above share it without importing each other. Only
the arena adds the true games (``hidden``), and only for an agent that says it
sees hidden cards (the ``oracle``, a bound for research, never a fair player).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from .observation import CompactObservation
from .rules import Rules
from .state import State
from .view import PlayerView


@dataclass
class Decision:
    """What n acting seats see: rules, masks [n, A], views, and observations [n, D] when built
    (float32 or compact)."""

    rules: Rules
    mask: np.ndarray
    view: PlayerView
    observation: np.ndarray | CompactObservation | None = None
    hidden: State | None = None
    """The true games of the n decisions, hidden cards and all: set by the arena for agents
    whose ``sees_hidden`` is True, None everywhere else."""

    def __post_init__(self) -> None:
        """Every array handed out is a read-only view: an agent cannot change the mask the
        legality check reads, nor the engine's state behind a view (the arrays themselves
        stay writable for their owner)."""
        self.mask = read_only(self.mask)
        if dataclasses.is_dataclass(self.view):
            self.view = dataclasses.replace(
                self.view,
                **{
                    f.name: read_only(getattr(self.view, f.name))
                    for f in dataclasses.fields(self.view)
                    if isinstance(getattr(self.view, f.name), np.ndarray)
                },
            )
        if isinstance(self.observation, np.ndarray):
            self.observation = read_only(self.observation)

    @property
    def size(self) -> int:
        return self.mask.shape[0]


def read_only(array: np.ndarray) -> np.ndarray:
    """A read-only view of ``array`` (``array`` itself unchanged)."""
    view = np.asarray(array).view()
    view.setflags(write=False)
    return view


def sample_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of a bool mask [n, A].

    Picks the k-th legal id of each row from one flat ``nonzero`` pass, which is
    far cheaper than drawing a random number per action.

    >>> import numpy as np
    >>> mask = np.array([[False, True, False], [True, False, False]])
    >>> sample_legal(mask, np.random.default_rng(0)).tolist()
    [1, 0]
    """
    n, width = mask.shape
    legal_ids = sparse_flatnonzero(mask)
    counts = np.bincount(legal_ids // max(width, 1), minlength=n)
    if (counts == 0).any():
        raise ValueError("sample_legal: a row has no legal action")
    first = np.cumsum(counts) - counts
    pick = (rng.random(n) * counts).astype(np.int64)
    return legal_ids[first + pick] % width


def sparse_flatnonzero(mask: np.ndarray) -> np.ndarray:
    """``np.flatnonzero`` of a bool array that is mostly False, faster: 8-byte words with
    nothing set are skipped in one pass over the words."""
    flat = np.ascontiguousarray(mask, dtype=bool).reshape(-1)
    if flat.size % 8:
        return np.flatnonzero(flat)
    as_words = flat.view(np.uint64)
    words = np.flatnonzero(as_words != 0)
    # The words' bytes by a 1-D take (a row gather of [*, 8] bytes is ten times slower).
    hits = np.flatnonzero(as_words[words].view(bool))
    return (words[hits >> 3] << 3) | (hits & 7)

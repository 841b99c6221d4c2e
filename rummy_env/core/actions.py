"""The flat action space and the codec between action ids and canonical texts.

Every micro-action of the rules (docs/rules.md) is one id of ``Discrete(A)``. The layout
depends on the rules only through ``T = rules.deck_cards`` (the deepest possible
``take``); everything else is fixed:

    =========  ==========================  =====  ==============================
    name       ids                         count  meaning
    =========  ==========================  =====  ==============================
    DRAW       0                           1      ``draw``: top card of the stock
    END        1                           1      ``end``: end the hand, stock empty
    TAKE       2 .. 2+T-1                  T      ``take d``, d = id - 2 + 1
    MELD       TAKE_END .. +637            637    ``meld ...``: pattern (patterns.py)
    LAYOFF     MELD_END .. +156            156    ``layoff C set|up|down``: C*3 + dir
    DISCARD    LAYOFF_END .. +53           53     ``discard C`` (52 = ``discard JK``)
    SWAP       DISCARD_END .. +52          52     ``swap C`` (joker swap variant)
    CALL       SWAP_END                    1      ``call`` (rummy call variant)
    PASS       SWAP_END + 1                1      ``pass``
    DONE       SWAP_END + 2                1      ``done``
    =========  ==========================  =====  ==============================

With one deck and no jokers T = 52 and A = 955.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, cached_property

import numpy as np

from .cards import JOKER, N_CARD_IDS, N_NATURAL, card_text, parse_card
from .patterns import N_PATTERNS, PATTERN_CARDS, PATTERN_SIZE
from .rules import Rules

LAYOFF_DIRECTIONS = ("set", "up", "down")
LAYOFF_SET, LAYOFF_UP, LAYOFF_DOWN = 0, 1, 2


@dataclass(frozen=True)
class ActionLayout:
    """Offsets of each action range for decks holding ``max_take`` cards."""

    max_take: int

    DRAW = 0
    END = 1
    TAKE = 2

    @cached_property
    def MELD(self) -> int:  # noqa: N802 - offsets read as constants
        return self.TAKE + self.max_take

    @cached_property
    def LAYOFF(self) -> int:  # noqa: N802
        return self.MELD + N_PATTERNS

    @cached_property
    def DISCARD(self) -> int:  # noqa: N802
        return self.LAYOFF + N_NATURAL * 3

    @cached_property
    def SWAP(self) -> int:  # noqa: N802
        return self.DISCARD + N_CARD_IDS

    @cached_property
    def CALL(self) -> int:  # noqa: N802
        return self.SWAP + N_NATURAL

    @cached_property
    def PASS(self) -> int:  # noqa: N802
        return self.CALL + 1

    @cached_property
    def DONE(self) -> int:  # noqa: N802
        return self.CALL + 2

    @cached_property
    def size(self) -> int:
        return self.CALL + 3

    def ranges(self) -> list[tuple[str, int, int]]:
        """(name, first id, count) of each range, in id order."""
        return [
            ("draw", self.DRAW, 1),
            ("end", self.END, 1),
            ("take", self.TAKE, self.max_take),
            ("meld", self.MELD, N_PATTERNS),
            ("layoff", self.LAYOFF, N_NATURAL * 3),
            ("discard", self.DISCARD, N_CARD_IDS),
            ("swap", self.SWAP, N_NATURAL),
            ("call", self.CALL, 1),
            ("pass", self.PASS, 1),
            ("done", self.DONE, 1),
        ]

    # Checks -----------------------------------------------------------------
    def legal(self, mask: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """bool [n]: ``actions[i]`` is an id of this layout and legal in ``mask[i]``."""
        in_range = (actions >= 0) & (actions < self.size)
        return mask[np.arange(actions.size), np.where(in_range, actions, 0)] & in_range

    def illegal_message(self, action: int, legal_row: np.ndarray, where: str = "") -> str:
        """The one message for a refused action: what was played and the legal texts.

        >>> ids = action_layout(Rules())
        >>> row = np.zeros(ids.size, bool); row[ids.DRAW] = True
        >>> ids.illegal_message(-3, row, " in game 0")
        "illegal action in game 0: 'id -3 (outside 0..954)'; legal: ['draw']"
        """
        legal = [self.text(i) for i in np.flatnonzero(legal_row).tolist()]
        return f"illegal action{where}: {self.describe(action)!r}; legal: {legal}"

    def describe(self, action: int) -> str:
        """The action's text, or its id and the valid range when it names no action."""
        a = int(action)
        return self.text(a) if 0 <= a < self.size else f"id {a} (outside 0..{self.size - 1})"

    # Codec ------------------------------------------------------------------
    def text(self, action: int) -> str:
        """Canonical text of an action id (as docs/rules.md writes it)."""
        a = int(action)
        if a == self.DRAW:
            return "draw"
        if a == self.END:
            return "end"
        if self.TAKE <= a < self.MELD:
            return f"take {a - self.TAKE + 1}"
        if self.MELD <= a < self.LAYOFF:
            p = a - self.MELD
            return "meld " + " ".join(card_text(c) for c in PATTERN_CARDS[p, : PATTERN_SIZE[p]])
        if self.LAYOFF <= a < self.DISCARD:
            card, direction = divmod(a - self.LAYOFF, 3)
            return f"layoff {card_text(card)} {LAYOFF_DIRECTIONS[direction]}"
        if self.DISCARD <= a < self.SWAP:
            return f"discard {card_text(a - self.DISCARD)}"
        if self.SWAP <= a < self.CALL:
            return f"swap {card_text(a - self.SWAP)}"
        if a == self.CALL:
            return "call"
        if a == self.PASS:
            return "pass"
        if a == self.DONE:
            return "done"
        raise ValueError(f"action id {a} is outside 0..{self.size - 1}")

    def parse(self, text: str) -> int:
        """Action id of a canonical text; cards may be in any order and ``10H`` is accepted."""
        words = text.split()
        if not words:
            raise ValueError("empty action text")
        verb, args = words[0].lower(), words[1:]
        simple = {
            "draw": self.DRAW,
            "end": self.END,
            "call": self.CALL,
            "pass": self.PASS,
            "done": self.DONE,
        }
        if verb in simple and not args:
            return simple[verb]
        if verb == "take" and len(args) == 1 and args[0].isdigit():
            depth = int(args[0])
            if 1 <= depth <= self.max_take:
                return self.TAKE + depth - 1
            raise ValueError(f"take depth {depth} is outside 1..{self.max_take}")
        if verb == "meld" and args:
            return self.MELD + pattern_of([parse_card(c) for c in args])
        if verb == "layoff" and len(args) == 2 and args[1].lower() in LAYOFF_DIRECTIONS:
            card = _natural(parse_card(args[0]), text)
            return self.LAYOFF + card * 3 + LAYOFF_DIRECTIONS.index(args[1].lower())
        if verb == "discard" and len(args) == 1:
            return self.DISCARD + parse_card(args[0])
        if verb == "swap" and len(args) == 1:
            return self.SWAP + _natural(parse_card(args[0]), text)
        raise ValueError(
            f"cannot read action {text!r}: expected draw, take D, meld C C C..., "
            "layoff C set|up|down, discard C, swap C, end, call, pass or done"
        )


def _natural(card: int, text: str) -> int:
    if card == JOKER:
        raise ValueError(f"{text!r}: name the natural card, not JK")
    return card


@cache
def _pattern_index() -> dict[tuple[int, ...], int]:
    """Canonical card tuple -> pattern index, and sorted tuple -> index where unambiguous."""
    index: dict[tuple[int, ...], int] = {}
    by_set: dict[tuple[int, ...], list[int]] = {}
    for p in range(N_PATTERNS):
        cards = tuple(int(c) for c in PATTERN_CARDS[p, : PATTERN_SIZE[p]])
        index[cards] = p
        by_set.setdefault(tuple(sorted(cards)), []).append(p)
    for key, ps in by_set.items():
        if len(ps) == 1:
            index.setdefault(key, ps[0])
    return index


def pattern_of(cards: list[int]) -> int:
    """The pattern naming exactly these cards (in canonical order, or any unambiguous order)."""
    if any(c == JOKER for c in cards):
        raise ValueError("a meld names the cards it makes: write the card a joker stands for")
    index = _pattern_index()
    key = tuple(cards)
    if key in index:
        return index[key]
    sorted_key = tuple(sorted(cards))
    if sorted_key in index:
        return index[sorted_key]
    raise ValueError(f"{' '.join(card_text(c) for c in cards)} is not a set or a run")


@cache
def layout_for(max_take: int) -> ActionLayout:
    return ActionLayout(max_take)


def action_layout(rules: Rules) -> ActionLayout:
    """The action layout of a rules config."""
    return layout_for(rules.deck_cards)

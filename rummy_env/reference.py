"""Scalar reference engine: one game of Rummy 500, written to be read.

This module is the project's executable rule book (``RULES.md``) and the oracle that
the vectorized core is tested against. It favours plain Python over speed: hands are
lists of card ids (a two-deck game simply holds an id twice), the stock is a list
with its top card first, the discard pile a list with its top card last, and every
rule lives in one small, named method.

A game moves through these phases:

    draw       the seat to play starts its turn: ``draw``, ``take D``, or ``end``
    play       after the draw: ``meld ...``, ``layoff C set|up|down``, ``discard C``
    hand_over  the hand ended and the game did not (positions only: no next deal)
    game_over  somebody won, or the game hit ``max_hands`` (truncated)

Not implemented yet: jokers, joker swaps, floating and rummy calls. Rules asking for
them raise ``NotImplementedError``. They would add phases (a call window, a floating
turn) and hooks where a hand is emptied (``_after_emptying_play``) and where a turn
ends (``_finish_turn``).

>>> game = ReferenceGame(Rules(), seed=1)
>>> game.legal_actions()[:2]
['draw', 'take 1']
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from .cards import (
    N_NATURAL,
    N_RANKS,
    N_SUITS,
    card_id,
    card_text,
    parse_card,
    rank_of,
    rank_points,
    suit_of,
)
from .deal import dealer_of_hand, game_keys, shuffled_decks
from .rules import Rules, _is_int

DRAW = "draw"
PLAY = "play"
HAND_OVER = "hand_over"
GAME_OVER = "game_over"

SET = "set"
RUN = "run"
LAYOFF_ENDS = ("set", "up", "down")
"""``layoff C set``: fill a set's missing suit; ``up`` / ``down``: new top / bottom of a run."""


# Meld patterns ----------------------------------------------------------------------


@dataclass(frozen=True)
class Pattern:
    """A meld the rules allow: its kind and its cards (distinct ids) in print order."""

    kind: str
    cards: tuple[int, ...]

    @property
    def text(self) -> str:
        return "meld " + " ".join(card_text(c) for c in self.cards)


def run_allowed(rules: Rules, start: int, length: int) -> bool:
    """Whether a run of ``length`` cards from rank ``start`` upward is allowed.

    Without wrap a run must stop at the king, or (ace high) end with the ace just
    above it; with wrap every start and every length 3..13 is allowed.
    """
    if not 3 <= length <= N_RANKS:
        return False
    if rules.runs_wrap:
        return True
    past_top = start + length  # N_RANKS + 1 means the run ends with a high ace
    return past_top <= N_RANKS or (rules.runs_ace_high and past_top == N_RANKS + 1)


def run_cards(suit: int, start: int, length: int) -> tuple[int, ...]:
    """Card ids of a run in print order: ranks start, start+1, ... (mod 13)."""
    return tuple(card_id(suit, (start + i) % N_RANKS) for i in range(length))


@cache
def meld_patterns(rules: Rules) -> dict[tuple[int, ...], Pattern]:
    """Every meld the rules allow, keyed by its cards in print order (built once per rules)."""
    patterns: list[Pattern] = []
    for rank in range(N_RANKS):
        all_suits = tuple(card_id(s, rank) for s in range(N_SUITS))
        patterns.append(Pattern(SET, all_suits))
        for missing in range(N_SUITS):
            patterns.append(Pattern(SET, all_suits[:missing] + all_suits[missing + 1 :]))
    for suit in range(N_SUITS):
        for start in range(N_RANKS):
            for length in range(3, N_RANKS + 1):
                if run_allowed(rules, start, length):
                    patterns.append(Pattern(RUN, run_cards(suit, start, length)))
    return {p.cards: p for p in patterns}


# The table --------------------------------------------------------------------------


@dataclass
class TableMeld:
    """A meld on the table: cards in print order and, per card, the seat that laid it."""

    kind: str
    cards: list[int]
    by: list[int]

    def fits(self, rules: Rules, card: int, end: str) -> bool:
        """Whether ``layoff card end`` may go on this meld."""
        if end == "set":
            return (
                self.kind == SET
                and len(self.cards) == 3
                and rank_of(card) == rank_of(self.cards[0])
                and suit_of(card) not in {suit_of(c) for c in self.cards}
            )
        if self.kind != RUN or suit_of(card) != suit_of(self.cards[0]):
            return False
        start, length = rank_of(self.cards[0]), len(self.cards)
        if end == "up":
            return (start + length) % N_RANKS == rank_of(card) and run_allowed(
                rules, start, length + 1
            )
        # Down from an ace the new start is the king (rank 12): only wrap allows that.
        new_start = (start - 1) % N_RANKS
        return new_start == rank_of(card) and run_allowed(rules, new_start, length + 1)

    def add(self, card: int, end: str, seat: int) -> None:
        """Lay ``card`` off at ``end``; it scores for ``seat``."""
        if end == "set":
            at = sum(suit_of(c) < suit_of(card) for c in self.cards)
        elif end == "up":
            at = len(self.cards)
        else:
            at = 0
        self.cards.insert(at, card)
        self.by.insert(at, seat)

    def points(self, rules: Rules) -> list[int]:
        """Points of each card; an ace that starts a run (A-2-3...) is a low ace."""
        points = [rank_points(rank_of(c), rules.pip_values) for c in self.cards]
        if self.kind == RUN and rank_of(self.cards[0]) == 0:
            points[0] = rules.low_ace_value
        return points


# The game ---------------------------------------------------------------------------


class ReferenceGame:
    """One game, stepped by canonical action texts (RULES.md section 11).

    ``ReferenceGame(rules, seed, game_id)`` deals hand 0 from the seeded shuffle and
    deals each next hand itself until the game is over. ``from_position`` starts from
    a scenario position and stops when that hand ends (phase ``hand_over``).
    """

    def __init__(self, rules: Rules, seed: int, game_id: int = 0) -> None:
        self._start_game(rules, auto_deal=True)
        self._key = int(game_keys(seed, np.array([game_id], dtype=np.uint64))[0])
        self._deal(0)

    @classmethod
    def from_position(cls, position: dict[str, Any]) -> ReferenceGame:
        """A game at the draw step of ``position`` (the scenario format of conformance/).

        Raises ValueError with a one-line reason for a malformed position.
        """
        rules = Rules.from_dict(position.get("rules", {}))
        game = cls.__new__(cls)
        game._start_game(rules, auto_deal=False)
        players = rules.players
        if "hands" not in position or len(position["hands"]) != players:
            raise ValueError(f"position: 'hands' must hold one list per seat ({players} seats)")
        hands = [_parse_cards(hand) for hand in position["hands"]]
        stock = _parse_cards(position.get("stock", []))
        pile = _parse_cards(position.get("discard", []))
        table = [_parse_table_meld(rules, meld) for meld in position.get("melds", [])]
        _check_copies(rules, hands + [stock, pile] + [m.cards for m in table])
        totals = position.get("totals", [0] * players)
        if len(totals) != players or not all(_is_int(t) for t in totals):
            raise ValueError(f"position: 'totals' must hold {players} integers, got {totals!r}")
        to_play = position.get("to_play", 0)
        if not _is_int(to_play) or not 0 <= to_play < players:
            raise ValueError(
                f"position: 'to_play' must be a seat 0..{players - 1}, got {to_play!r}"
            )
        game.totals = list(totals)
        game._start_hand(0, (to_play - 1) % players, hands, stock, pile, table)
        game.melded = [any(seat in m.by for m in table) for seat in range(players)]
        return game

    # Set-up ---------------------------------------------------------------------------

    def _start_game(self, rules: Rules, auto_deal: bool) -> None:
        """Game-level state: totals and the result so far."""
        _check_supported(rules)
        self.rules = rules
        self.patterns = meld_patterns(rules)
        self.auto_deal = auto_deal
        self.totals = [0] * rules.players
        self.hand_scores: list[int] | None = None
        self.winner: int | None = None
        self.truncated = False

    def _deal(self, hand_number: int) -> None:
        """Deal hand ``hand_number`` from the seeded deck order (see module deal)."""
        rules, players, size = self.rules, self.rules.players, self.rules.hand_cards
        keys = np.array([self._key], dtype=np.uint64)
        order = [int(c) for c in shuffled_decks(rules, keys, np.array([hand_number]))[0]]
        dealer = dealer_of_hand(rules, hand_number)
        first = (dealer + 1) % players
        hands: list[list[int]] = [[] for _ in range(players)]
        for i in range(players * size):
            hands[(first + i) % players].append(order[i])
        dealt = players * size
        self._start_hand(hand_number, dealer, hands, order[dealt + 1 :], [order[dealt]], [])

    def _start_hand(
        self,
        hand_number: int,
        dealer: int,
        hands: list[list[int]],
        stock: list[int],
        pile: list[int],
        table: list[TableMeld],
    ) -> None:
        """Hand-level state; the seat left of the dealer starts at its draw step."""
        players = self.rules.players
        self.phase = DRAW
        self.hand_number = hand_number
        self.dealer = dealer
        self.to_play = (dealer + 1) % players
        self.turn = 0
        self.hands = hands
        self.stock = stock  # top card first
        self.pile = pile  # oldest first, top card last
        self.table = table  # oldest meld first
        self.known: list[list[int]] = [[] for _ in range(players)]
        self.melded = [False] * players
        self._start_turn_state()

    def _start_turn_state(self) -> None:
        """What a turn remembers about its own draw."""
        self.owed: int | None = None  # card the next meld or lay-off must contain
        self.no_discard: int | None = None  # card taken by `take 1`: not to be discarded
        self.drew_last_stock = False  # this turn's `draw` emptied the stock

    # Legal actions --------------------------------------------------------------------

    def legal_actions(self) -> list[str]:
        """Canonical texts of every legal action, sorted; [] once the hand is over."""
        if self.phase == DRAW:
            return sorted(self._draw_actions())
        if self.phase == PLAY:
            return sorted(self._play_actions())
        return []

    def _draw_actions(self) -> set[str]:
        actions = {"draw"} if self.stock else {"end"}
        actions.update(f"take {d}" for d in range(1, len(self.pile) + 1) if self._may_take(d))
        return actions

    def _may_take(self, depth: int) -> bool:
        """``take depth``: the top card freely (unless it must be melded), deeper by digging."""
        if depth >= 2 and not self.rules.dig:
            return False
        if depth == 1 and not self.rules.top_card_must_meld:
            return True
        return self._can_play_after_taking(depth)

    def _can_play_after_taking(self, depth: int) -> bool:
        """Whether the deepest card taken could be melded or laid off this turn."""
        seat, taken = self.to_play, self.pile[-depth:]
        card = taken[0]
        available = set(self.hands[seat]) | set(taken)
        hand_size = len(self.hands[seat]) + depth
        for pattern in self.patterns.values():
            if (
                card in pattern.cards
                and available.issuperset(pattern.cards)
                and self._meld_size_ok(len(pattern.cards), hand_size)
            ):
                return True
        return self._may_lay_off(seat, hand_size) and any(
            self._oldest_fitting(card, end) is not None for end in LAYOFF_ENDS
        )

    def _play_actions(self) -> set[str]:
        seat, hand = self.to_play, self.hands[self.to_play]
        in_hand = set(hand)
        actions = {
            pattern.text
            for pattern in self.patterns.values()
            if in_hand.issuperset(pattern.cards)
            and self._meld_size_ok(len(pattern.cards), len(hand))
            and (self.owed is None or self.owed in pattern.cards)
        }
        if self._may_lay_off(seat, len(hand)):
            actions.update(
                f"layoff {card_text(card)} {end}"
                for card in in_hand
                if self.owed is None or card == self.owed
                for end in LAYOFF_ENDS
                if self._oldest_fitting(card, end) is not None
            )
        if self.owed is None:
            actions.update(f"discard {card_text(c)}" for c in in_hand if self._may_discard(c))
        return actions

    def _meld_size_ok(self, meld_size: int, hand_size: int) -> bool:
        """Under discard_required a meld must leave a card to discard."""
        return not self.rules.discard_required or meld_size < hand_size

    def _may_lay_off(self, seat: int, hand_size: int) -> bool:
        """discard_required keeps a card for the discard; layoff_requires_meld a meld first."""
        if self.rules.discard_required and hand_size < 2:
            return False
        return not self.rules.layoff_requires_meld or self.melded[seat]

    def _may_discard(self, card: int) -> bool:
        """Not the card taken by ``take 1``, unless the hand holds nothing else."""
        hand = self.hands[self.to_play]
        return card != self.no_discard or all(c == card for c in hand)

    def _oldest_fitting(self, card: int, end: str) -> TableMeld | None:
        """The oldest table meld ``layoff card end`` fits, if any."""
        return next((m for m in self.table if m.fits(self.rules, card, end)), None)

    # Applying actions -----------------------------------------------------------------

    def apply(self, action: str) -> None:
        """Play one action (canonical text). ValueError, state unchanged, if it is illegal."""
        legal = self.legal_actions()
        if action not in legal:
            raise ValueError(
                f"illegal action {action!r} for seat {self.to_play} in phase {self.phase}; "
                f"legal: {', '.join(legal) if legal else 'none'}"
            )
        verb, *args = action.split()
        if verb == "draw":
            self._draw()
        elif verb == "take":
            self._take(int(args[0]))
        elif verb == "end":
            self._end_hand(went_out=None)
        elif verb == "meld":
            self._meld(tuple(parse_card(a) for a in args))
        elif verb == "layoff":
            self._lay_off(parse_card(args[0]), args[1])
        else:
            self._discard(parse_card(args[0]))

    def _draw(self) -> None:
        self.hands[self.to_play].append(self.stock.pop(0))
        self.drew_last_stock = not self.stock
        self.phase = PLAY

    def _take(self, depth: int) -> None:
        """Take the top ``depth`` pile cards; they become known to be in this hand."""
        seat, taken = self.to_play, self.pile[-depth:]
        del self.pile[-depth:]
        self.hands[seat].extend(taken)
        self.known[seat].extend(taken)
        if depth == 1:
            self.no_discard = taken[0]
            if self.rules.top_card_must_meld:
                self.owed = taken[0]
        else:
            self.owed = taken[0]
        self.phase = PLAY

    def _meld(self, cards: tuple[int, ...]) -> None:
        seat = self.to_play
        for card in cards:
            self._play_from_hand(card)
        self.table.append(TableMeld(self.patterns[cards].kind, list(cards), [seat] * len(cards)))
        self.melded[seat] = True
        if self.owed in cards:
            self.owed = None
        self._after_emptying_play()

    def _lay_off(self, card: int, end: str) -> None:
        meld = self._oldest_fitting(card, end)
        assert meld is not None  # the action was legal
        self._play_from_hand(card)
        meld.add(card, end, self.to_play)
        if self.owed == card:
            self.owed = None
        self._after_emptying_play()

    def _discard(self, card: int) -> None:
        self._play_from_hand(card)
        self.pile.append(card)
        if self.hands[self.to_play]:
            self._finish_turn()
        else:
            self._end_hand(went_out=self.to_play)

    def _play_from_hand(self, card: int) -> None:
        """Move one copy of ``card`` out of the hand; it is no longer known to be there."""
        seat = self.to_play
        self.hands[seat].remove(card)
        if card in self.known[seat]:
            self.known[seat].remove(card)

    def _after_emptying_play(self) -> None:
        """A meld or lay-off that empties the hand goes out and ends the hand at once."""
        if not self.hands[self.to_play]:
            self._end_hand(went_out=self.to_play)

    def _finish_turn(self) -> None:
        """After a discard that leaves cards: the guards may end the hand, else pass left."""
        self.turn += 1
        last_draw = self.rules.stock_out == "last_draw" and self.drew_last_stock
        if self.turn == self.rules.max_turns or last_draw:
            self._end_hand(went_out=None)
            return
        self.to_play = (self.to_play + 1) % self.rules.players
        self.phase = DRAW
        self._start_turn_state()

    # End of a hand, end of the game ---------------------------------------------------

    def _end_hand(self, went_out: int | None) -> None:
        """Score the hand, decide the game, and deal on (auto-deal games) if it goes on."""
        self._start_turn_state()
        self.hand_scores = self._score_hand()
        self.totals = [t + s for t, s in zip(self.totals, self.hand_scores, strict=True)]
        self.winner = self._winner(went_out)
        self.truncated = self.winner is None and self.hand_number + 1 >= self.rules.max_hands
        if self.winner is not None or self.truncated:
            self.phase = GAME_OVER
        elif self.auto_deal:
            self._deal(self.hand_number + 1)
        else:
            self.phase = HAND_OVER

    def _score_hand(self) -> list[int]:
        """Per seat: points of the table cards it laid, minus the points left in its hand."""
        rules = self.rules
        scores = [0] * rules.players
        for meld in self.table:
            for seat, points in zip(meld.by, meld.points(rules), strict=True):
                scores[seat] += points
        for seat, hand in enumerate(self.hands):
            scores[seat] -= sum(rank_points(rank_of(c), rules.pip_values) for c in hand)
        return scores

    def _winner(self, went_out: int | None) -> int | None:
        """The seat that wins with this hand's totals, or None if the game goes on."""
        target = self.rules.target
        if self.rules.go_out_to_win:
            if went_out is not None and self.totals[went_out] >= target:
                return went_out
            return None
        best = max(self.totals)
        leaders = [seat for seat, total in enumerate(self.totals) if total == best]
        return leaders[0] if best >= target and len(leaders) == 1 else None

    # Observation ----------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """The whole state as JSON-able values (card texts; hands sorted by card id)."""
        return {
            "phase": self.phase,
            "to_play": self.to_play,
            "dealer": self.dealer,
            "hand_number": self.hand_number,
            "turn": self.turn,
            "hands": [_sorted_texts(hand) for hand in self.hands],
            "stock": [card_text(c) for c in self.stock],
            "stock_size": len(self.stock),
            "discard": [card_text(c) for c in self.pile],
            "melds": [
                {"cards": [card_text(c) for c in m.cards], "by": list(m.by)} for m in self.table
            ],
            "known": [_sorted_texts(cards) for cards in self.known],
            "melded": list(self.melded),
            "owed": None if self.owed is None else card_text(self.owed),
            "no_discard": None if self.no_discard is None else card_text(self.no_discard),
            "totals": list(self.totals),
            "hand_scores": None if self.hand_scores is None else list(self.hand_scores),
            "hand_over": self.phase in (HAND_OVER, GAME_OVER),
            "game_over": self.phase == GAME_OVER,
            "winner": self.winner,
            "truncated": self.truncated,
            "legal": self.legal_actions(),
        }


# Helpers ----------------------------------------------------------------------------


def _check_supported(rules: Rules) -> None:
    """Refuse the variants this engine does not implement yet."""
    unsupported = [
        name
        for name, asked in (
            ("jokers", rules.jokers > 0),
            ("floating", rules.floating),
            ("joker_swap", rules.joker_swap),
            ("rummy_call", rules.rummy_call),
        )
        if asked
    ]
    if unsupported:
        raise NotImplementedError(
            f"the reference engine does not implement {', '.join(unsupported)} yet; "
            "turn these rules off (jokers: 0, floating/joker_swap/rummy_call: false)"
        )


def _sorted_texts(cards: list[int]) -> list[str]:
    return [card_text(c) for c in sorted(cards)]


def _parse_cards(texts: Any) -> list[int]:
    """Card ids of a list of card texts; ValueError for anything not in this game's deck."""
    if not isinstance(texts, list):
        raise ValueError(f"position: expected a list of card texts, got {texts!r}")
    cards = []
    for text in texts:
        try:
            card = parse_card(text) if isinstance(text, str) else -1
        except ValueError as exc:
            raise ValueError(f"position: {exc}") from None
        if not 0 <= card < N_NATURAL:
            raise ValueError(f"position: unknown card {text!r} (this game has no jokers)")
        cards.append(card)
    return cards


def _parse_table_meld(rules: Rules, meld: Any) -> TableMeld:
    """A table meld of the position; its cards must be an allowed pattern in print order."""
    if not isinstance(meld, dict) or "cards" not in meld or "by" not in meld:
        raise ValueError(f"position: a meld needs 'cards' and 'by', got {meld!r}")
    cards = _parse_cards(meld["cards"])
    pattern = meld_patterns(rules).get(tuple(cards))
    if pattern is None:
        raise ValueError(
            f"position: meld {meld['cards']} is not a valid meld under these rules "
            "(cards must be in print order)"
        )
    by = meld["by"]
    if len(by) != len(cards) or not all(_is_int(s) and 0 <= s < rules.players for s in by):
        raise ValueError(f"position: meld {meld['cards']} needs one seat per card in 'by'")
    return TableMeld(pattern.kind, cards, list(by))


def _check_copies(rules: Rules, groups: list[list[int]]) -> None:
    """No card may appear more often than there are decks."""
    counts = Counter(card for group in groups for card in group)
    for card, count in sorted(counts.items()):
        if count > rules.n_decks:
            raise ValueError(
                f"position: card {card_text(card)} is given {count} times "
                f"in a {rules.n_decks}-deck game"
            )

"""Scalar reference engine: one game of Rummy 500, written to be read.

This module is the project's executable rule book (docs/rules.md and the rulings of
``docs/rules.md``) and the oracle that the vectorized core is tested against. It
favours plain Python over speed: hands are lists of card ids (a two-deck game simply
holds an id twice; the joker is id 52), the stock is a list with its top card first,
the discard pile a list with its top card last, and every rule lives in one small,
named method.

A game moves through these phases:

    draw       the seat to play starts its turn: ``draw``, ``take D``, or ``end``
    play       after the draw: ``meld ...``, ``layoff C set|up|down``, ``swap C``,
               ``discard C``
    call       a rummy-call window (``rummy_call``): the asked seat says ``call`` or
               ``pass``
    call_play  the caller melds and lays off, then says ``done``
    hand_over  the hand ended and the game did not (positions only: no next deal)
    game_over  somebody won, or the game hit ``max_hands`` (truncated)

``to_play`` is always the seat that must act: the seat whose turn it is, or during a
call window the asked seat, then the caller.

Jokers. A meld or lay-off names the cards it makes (``meld 5H 6H 7H``); the player's
natural cards are used first and a joker from the hand fills in each named card the
player lacks. On the table a joker is a slot of its meld flagged as a joker, declared
for good as the card of that slot (printed ``JK=6H``).

>>> game = ReferenceGame(Rules(), seed=1)
>>> game.legal_actions()[:2]
['draw', 'take 1']
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from rummy_env.core import (
    JOKER,
    KIND_SET,
    LAYOFF_DIRECTIONS,
    N_NATURAL,
    N_RANKS,
    N_SUITS,
    Rules,
    card_id,
    card_text,
    dealer_of_hand,
    game_keys,
    parse_card,
    rank_of,
    rank_points,
    suit_of,
)
from rummy_env.core.deal import shuffled_decks
from rummy_env.core.patterns import PATTERN_KIND
from rummy_env.core.position import parse_position

DRAW = "draw"
PLAY = "play"
CALL = "call"
CALL_PLAY = "call_play"
HAND_OVER = "hand_over"
GAME_OVER = "game_over"
LIVE_PHASES = (DRAW, PLAY, CALL, CALL_PLAY)

SET = "set"
RUN = "run"

JOKER_IN_HAND_DECLARED = 15
"""Under ``joker_value: declared`` a joker left in hand costs 15."""


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
    if rules.wrap:
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


@cache
def patterns_holding(rules: Rules) -> dict[int, list[Pattern]]:
    """The allowed patterns that hold each natural card (a shortcut for owed cards)."""
    holding: dict[int, list[Pattern]] = {card: [] for card in range(N_NATURAL)}
    for pattern in meld_patterns(rules).values():
        for card in pattern.cards:
            holding[card].append(pattern)
    return holding


# The table --------------------------------------------------------------------------


@dataclass
class TableMeld:
    """A meld on the table: cards in print order and, per card, the seat that laid it.

    ``cards`` holds the card each slot stands for; ``jokers`` flags the slots filled by
    a joker (declared as that slot's card).
    """

    kind: str
    cards: list[int]
    by: list[int]
    jokers: list[bool]

    def accepts(self, rules: Rules, end: str) -> int | None:
        """The card that ``layoff C end`` may add to this meld, or None."""
        if end == "set":
            if self.kind != SET or len(self.cards) != 3:
                return None
            suits = {suit_of(c) for c in self.cards}
            missing = next(s for s in range(N_SUITS) if s not in suits)
            return card_id(missing, rank_of(self.cards[0]))
        if self.kind != RUN:
            return None
        suit, start, length = suit_of(self.cards[0]), rank_of(self.cards[0]), len(self.cards)
        if end == "up":
            top = (start + length) % N_RANKS
            return card_id(suit, top) if run_allowed(rules, start, length + 1) else None
        # Down from an ace the new start is the king (rank 12): only wrap allows that.
        new_start = (start - 1) % N_RANKS
        return card_id(suit, new_start) if run_allowed(rules, new_start, length + 1) else None

    def add(self, card: int, end: str, seat: int, joker: bool) -> None:
        """Lay ``card`` (or a joker declared as it) off at ``end``; it scores for ``seat``."""
        if end == "set":
            at = sum(suit_of(c) < suit_of(card) for c in self.cards)
        elif end == "up":
            at = len(self.cards)
        else:
            at = 0
        self.cards.insert(at, card)
        self.by.insert(at, seat)
        self.jokers.insert(at, joker)

    def texts(self) -> list[str]:
        """Card texts in print order; a joker prints as ``JK=<declared card>``."""
        return [
            f"JK={card_text(c)}" if joker else card_text(c)
            for c, joker in zip(self.cards, self.jokers, strict=True)
        ]

    def points(self, rules: Rules) -> list[int]:
        """Points of each card.

        An ace that starts a run (A-2-3...) is a low ace. A joker scores
        ``joker_value``, or under ``declared`` exactly as the card it stands for.
        """
        points = []
        for at, (card, joker) in enumerate(zip(self.cards, self.jokers, strict=True)):
            if joker and rules.joker_value != "declared":
                points.append(int(rules.joker_value))
            elif at == 0 and self.kind == RUN and rank_of(card) == 0:
                points.append(rules.low_ace_value)
            else:
                points.append(rank_points(rank_of(card), rules.pip_values))
        return points


# The game ---------------------------------------------------------------------------


class ReferenceGame:
    """One game, stepped by canonical action texts (the action texts of docs/rules.md).

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
        pos = parse_position(position)
        game = cls.__new__(cls)
        game._start_game(pos.rules, auto_deal=False)
        table = [
            TableMeld(
                SET if PATTERN_KIND[m.pattern] == KIND_SET else RUN,
                list(m.cards),
                list(m.by),
                list(m.jokers),
            )
            for m in pos.melds
        ]
        game.totals = list(pos.totals)
        players = pos.rules.players
        game._start_hand(
            pos.hand_number,
            (pos.to_play - 1) % players,
            [list(h) for h in pos.hands],
            list(pos.stock),
            list(pos.discard),
            table,
        )
        # A seat that laid any card on the table counts as having melded this hand.
        game.melded = [any(seat in m.by for m in table) for seat in range(players)]
        return game

    # Set-up ---------------------------------------------------------------------------

    def _start_game(self, rules: Rules, auto_deal: bool) -> None:
        """Game-level state: totals and the result so far."""
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
        self.hand_number = hand_number
        self.dealer = dealer
        self.turn = 0
        self.hands = hands
        self.stock = stock  # top card first
        self.pile = pile  # oldest first, top card last
        self.table = table  # oldest meld first
        self.known: list[list[int]] = [[] for _ in range(players)]
        self.melded = [False] * players
        self.call_from: int | None = None  # the discarder whose discard opened a call window
        self._begin_turn((dealer + 1) % players)

    def _begin_turn(self, seat: int) -> None:
        """``seat`` starts its turn at the draw step."""
        self.phase = DRAW
        self.current_player = seat
        self._clear_turn_state()
        # Under floating: a player who starts the turn with an empty hand goes out by
        # emptying it again (a meld then ends the hand instead of floating once more).
        self.started_floating = not self.hands[seat]

    def _clear_turn_state(self) -> None:
        """What a turn (or a call) remembers about its own draw."""
        self.owed: int | None = None  # card the next meld or lay-off must play
        self.no_discard: int | None = None  # card taken by `take 1`: not to be discarded
        self.taken: list[int] = []  # cards taken from the pile this turn (`keep_taken`)
        self.dug = False  # the owed card was dug (`take d`, d >= 2)
        self.drew_last_stock = False  # this turn's `draw` emptied the stock

    # Legal actions --------------------------------------------------------------------

    def legal_actions(self) -> list[str]:
        """Canonical texts of every legal action, sorted; [] once the hand is over."""
        if self.phase == DRAW:
            return sorted(self._draw_actions())
        if self.phase == PLAY:
            return sorted(self._play_actions())
        if self.phase == CALL:
            return ["call", "pass"]
        if self.phase == CALL_PLAY:
            return sorted(self._call_play_actions())
        return []

    def _draw_actions(self) -> set[str]:
        actions = {"draw"} if self.stock else {"end"}
        actions.update(f"take {d}" for d in range(1, len(self.pile) + 1) if self._may_take(d))
        return actions

    def _may_take(self, depth: int) -> bool:
        """``take depth``: the top card freely (unless it must be melded), deeper by digging.

        A card that must be played this turn (the deepest card of a dig, or the top
        card under ``top_card_must_meld``) may be taken only if the hand it joins can
        then meld or lay it off, or (``dig_swap``, digs only) swap it for a table joker.
        """
        if depth >= 2 and not self.rules.dig:
            return False
        if depth == 1 and not self.rules.top_card_must_meld:
            return True
        seat, taken = self.current_player, self.pile[-depth:]
        if depth >= 2 and self.rules.dig_swap and self._oldest_joker_as(taken[0]) is not None:
            return True
        return self._can_play_card(seat, self.hands[seat] + taken, taken[0])

    def _play_actions(self) -> set[str]:
        """After the draw: melds and lay-offs; with no card owed, swaps and discards.

        Under ``dig_swap`` a dug card still owed may also be swapped for a table joker.
        """
        seat, hand = self.current_player, self.hands[self.current_player]
        actions = self._meld_and_layoff_actions(seat, hand, self.owed)
        if self.owed is None:
            actions.update(f"discard {card_text(c)}" for c in set(hand) if self._may_discard(c))
            if self.rules.joker_swap:
                actions.update(
                    f"swap {card_text(c)}"
                    for c in set(hand)
                    if c != JOKER and self._oldest_joker_as(c) is not None
                )
        elif self.rules.dig_swap and self.dug and self._oldest_joker_as(self.owed) is not None:
            actions.add(f"swap {card_text(self.owed)}")
        return actions

    def _call_play_actions(self) -> set[str]:
        """The caller plays the called card first, may meld and lay off more, then ``done``."""
        seat = self.current_player
        actions = self._meld_and_layoff_actions(seat, self.hands[seat], self.owed)
        if self.owed is None:
            actions.add("done")
        return actions

    def _meld_and_layoff_actions(self, seat: int, hand: list[int], owed: int | None) -> set[str]:
        """Melds and lay-offs ``seat`` may make from ``hand`` (each playing ``owed``, if set)."""
        actions = {
            pattern.text
            for pattern in self._melds(hand, owed)
            if self._meld_size_ok(len(pattern.cards), len(hand))
        }
        if self._may_lay_off(seat, len(hand)):
            actions.update(
                f"layoff {card_text(card)} {end}" for card, end in self._layoffs(hand, owed)
            )
        return actions

    def _can_play_card(self, seat: int, hand: list[int], card: int) -> bool:
        """Whether ``seat``, holding ``hand``, could meld or lay off ``card`` at once.

        Used for a dug card, the top card under ``top_card_must_meld`` and a rummy call:
        ``hand`` is the hand after taking ``card``, which is then owed.
        """
        return bool(self._meld_and_layoff_actions(seat, hand, card))

    def _melds(self, cards: list[int], owed: int | None) -> Iterator[Pattern]:
        """The allowed patterns ``cards`` can make, jokers filling the cards they lack.

        A pattern is possible when the cards lacking from ``cards`` are no more than its
        jokers and, in a one-deck game, none of them is already on the table. With a
        card owed only melds that play it: a natural owed card must be in the pattern;
        an owed joker must fill in for a lacking card.
        """
        naturals = set(cards)
        jokers = cards.count(JOKER)
        on_table = self._cards_on_table_one_deck()
        if owed is None or owed == JOKER:
            candidates = list(self.patterns.values())
        else:
            candidates = patterns_holding(self.rules)[owed]
        for pattern in candidates:
            lacking = [c for c in pattern.cards if c not in naturals]
            if len(lacking) > jokers or on_table.intersection(lacking):
                continue
            if owed == JOKER and not lacking:
                continue
            yield pattern

    def _layoffs(self, cards: list[int], owed: int | None) -> Iterator[tuple[int, str]]:
        """(card, end) lay-offs that ``cards`` can make on the table.

        The natural card if held, otherwise a joker declared as it (in a one-deck game
        not a card already on the table). With a card owed: a natural owed card must be
        the card laid off; an owed joker must be the one laid off (a card not held).
        """
        naturals = set(cards)
        has_joker = JOKER in naturals
        on_table = self._cards_on_table_one_deck()
        targets = {
            (card, end)
            for meld in self.table
            for end in LAYOFF_DIRECTIONS
            if (card := meld.accepts(self.rules, end)) is not None
        }
        for card, end in targets:
            natural = card in naturals
            if not natural and not (has_joker and card not in on_table):
                continue
            if owed is None or card == owed or (owed == JOKER and not natural):
                yield card, end

    def _cards_on_table_one_deck(self) -> set[int]:
        """Cards a joker may not be declared as: those on the table, in a one-deck game."""
        if self.rules.n_decks > 1:
            return set()
        return {card for meld in self.table for card in meld.cards}

    def _meld_size_ok(self, meld_size: int, hand_size: int) -> bool:
        """Under discard_required a meld must leave a card to discard."""
        return not self.rules.discard_required or meld_size < hand_size

    def _may_lay_off(self, seat: int, hand_size: int) -> bool:
        """discard_required keeps a card for the discard; layoff_requires_meld a meld first."""
        if self.rules.discard_required and hand_size < 2:
            return False
        return not self.rules.layoff_requires_meld or self.melded[seat]

    def _may_discard(self, card: int) -> bool:
        """Not the card taken by ``take 1``, unless the hand holds nothing else.

        Under ``keep_taken``: no card with the text of a card taken this turn (by any
        ``take``), unless every card in hand has such a text.
        """
        hand = self.hands[self.current_player]
        if self.rules.keep_taken:
            held_back = set(self.taken)
            return card not in held_back or all(c in held_back for c in hand)
        return card != self.no_discard or all(c == card for c in hand)

    def _oldest_accepting(self, card: int, end: str) -> TableMeld | None:
        """The oldest table meld ``layoff card end`` fits, if any."""
        return next((m for m in self.table if m.accepts(self.rules, end) == card), None)

    def _oldest_joker_as(self, card: int) -> tuple[TableMeld, int] | None:
        """(meld, slot) of the oldest table joker declared as ``card``, if any."""
        for meld in self.table:
            for slot, (declared, joker) in enumerate(zip(meld.cards, meld.jokers, strict=True)):
                if joker and declared == card:
                    return meld, slot
        return None

    # Applying actions -----------------------------------------------------------------

    def apply(self, action: str) -> None:
        """Play one action (canonical text). ValueError, state unchanged, if it is illegal."""
        legal = self.legal_actions()
        if action not in legal:
            raise ValueError(
                f"illegal action {action!r} for seat {self.current_player} in phase {self.phase}; "
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
        elif verb == "swap":
            self._swap(parse_card(args[0]))
        elif verb == "discard":
            self._discard(parse_card(args[0]))
        elif verb == "call":
            self._call()
        elif verb == "pass":
            self._pass()
        else:
            self._done()

    def _draw(self) -> None:
        self.hands[self.current_player].append(self.stock.pop(0))
        self.drew_last_stock = not self.stock
        self.phase = PLAY

    def _take(self, depth: int) -> None:
        """Take the top ``depth`` pile cards; they become known to be in this hand."""
        seat, taken = self.current_player, self.pile[-depth:]
        del self.pile[-depth:]
        self.hands[seat].extend(taken)
        self.known[seat].extend(taken)
        self.taken.extend(taken)
        self.dug = depth >= 2
        if depth == 1:
            self.no_discard = taken[0]
            if self.rules.top_card_must_meld:
                self.owed = taken[0]
        else:
            self.owed = taken[0]
        self.phase = PLAY

    def _meld(self, cards: tuple[int, ...]) -> None:
        """Lay a new meld: natural cards where held, a joker for each card lacking."""
        seat = self.current_player
        jokers = [card not in self.hands[seat] for card in cards]
        for card, joker in zip(cards, jokers, strict=True):
            self._play_from_hand(JOKER if joker else card)
        kind = self.patterns[cards].kind
        self.table.append(TableMeld(kind, list(cards), [seat] * len(cards), jokers))
        self.melded[seat] = True
        if self.owed in cards or (self.owed == JOKER and any(jokers)):
            self.owed = None
        self._after_meld_or_layoff()

    def _lay_off(self, card: int, end: str) -> None:
        """Add the natural ``card`` if held, else a joker declared as it, to the oldest fit."""
        meld = self._oldest_accepting(card, end)
        assert meld is not None  # the action was legal
        joker = card not in self.hands[self.current_player]
        self._play_from_hand(JOKER if joker else card)
        meld.add(card, end, self.current_player, joker)
        if self.owed == (JOKER if joker else card):
            self.owed = None
        self._after_meld_or_layoff()

    def _swap(self, card: int) -> None:
        """The natural ``card`` replaces the oldest table joker declared as it.

        It keeps the joker's ``by`` (it scores for whoever laid the joker); the joker
        goes to the player's hand, known to all. The hand size does not change.
        Swapping the owed dug card (``dig_swap``) settles the obligation.
        """
        found = self._oldest_joker_as(card)
        assert found is not None  # the action was legal
        meld, slot = found
        seat = self.current_player
        self._play_from_hand(card)
        meld.jokers[slot] = False
        self.hands[seat].append(JOKER)
        self.known[seat].append(JOKER)
        if self.owed == card:
            self.owed = None

    def _discard(self, card: int) -> None:
        """Discarding the last card goes out (even while floating); else the turn ends."""
        self._play_from_hand(card)
        self.pile.append(card)
        if self.hands[self.current_player]:
            self._end_turn(after_discard=True)
        else:
            self._end_hand(went_out=self.current_player)

    def _play_from_hand(self, card: int) -> None:
        """Move one copy of ``card`` out of the hand; it is no longer known to be there."""
        seat = self.current_player
        self.hands[seat].remove(card)
        if card in self.known[seat]:
            self.known[seat].remove(card)

    def _after_meld_or_layoff(self) -> None:
        """A meld or lay-off that empties the hand.

        In a turn: the player goes out and the hand ends, or under ``floating`` the
        player floats, which ends the turn at once (unless the player started this
        turn floating: then the hand ends). A caller who empties the hand still says
        ``done`` first.
        """
        seat = self.current_player
        if self.hands[seat] or self.phase == CALL_PLAY:
            return
        if self.rules.floating and not self.started_floating:
            self._end_turn(after_discard=False)
        else:
            self._end_hand(went_out=seat)

    def _end_turn(self, after_discard: bool) -> None:
        """A finished turn (a discard that leaves cards, or a float).

        The guards may end the hand (``max_turns``, ``last_draw``); otherwise a discard
        may open a call window, and else play passes left.
        """
        self.turn += 1
        last_draw = self.rules.stock_out == "last_draw" and self.drew_last_stock
        if self.turn == self.rules.max_turns or last_draw:
            self._end_hand(went_out=None)
            return
        if after_discard and self._open_call_window():
            return
        self._begin_turn((self.current_player + 1) % self.rules.players)

    # Rummy calls ----------------------------------------------------------------------

    def _open_call_window(self) -> bool:
        """After a discard (``rummy_call``): ask the first seat that could call it.

        A window opens only when the discarded card could be laid off on a table meld
        or melded with cards in the pile (pile jokers fill in), and some seat could
        call it. Returns whether a window opened.
        """
        if not self.rules.rummy_call:
            return False
        card = self.pile[-1]
        playable = any(True for _ in self._melds(self.pile, card)) or any(
            True for _ in self._layoffs([card], card)
        )
        if not playable:
            return False
        discarder = self.current_player
        caller = self._next_caller(discarder, after=discarder)
        if caller is None:
            return False
        self.call_from = discarder
        self.phase = CALL
        self.current_player = caller
        self._clear_turn_state()
        return True

    def _next_caller(self, discarder: int, after: int) -> int | None:
        """The next seat after ``after`` (going left, before the discarder) that may call."""
        players, card = self.rules.players, self.pile[-1]
        seat = (after + 1) % players
        while seat != discarder:
            if self._may_call(seat, card):
                return seat
            seat = (seat + 1) % players
        return None

    def _may_call(self, seat: int, card: int) -> bool:
        """A seat with cards (not floating) that could meld or lay off ``card`` at once."""
        hand = self.hands[seat]
        return bool(hand) and self._can_play_card(seat, hand + [card], card)

    def _call(self) -> None:
        """The caller takes the discarded card (known) and owes it: it must be played first."""
        seat, card = self.current_player, self.pile.pop()
        self.hands[seat].append(card)
        self.known[seat].append(card)
        self.owed = card
        self.phase = CALL_PLAY

    def _pass(self) -> None:
        """Ask the next seat that may call, or close the window."""
        assert self.call_from is not None
        caller = self._next_caller(self.call_from, after=self.current_player)
        if caller is None:
            self._close_call_window()
        else:
            self.current_player = caller

    def _done(self) -> None:
        """The caller is done: a caller with no cards left goes out (or floats)."""
        caller = self.current_player
        if not self.hands[caller] and not self.rules.floating:
            self._end_hand(went_out=caller)
        else:
            self._close_call_window()

    def _close_call_window(self) -> None:
        """Play goes on with the seat left of the discarder."""
        assert self.call_from is not None
        discarder, self.call_from = self.call_from, None
        self._begin_turn((discarder + 1) % self.rules.players)

    # End of a hand, end of the game ---------------------------------------------------

    def _end_hand(self, went_out: int | None) -> None:
        """Score the hand, decide the game, and deal on (auto-deal games) if it goes on."""
        self._clear_turn_state()
        self.call_from = None
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
            scores[seat] -= sum(self._cost_in_hand(c) for c in hand)
        return scores

    def _cost_in_hand(self, card: int) -> int:
        """What a card left in hand costs; a joker its value (15 under ``declared``)."""
        if card == JOKER:
            value = self.rules.joker_value
            return JOKER_IN_HAND_DECLARED if value == "declared" else int(value)
        return rank_points(rank_of(card), self.rules.pip_values)

    def _winner(self, went_out: int | None) -> int | None:
        """The seat that wins with this hand's totals, or None if the game goes on.

        The game would end when the highest total reaches the target, or in a quick
        game (``game_hands``) after its last hand whatever the totals; it ends if one
        seat leads alone. ``go_out_to_win`` (not in a quick game): the seat that went
        out wins once it has reached the target.
        """
        rules = self.rules
        if rules.go_out_to_win and not rules.game_hands:
            if went_out is not None and self.totals[went_out] >= rules.target:
                return went_out
            return None
        best = max(self.totals)
        leaders = [seat for seat, total in enumerate(self.totals) if total == best]
        if rules.game_hands:
            would_end = self.hand_number + 1 >= rules.game_hands
        else:
            would_end = best >= rules.target
        if rules.tie_break == "lowest_card":
            leaders = self._lowest_card_holders(leaders)
        return leaders[0] if would_end and len(leaders) == 1 else None

    def _lowest_card_holders(self, seats: list[int]) -> list[int]:
        """The seats among ``seats`` whose single lowest card in hand is worth least.

        Cards count as they would cost in hand (an ace 15, a joker its in-hand value);
        a seat holding no card beats any card.
        """

        def lowest(seat: int) -> int:
            return min((self._cost_in_hand(c) for c in self.hands[seat]), default=-1)

        least = min(lowest(seat) for seat in seats)
        return [seat for seat in seats if lowest(seat) == least]

    # Observation ----------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """The whole state as JSON-able values (card texts; hands sorted by card id)."""
        live = self.phase in LIVE_PHASES
        return {
            "phase": self.phase,
            "to_play": self.current_player,
            "dealer": self.dealer,
            "hand_number": self.hand_number,
            "turn": self.turn,
            "hands": [_sorted_texts(hand) for hand in self.hands],
            "stock": [card_text(c) for c in self.stock],
            "stock_size": len(self.stock),
            "discard": [card_text(c) for c in self.pile],
            "melds": [{"cards": m.texts(), "by": list(m.by)} for m in self.table],
            "known": [_sorted_texts(cards) for cards in self.known],
            "melded": list(self.melded),
            "owed": None if self.owed is None else card_text(self.owed),
            "no_discard": None if self.no_discard is None else card_text(self.no_discard),
            "taken": _sorted_texts(list(set(self.taken))),
            "call_from": self.call_from,
            "floating": [live and not hand for hand in self.hands],
            "totals": list(self.totals),
            "hand_scores": None if self.hand_scores is None else list(self.hand_scores),
            "hand_over": self.phase in (HAND_OVER, GAME_OVER),
            "game_over": self.phase == GAME_OVER,
            "winner": self.winner,
            "truncated": self.truncated,
            "legal": self.legal_actions(),
        }


# Helpers ----------------------------------------------------------------------------


def _sorted_texts(cards: list[int]) -> list[str]:
    """Card texts sorted by id: by suit, then rank, jokers last."""
    return [card_text(c) for c in sorted(cards)]

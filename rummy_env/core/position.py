"""Exact positions in and out of the batched core.

``from_position`` builds a one-game ``State`` from a scenario file's position
(docs/rules.md, "Scenario positions": hands, stock top first, discard oldest
first, table melds with who laid each card, totals, hands already played, seat
to play).
``snapshot`` turns one game
of any batch back into plain JSON-able data: the scenario harness prints it and
the differential test compares it with the reference engine's.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, NoReturn

import numpy as np

from .actions import action_layout, pattern_of
from .cards import JOKER, N_RANKS, card_text, count_texts, parse_card
from .lookup import lookup_tables
from .patterns import (
    KIND_RUN,
    KIND_SET,
    PATTERN_CARDS,
    PATTERN_KEY,
    PATTERN_KIND,
    PATTERN_SIZE,
    PATTERN_START,
)
from .rules import Rules, is_int
from .state import PHASE_GAME_OVER, PHASE_HAND_OVER, PHASE_NAMES, State, empty_state, max_melds
from .step import legal_mask
from .view import PlayerView

MAX_TOTAL = 1_000_000
"""Largest running total a position may give (far past any target; the state holds int32)."""


POSITION_KEYS = ("rules", "hands", "stock", "discard", "melds", "totals", "to_play", "hand_number")
SCENARIO_KEYS = ("actions", "expect", "about")
"""The top-level keys of a scenario file (docs/rules.md, "Scenario positions"); any other
is an error."""


class PositionError(ValueError):
    """A position that cannot be set up (unknown card, a card too many, a bad meld...)."""


@dataclass(frozen=True)
class TableMeldSpec:
    """One meld of a position: the card each slot stands for, in print order."""

    pattern: int
    cards: list[int]  # declared cards (a joker's slot holds the card it stands for)
    jokers: list[bool]  # the slot holds a joker
    by: list[int]  # seat that laid each card


@dataclass(frozen=True)
class Position:
    """A scenario position, parsed and checked: what both engines set up from."""

    rules: Rules
    hands: list[list[int]]
    stock: list[int]  # top first
    discard: list[int]  # oldest first
    melds: list[TableMeldSpec]
    totals: list[int]
    to_play: int
    hand_number: int  # hands finished before this one (``game_hands``)


def parse_position(position: Any) -> Position:
    """The position of a scenario file (docs/rules.md, "Scenario positions"), every part
    checked.

    Raises ``PositionError`` with a one-line reason starting ``position:``.
    """
    if not isinstance(position, dict):
        _fail("a position must be a JSON object")
    unknown = sorted(set(position) - set(POSITION_KEYS) - set(SCENARIO_KEYS))
    if unknown:
        _fail(f"unknown key(s) {unknown}; allowed: {list(POSITION_KEYS + SCENARIO_KEYS)}")
    try:
        rules = Rules.from_dict(position.get("rules", {}))
    except ValueError as e:
        _fail(str(e))
    p = rules.players
    hands = position.get("hands")
    if not isinstance(hands, list) or len(hands) != p:
        _fail(f"'hands' must hold one list per seat ({p} seats)")
    hand_cards = [_cards(h, f"hands[{i}]") for i, h in enumerate(hands)]
    stock = _cards(position.get("stock", []), "stock")
    discard = _cards(position.get("discard", []), "discard")
    melds = position.get("melds", [])
    if not isinstance(melds, list):
        _fail("'melds' must be a list")
    if len(melds) > max_melds(rules):
        _fail(f"{len(melds)} melds: a table holds at most {max_melds(rules)}")
    table = [_table_meld(rules, i, meld) for i, meld in enumerate(melds)]
    _check_copies(rules, [c for h in hand_cards for c in h] + stock + discard, table)
    totals = position.get("totals", [0] * p)
    if not (
        isinstance(totals, list)
        and len(totals) == p
        and all(is_int(x) and abs(x) <= MAX_TOTAL for x in totals)
    ):
        _fail(f"'totals' must hold {p} integers within +-{MAX_TOTAL:,}, got {totals!r}")
    to_play = position.get("to_play", 0)
    if not (is_int(to_play) and 0 <= to_play < p):
        _fail(f"'to_play' must be a seat 0..{p - 1}, got {to_play!r}")
    hand_number = position.get("hand_number", 0)
    if not (is_int(hand_number) and 0 <= hand_number < rules.max_hands):
        _fail(
            f"'hand_number' must be the hands already played, 0..{rules.max_hands - 1} "
            f"(max_hands {rules.max_hands}), got {hand_number!r}"
        )
    _check_game_goes_on(rules, totals, hand_number, hand_cards)
    return Position(rules, hand_cards, stock, discard, table, list(totals), to_play, hand_number)


def from_position(position: dict[str, Any]) -> tuple[Rules, State]:
    """(rules, one-game State) for a scenario position, at ``to_play``'s draw step."""
    pos = parse_position(position)
    rules, p = pos.rules, pos.rules.players
    state = empty_state(rules, 1)
    for index, meld in enumerate(pos.melds):
        _place_meld(state, index, meld)
    for seat, cards in enumerate(pos.hands):
        for c in cards:
            state.hand[0, seat, c] += 1
        state.hand_size[0, seat] = len(cards)
    state.stock[0, : len(pos.stock)] = pos.stock[::-1]
    state.stock_size[0] = len(pos.stock)
    state.pile[0, : len(pos.discard)] = pos.discard
    state.pile_size[0] = len(pos.discard)
    state.n_melds[0] = len(pos.melds)
    state.melded[0] = [(state.meld_by[0] == seat).any() for seat in range(p)]
    state.totals[0] = pos.totals
    state.current_player[0] = pos.to_play
    state.dealer[0] = (pos.to_play - 1) % p
    state.hand_number[0] = pos.hand_number
    return rules, state


def _fail(reason: str) -> NoReturn:
    raise PositionError(f"position: {reason}")


def _cards(texts: Any, where: str) -> list[int]:
    if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
        _fail(f"{where} must be a list of card texts")
    try:
        return [parse_card(t) for t in texts]
    except ValueError as e:
        _fail(f"{where}: {e}")


def _table_meld(rules: Rules, index: int, meld: Any) -> TableMeldSpec:
    where = f"melds[{index}]"
    if not isinstance(meld, dict) or "cards" not in meld or "by" not in meld:
        _fail(f"{where} must be an object with 'cards' and 'by'")
    texts = meld["cards"]
    if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
        _fail(f"{where}.cards must be a list of card texts")
    jokers = [t.strip().upper().startswith("JK=") for t in texts]
    cards = _cards([t.strip()[3:] if j else t for t, j in zip(texts, jokers)], f"{where}.cards")
    if JOKER in cards:
        _fail(f"{where}: a joker on the table is written JK=<card>, e.g. JK=6H")
    by = meld["by"]
    if not (
        isinstance(by, list)
        and len(by) == len(cards)
        and all(is_int(s) and 0 <= s < rules.players for s in by)
    ):
        _fail(f"{where}.by must give a seat in 0..{rules.players - 1} for each card")
    try:
        pattern = pattern_of(cards)
    except ValueError as e:
        _fail(f"{where}: {e}")
    printed = PATTERN_CARDS[pattern, : PATTERN_SIZE[pattern]].tolist()
    if cards != printed or not lookup_tables(rules).allowed[pattern]:
        _fail(f"{where}: {' '.join(texts)} is not a meld under these rules (cards in print order)")
    return TableMeldSpec(pattern, cards, jokers, list(by))


def _check_game_goes_on(
    rules: Rules, totals: list[int], hand_number: int, hand_cards: list[list[int]]
) -> None:
    """Refuse a position the game could not reach: a seat without a card where it does
    not float, or a game whose finished hands (``hand_number`` > 0) already ended it (one
    seat alone at the top, past the target or after a quick game's last hand). Totals
    before the first hand are taken as given, a start past the target included: the
    hand's end decides the game from them."""
    empty = [seat for seat, cards in enumerate(hand_cards) if not cards]
    if empty and not rules.floating:
        _fail(f"seat {empty[0]} holds no card: without floating an empty hand ends the hand")
    top = max(totals)
    if hand_number == 0 or totals.count(top) > 1 or rules.go_out_to_win:
        return
    if rules.game_hands and hand_number >= rules.game_hands:
        _fail(
            f"'hand_number' {hand_number}: the quick game of {rules.game_hands} hands ended "
            f"with seat {totals.index(top)} alone at the top"
        )
    if not rules.game_hands and top >= rules.target:
        _fail(
            f"'totals' {totals} after {hand_number} hand(s): seat {totals.index(top)} "
            f"reached the target ({rules.target}) alone, so the game is over"
        )


def _check_copies(rules: Rules, loose: list[int], table: list[TableMeldSpec]) -> None:
    """No card more often than the decks hold; one deck: no card twice on the table
    (a joker may not stand for a card already there)."""
    counts = Counter(loose)
    for meld in table:
        counts.update(JOKER if j else c for c, j in zip(meld.cards, meld.jokers))
    for card, count in sorted(counts.items()):
        limit = rules.n_jokers if card == JOKER else rules.n_decks
        if count > limit:
            _fail(
                f"card {card_text(card)} is given {count} times in a game with {limit} of it "
                f"({rules.n_decks} deck(s), {rules.jokers} joker(s) per deck)"
            )
    if rules.n_decks == 1:
        shown = Counter(c for meld in table for c in meld.cards)
        twice = sorted(c for c, count in shown.items() if count > 1)
        if twice:
            _fail(
                f"{card_text(twice[0])} is on the table twice in a one-deck game "
                "(a joker may not stand for a card already on the table)"
            )


def _place_meld(state: State, index: int, meld: TableMeldSpec) -> None:
    pattern = meld.pattern
    state.meld_kind[0, index] = PATTERN_KIND[pattern]
    state.meld_key[0, index] = PATTERN_KEY[pattern]
    state.meld_start[0, index] = PATTERN_START[pattern]
    state.meld_len[0, index] = PATTERN_SIZE[pattern]
    is_set = PATTERN_KIND[pattern] == KIND_SET
    for card, seat, joker in zip(meld.cards, meld.by, meld.jokers):
        slot = card // N_RANKS if is_set else card % N_RANKS
        state.meld_by[0, index, slot] = seat
        state.meld_joker[0, index, slot] = joker


# ----------------------------------------------------------------------------- snapshots
def meld_cards(state: State | PlayerView, g: int, m: int) -> tuple[list[str], list[int]]:
    """(card texts in print order, seat that laid each) of meld ``m`` of game ``g``: of a
    State, or of a seat's PlayerView (the same meld fields, its seats relative)."""
    kind = int(state.meld_kind[g, m])
    key = int(state.meld_key[g, m])
    by = state.meld_by
    if by is None:
        raise ValueError("a PlayerView made with owners=False does not say who laid a meld")
    if kind == KIND_SET:
        slots = [s for s in range(4) if by[g, m, s] >= 0]
        cards = [s * N_RANKS + key for s in slots]
    elif kind == KIND_RUN:
        start, length = int(state.meld_start[g, m]), int(state.meld_len[g, m])
        slots = [(start + i) % N_RANKS for i in range(length)]
        cards = [key * N_RANKS + r for r in slots]
    else:
        return [], []
    texts = [
        f"JK={card_text(c)}" if state.meld_joker[g, m, s] else card_text(c)
        for c, s in zip(cards, slots)
    ]
    return texts, [int(by[g, m, s]) for s in slots]


def legal_texts(rules: Rules, state: State, g: int, mask: np.ndarray | None = None) -> list[str]:
    """Sorted canonical texts of game ``g``'s legal actions."""
    row = mask[g] if mask is not None else legal_mask(rules, state.select([g]))[0]
    action_ids = action_layout(rules)
    return sorted(action_ids.text(a) for a in np.flatnonzero(row).tolist())


def snapshot(rules: Rules, state: State, g: int = 0, mask: np.ndarray | None = None) -> dict:
    """Game ``g`` as JSON-able data (the harness output keys plus the internal ones)."""
    p = rules.players
    phase = int(state.phase[g])
    hand_over = phase in (PHASE_HAND_OVER, PHASE_GAME_OVER)
    call_from = int(state.call_from[g])
    scored = hand_over or state.hand_number[g] > 0
    winner = int(state.winner[g])

    def card_or_none(c: int) -> str | None:
        return card_text(int(c)) if c >= 0 else None

    return {
        "phase": PHASE_NAMES[phase],
        "to_play": int(state.current_player[g]),
        "dealer": int(state.dealer[g]),
        "hand_number": int(state.hand_number[g]),
        "turn": int(state.turn[g]),
        "hands": [count_texts(state.hand[g, s]) for s in range(p)],
        "stock": [card_text(c) for c in state.stock[g, : state.stock_size[g]][::-1]],
        "stock_size": int(state.stock_size[g]),
        "discard": [card_text(c) for c in state.pile[g, : state.pile_size[g]]],
        "melds": [
            dict(zip(("cards", "by"), meld_cards(state, g, m)))
            for m in range(int(state.n_melds[g]))
        ],
        "known": [count_texts(state.known[g, s]) for s in range(p)],
        "melded": [bool(x) for x in state.melded[g]],
        "owed": card_or_none(state.owed[g]),
        "no_discard": card_or_none(state.no_discard[g]),
        "taken": [card_text(int(c)) for c in np.flatnonzero(state.taken[g])],
        "totals": [int(x) for x in state.totals[g]],
        "hand_scores": [int(x) for x in state.hand_scores[g]] if scored else None,
        "hand_over": hand_over,
        "call_from": call_from if call_from >= 0 else None,
        "floating": [bool(not hand_over and state.hand_size[g, s] == 0) for s in range(p)],
        "game_over": bool(state.game_over[g]),
        "winner": winner if winner >= 0 else None,
        "truncated": bool(state.truncated[g]),
        "legal": legal_texts(rules, state, g, mask),
    }

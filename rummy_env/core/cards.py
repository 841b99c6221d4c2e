"""Cards: integer ids, canonical text, and point values.

A natural card's id is ``suit * 13 + rank`` with ranks ``A 2 ... K`` as 0..12 and
suits in print order ``C D H S`` as 0..3, so sorting ids sorts cards by suit and
then rank (the order hands are printed in). The joker is id 52. With two decks a
card id simply occurs twice: hands are per-id counts.

    id:    0 ........ 12 | 13 ....... 25 | 26 ....... 38 | 39 ....... 51 | 52
    card:  AC 2C ... KC  | AD 2D ... KD  | AH 2H ... KH  | AS 2S ... KS  | JK
"""

from __future__ import annotations

RANKS = "A23456789TJQK"
SUITS = "CDHS"
N_RANKS = 13
N_SUITS = 4
N_NATURAL = 52
JOKER = 52
N_CARD_IDS = 53  # natural cards plus the joker column


def card_id(suit: int, rank: int) -> int:
    """The id of the natural card of this suit (0..3) and rank (0 = ace .. 12 = king)."""
    return suit * N_RANKS + rank


def suit_of(card: int) -> int:
    """Suit index (0..3) of a natural card id."""
    return card // N_RANKS


def rank_of(card: int) -> int:
    """Rank index (0 = ace .. 12 = king) of a natural card id."""
    return card % N_RANKS


def card_text(card: int) -> str:
    """Canonical text of a card id: ``9C``, ``TH``, ``AS``, ``JK``."""
    if card == JOKER:
        return "JK"
    if not 0 <= card < N_NATURAL:
        raise ValueError(f"card id {card} is not in 0..52")
    return RANKS[rank_of(card)] + SUITS[suit_of(card)]


def parse_card(text: str) -> int:
    """Card id of ``9C`` / ``TH`` / ``10H`` / ``JK`` (case-insensitive); ValueError otherwise."""
    t = text.strip().upper()
    if t == "JK":
        return JOKER
    if t.startswith("10"):
        t = "T" + t[2:]
    if len(t) != 2 or t[0] not in RANKS or t[1] not in SUITS:
        raise ValueError(
            f"unknown card {text!r}: expected rank A23456789TJQK (or 10) and suit CDHS, or JK"
        )
    return card_id(SUITS.index(t[1]), RANKS.index(t[0]))


def count_texts(counts) -> list[str]:
    """Texts of the cards in a per-id count vector [53], in id order (jokers last)."""
    return [card_text(c) for c, n in enumerate(counts) for _ in range(int(n))]


def rank_points(rank: int, pip_values: str) -> int:
    """Points of a natural card of this rank, the ace counted high (15)."""
    if rank == 0:
        return 15
    if rank >= 9:  # T J Q K
        return 10
    return 5 if pip_values == "flat5" else rank + 1

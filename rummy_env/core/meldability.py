"""Which melds a set of cards can make, jokers included, for many card sets at once.

Card sets are bool [n, 52] "present" masks of natural cards. Counting a
pattern's cards inside a set is a table lookup by the set's 13-bit mask of one
suit (runs) or 4-bit mask of one rank (sets), so nothing loops over games.

"Blocked" cards (one-deck games with jokers: cards already on the table) may
not be stood for by a joker.
"""

from __future__ import annotations

import numpy as np

from .cards import JOKER, N_NATURAL, N_RANKS
from .lookup import NO_CARD, LookupTables
from .patterns import MAX_PATTERN_CARDS, PATTERN_SIZE

_RANK_BITS = 2.0 ** np.arange(N_RANKS, dtype=np.float32)  # the bit of each rank in a suit mask
_SUIT_BITS = 2.0 ** np.arange(4, dtype=np.float32)  # the bit of each suit in a rank mask


def bit_masks(present: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(suit masks int32 [n, 4] of 13 rank bits, rank masks uint8 [n, 13] of 4 suit bits).

    Each mask is a dot product with powers of two: float32 sums of so few of them are
    exact, and a matrix product is much faster than packing bits along tiny axes."""
    grid = present[:, :N_NATURAL].astype(np.float32).reshape(-1, 4, N_RANKS)
    return (grid @ _RANK_BITS).astype(np.int32), (_SUIT_BITS @ grid).astype(np.uint8)


def clear_of(t: LookupTables, cards: np.ndarray) -> np.ndarray:
    """bool [n, N_PATTERNS]: allowed patterns none of whose cards is in ``cards`` [n, 52]
    (all in the complement: one lookup of ready answers, no counting)."""
    return complete_melds(t, ~cards[:, :N_NATURAL])


def pattern_missing(t: LookupTables, present: np.ndarray) -> np.ndarray:
    """int8 [n, N_PATTERNS]: cards of each pattern not in ``present`` [n, >=52]."""
    suits, ranks = bit_masks(present)
    n = present.shape[0]
    # np.take of whole table rows is much faster than the same fancy indexing.
    return np.concatenate(
        [
            np.take(t.set_missing, ranks, axis=0).reshape(n, -1),
            np.take(t.run_missing, suits, axis=0).reshape(n, -1),
        ],
        axis=1,
    )


def complete_melds(t: LookupTables, present: np.ndarray) -> np.ndarray:
    """bool [n, N_PATTERNS]: allowed patterns all of whose cards are in ``present``
    [n, >=52] (``makeable_melds`` without jokers, one lookup of ready answers)."""
    suits, ranks = bit_masks(present)
    n = present.shape[0]
    return np.concatenate(
        [
            np.take(t.set_complete, ranks, axis=0).reshape(n, -1),
            np.take(t.run_complete, suits, axis=0).reshape(n, -1),
        ],
        axis=1,
    )


def melds_makeable(
    t: LookupTables, present: np.ndarray, jokers: np.ndarray, blocked: np.ndarray | None
) -> np.ndarray:
    """bool [n, P]: ``makeable_melds``' first answer, by one lookup of ready answers per
    (jokers held, mask), for ``jokers`` [n] no more than the deck holds.

    A hand without jokers makes only complete patterns, none of whose cards is stood for,
    so the blocked cards are looked up for the hands that hold jokers alone.
    """
    suits, ranks = bit_masks(present)
    n = present.shape[0]
    held = jokers.astype(np.int32)[:, None]
    ok = np.concatenate(
        [
            np.take(t.set_makeable, ranks + held * t.set_complete.shape[0], axis=0).reshape(n, -1),
            np.take(t.run_makeable, suits + held * t.run_complete.shape[0], axis=0).reshape(n, -1),
        ],
        axis=1,
    )
    if blocked is not None:
        holding = np.flatnonzero(jokers > 0)
        if holding.size:
            ok[holding] &= clear_of(t, blocked[holding] & ~present[holding, :N_NATURAL])
    return ok


def makeable_melds(
    t: LookupTables, present: np.ndarray, jokers: np.ndarray, blocked: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """(bool [n, P] allowed patterns makeable from ``present`` + ``jokers`` wildcards,
    int8 [n, P] jokers each would use). A joker may not stand for a blocked card."""
    missing = pattern_missing(t, present)
    # A pattern misses at most 13 cards: so many jokers compare as int8, which is fast.
    wildcards = np.minimum(jokers, MAX_PATTERN_CARDS).astype(np.int8)
    ok = t.allowed[None, :] & (missing <= wildcards[:, None])
    if blocked is not None:
        ok &= clear_of(t, blocked & ~present[:, :N_NATURAL])
    return ok, missing


def natural_card_meldable(
    t: LookupTables,
    card: np.ndarray,
    present: np.ndarray,
    jokers: np.ndarray,
    blocked: np.ndarray | None,
) -> np.ndarray:
    """bool [n]: natural ``card`` [n] completes an allowed 3-card meld with two cards
    from ``present`` [n, 54], a missing one stood for by one of ``jokers`` [n]."""
    n, width = present.shape
    partners = t.partners[card]  # [n, K, 2], NO_CARD padded (never present, blocked)
    at = np.arange(n)[:, None, None] * width + partners  # flat lookups: much faster
    lacking = ~present.reshape(-1)[at]
    # Tiny trailing axes reduce slowly in numpy: the pair is unrolled, and a pair lacks
    # at most two cards, so the jokers compare as int8.
    first, second = lacking[..., 0], lacking[..., 1]
    ok = first.astype(np.int8) + second <= np.minimum(jokers, 2).astype(np.int8)[:, None]
    ok &= partners[..., 0] != NO_CARD  # padding pairs

    if blocked is not None:
        padded = np.concatenate([blocked, np.ones((n, width - N_NATURAL), bool)], 1)
        stood_for = padded.reshape(-1)[at]
        ok &= ~((first & stood_for[..., 0]) | (second & stood_for[..., 1]))
    return ok.any(axis=1)


def joker_meldable(
    t: LookupTables, present: np.ndarray, other_jokers: np.ndarray, blocked: np.ndarray | None
) -> np.ndarray:
    """bool [n]: a joker completes some allowed 3-card meld in which it stands for a
    card not in ``present``, the rest present or stood for by ``other_jokers``."""
    missing = pattern_missing(t, present)
    three = t.allowed & (PATTERN_SIZE == 3)
    ok = three[None, :] & (missing >= 1) & (missing <= 1 + other_jokers[:, None])
    if blocked is not None:
        ok &= clear_of(t, blocked & ~present[:, :N_NATURAL])
    return ok.any(axis=1)


def joker_layable(
    accepts: np.ndarray, present: np.ndarray, blocked: np.ndarray | None
) -> np.ndarray:
    """bool [n]: some table meld accepts a card (``accepts`` [n, 52]) not in ``present``
    that a joker may stand for."""
    ok = accepts & ~present[:, :N_NATURAL]
    if blocked is not None:
        ok &= ~blocked
    return ok.any(axis=1)


def card_meldable(
    t: LookupTables,
    card: np.ndarray,
    present: np.ndarray,
    jokers: np.ndarray,
    blocked: np.ndarray | None,
) -> np.ndarray:
    """bool [n]: ``card`` (natural or joker) can be melded with ``present`` [n, 54] and
    ``jokers`` [n] wildcards other than the card itself."""
    is_joker = card == JOKER
    if not is_joker.any():  # the common case: no selection needed
        return natural_card_meldable(t, card, present, jokers, blocked)
    out = np.zeros(card.shape[0], bool)
    nat = np.flatnonzero(~is_joker)
    if nat.size:
        out[nat] = natural_card_meldable(
            t, card[nat], present[nat], jokers[nat], None if blocked is None else blocked[nat]
        )
    jk = np.flatnonzero(is_joker)
    if jk.size:
        out[jk] = joker_meldable(
            t, present[jk], jokers[jk], None if blocked is None else blocked[jk]
        )
    return out

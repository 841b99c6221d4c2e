"""Seeded, batch-independent shuffles and deals.

Game ``g`` of a run seeded ``seed`` gets the key ``game_key(seed, g)``; hand ``h`` of
that game is dealt from a deck order that depends only on (key, h) and the rules.
The order comes from a counter-based hash (splitmix64) of (key, h, position), so
the same deal comes out on every machine, alone or inside any batch.
"""

from __future__ import annotations

import numpy as np

from .cards import JOKER, N_NATURAL
from .rules import Rules

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


def splitmix64(x: np.ndarray) -> np.ndarray:
    """The splitmix64 finalizer, elementwise on uint64 (wrapping arithmetic)."""
    x = np.asarray(x, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = x + _GOLDEN
        z = (z ^ (z >> np.uint64(30))) * _M1
        z = (z ^ (z >> np.uint64(27))) * _M2
        return z ^ (z >> np.uint64(31))


MAX_SEED = 2**63 - 1
"""Largest seed: every seed of the project (programs, envs, records) is an integer in
0..MAX_SEED, so a seed written in a record or a report reads back as itself."""


def check_seed(seed: object) -> int:
    """``seed`` as an int; a ValueError naming the range unless it is an integer in
    0..MAX_SEED (not a bool, not a float such as 1.5).

    >>> check_seed(7)
    7
    >>> check_seed(2**64)
    Traceback (most recent call last):
    ...
    ValueError: seed 18446744073709551616 is not allowed: expected an integer in 0..2**63-1
    """
    if (
        isinstance(seed, (int, np.integer))
        and not isinstance(seed, (bool, np.bool_))
        and 0 <= seed <= MAX_SEED
    ):
        return int(seed)
    shown = repr(seed) if len(repr(seed)) <= 40 else repr(seed)[:37] + "..."
    raise ValueError(f"seed {shown} is not allowed: expected an integer in 0..2**63-1")


def game_keys(seed: int, game_ids: np.ndarray) -> np.ndarray:
    """uint64 key of each game of a run: depends on (seed, game id) only."""
    seed_mix = splitmix64(np.uint64(seed % 2**64))
    return splitmix64(seed_mix ^ splitmix64(np.asarray(game_ids, dtype=np.uint64)))


def deck_cards(rules: Rules) -> np.ndarray:
    """Every card of the game's deck(s), ids sorted: int16 [rules.deck_cards]."""
    naturals = np.tile(np.arange(N_NATURAL, dtype=np.int16), rules.n_decks)
    jokers = np.full(rules.n_jokers, JOKER, dtype=np.int16)
    return np.concatenate([naturals, jokers])


def shuffled_decks(rules: Rules, keys: np.ndarray, hand_numbers: np.ndarray) -> np.ndarray:
    """Deck order for hand ``hand_numbers[b]`` of game ``keys[b]``: int16 [B, deck_cards]."""
    deck = deck_cards(rules)
    n = deck.size
    keys = np.asarray(keys, dtype=np.uint64)[:, None]
    hands = np.asarray(hand_numbers, dtype=np.uint64)[:, None]
    with np.errstate(over="ignore"):
        hand_key = splitmix64(keys ^ splitmix64(hands * _GOLDEN + np.uint64(1)))
        noise = splitmix64(hand_key + np.arange(n, dtype=np.uint64)[None, :] * _M2)
    return deck[np.argsort(noise, axis=1, kind="stable")]


def dealer_of_hand(rules: Rules, hand_number: int) -> int:
    """Hand 0 is dealt by seat P-1, so seat 0 plays first; the deal passes left."""
    return (rules.players - 1 + hand_number) % rules.players


def daily_seed(today=None) -> tuple[int, str]:
    """(seed, ISO date) of today's deals in UTC: the seed is the date as YYYYMMDD, so
    everyone who plays or evaluates with ``--daily`` today gets the same deals."""
    import datetime as dt

    day = today or dt.datetime.now(dt.timezone.utc).date()
    return int(day.strftime("%Y%m%d")), day.isoformat()

"""Determinization: complete games that agree with what one seat sees.

A search player cannot see the stock or the other hands, so it plays out
guesses instead. ``sample_worlds(rules, view, n_worlds, rng)`` builds, for
each of the n positions of a ``PlayerView``, ``n_worlds`` complete games (a
batched ``State``, world w of position i at row ``i * n_worlds + w``) in which
everything the seat sees is exactly as seen (its hand, the pile, the table,
hand sizes, the cards each seat is known to hold, totals, phase, turn...) and
the unseen cards are dealt at random to the unknown slots of the other hands
and to the stock. ``player_view`` of any sampled world for that seat equals
the view it came from.

The view covers positions in the draw and play phases (a call window's
bookkeeping is not part of it). Two fields are not in the view and are set
by rule: ``drew_last`` (under ``stock_out: last_draw`` an empty stock in the
play phase means this turn drew its last card) and ``started_floating``
(False). Future deals are unknown: each world gets a fresh random deal key.

``provisional_scores(rules, state)`` gives each seat's score as if the hand
ended now, the leaf value of a search cut off before the hand is over.
"""

from __future__ import annotations

import numpy as np

from .cards import JOKER, N_CARD_IDS, N_RANKS
from .counting import add_at
from .patterns import KIND_SET
from .rules import Rules
from .scoring import hand_points, table_points
from .state import PHASE_DRAW, PHASE_PLAY, State, empty_state
from .view import PlayerView, relative_order


def deck_counts(rules: Rules) -> np.ndarray:
    """int16 [53]: copies of each card id in the game's deck(s)."""
    counts = np.full(N_CARD_IDS, rules.n_decks, np.int16)
    counts[JOKER] = rules.n_jokers
    return counts


def view_table_counts(view: PlayerView) -> np.ndarray:
    """int16 [n, 53]: copies of each card id on the table (a joker counts as a joker)."""
    used = int(view.n_melds.max(initial=0))
    n = view.size
    counts = np.zeros((n, N_CARD_IDS), np.int16)
    if used == 0:
        return counts
    r, m, slot = np.nonzero(view.laid_by()[:, :used] >= 0)
    key = view.meld_key[r, m].astype(np.int64)
    natural = np.where(view.meld_kind[r, m] == KIND_SET, slot * N_RANKS + key, key * N_RANKS + slot)
    card = np.where(view.meld_joker[r, m, slot], JOKER, natural)
    add_at(counts, (r, card))
    return counts


def unseen_counts(rules: Rules, view: PlayerView) -> np.ndarray:
    """int16 [n, 53]: copies of each card the seat cannot place (stock or others' unknown cards)."""
    pile = np.zeros((view.size, N_CARD_IDS), np.int16)
    pos = np.arange(view.pile.shape[1])[None, :]
    r, j = np.nonzero(pos < view.pile_size[:, None])
    add_at(pile, (r, view.pile[r, j]))
    seen = (
        view.hand.astype(np.int16)
        + pile
        + view_table_counts(view)
        + view.known[:, 1:].astype(np.int16).sum(axis=1)
    )
    return deck_counts(rules)[None, :] - seen


def shuffle_prefixes(rows: np.ndarray, sizes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``rows`` [n, width] with the first ``sizes[i]`` entries of each row in a fresh random
    order (the entries after them stay in place)."""
    filled = np.arange(rows.shape[1])[None, :] < np.asarray(sizes)[:, None]
    keys = np.where(filled, rng.random(rows.shape), 2.0)
    return np.take_along_axis(rows, np.argsort(keys, axis=1), axis=1)


def fresh_deal_keys(n: int, rng: np.random.Generator) -> np.ndarray:
    """uint64 [n]: new deal keys, so that the hands after the current one are dealt afresh."""
    return rng.integers(0, np.iinfo(np.int64).max, n, dtype=np.int64).astype(np.uint64)


def sample_worlds(rules: Rules, view: PlayerView, n_worlds: int, rng: np.random.Generator) -> State:
    """``n_worlds`` complete games per position of ``view``, consistent with it (batch n * W).

    Raises ``ValueError`` for a position outside the draw and play phases or a
    view whose card counts do not add up.
    """
    if n_worlds < 1:
        raise ValueError("sample_worlds: n_worlds must be at least 1")
    if not np.isin(view.phase, (PHASE_DRAW, PHASE_PLAY)).all():
        raise ValueError("sample_worlds: positions must be in the draw or play phase")
    n, p, w = view.size, rules.players, n_worlds
    unseen = unseen_counts(rules, view)
    unknown = view.hand_sizes[:, 1:].astype(np.int64) - view.known[:, 1:].astype(np.int64).sum(
        axis=2
    )  # [n, P-1] hidden slots
    hidden = unseen.astype(np.int64).sum(axis=1)
    if (
        (unseen < 0).any()
        or (unknown < 0).any()
        or (hidden != unknown.sum(axis=1) + view.stock_size).any()
    ):
        raise ValueError("sample_worlds: the view's card counts do not add up")

    # Each position's unseen cards as a padded list, shuffled once per world.
    width = max(int(hidden.max(initial=0)), 1)
    rr, cc = np.nonzero(unseen > 0)
    copies = unseen[rr, cc].astype(np.int64)
    rows, cards = np.repeat(rr, copies), np.repeat(cc, copies)
    first = np.cumsum(hidden) - hidden
    pool = np.full((n, width), -1, np.int64)
    pool[rows, np.arange(rows.size) - first[rows]] = cards
    pool = shuffle_prefixes(np.repeat(pool, w, axis=0), np.repeat(hidden, w), rng)

    # The first cards go to the other seats' unknown slots in turn, the rest to the stock.
    bounds = np.repeat(np.cumsum(unknown, axis=1), w, axis=0)  # [nW, P-1]
    pos = np.arange(width)[None, :]
    owner = (pos[:, :, None] >= bounds[:, None, :]).sum(axis=2) + 1  # relative seat, P = stock
    order = np.repeat(relative_order(p, view.seat), w, axis=0)  # abs seat of each relative seat
    state = empty_state(rules, n * w)
    b = np.arange(n * w)
    state.known[b[:, None], order] = np.repeat(view.known, w, axis=0)
    state.hand[:] = state.known
    state.hand[b, order[:, 0]] = np.repeat(view.hand, w, axis=0)
    valid = pool >= 0
    dealt = valid & (owner < p)
    gb, gj = np.nonzero(dealt)
    add_at(state.hand, (gb, order[gb, owner[gb, gj]], pool[gb, gj]))
    in_stock = valid & (owner == p)
    sb, sj = np.nonzero(in_stock)
    state.stock[sb, sj - bounds[sb, -1]] = pool[sb, sj]

    def per_world(a: np.ndarray) -> np.ndarray:
        return np.repeat(a, w, axis=0)

    state.hand_size[b[:, None], order] = per_world(view.hand_sizes)
    state.stock_size[:] = per_world(view.stock_size)
    state.pile[:] = per_world(view.pile)
    state.pile_size[:] = per_world(view.pile_size)
    state.meld_kind[:] = per_world(view.meld_kind)
    state.meld_key[:] = per_world(view.meld_key)
    state.meld_start[:] = per_world(view.meld_start)
    state.meld_len[:] = per_world(view.meld_len)
    seat = per_world(view.seat).astype(np.int16)
    by = per_world(view.laid_by()).astype(np.int16)
    state.meld_by[:] = np.where(by >= 0, (by + seat[:, None, None]) % p, -1)
    state.meld_joker[:] = per_world(view.meld_joker)
    state.n_melds[:] = per_world(view.n_melds)
    state.phase[:] = per_world(view.phase)
    state.current_player[:] = (per_world(view.current_player) + seat) % p
    state.owed[:] = per_world(view.owed)
    state.no_discard[:] = per_world(view.no_discard)
    state.taken[:] = per_world(view.taken)
    state.drew_last[:] = (
        (rules.stock_out == "last_draw") & (state.phase == PHASE_PLAY) & (state.stock_size == 0)
    )
    state.melded[b[:, None], order] = per_world(view.melded)
    state.turn[:] = per_world(view.turn)
    state.hand_number[:] = per_world(view.hand_number)
    state.dealer[:] = (per_world(view.dealer) + seat) % p
    state.totals[b[:, None], order] = per_world(view.totals)
    state.key[:] = fresh_deal_keys(n * w, rng)
    return state


def provisional_scores(rules: Rules, state: State) -> np.ndarray:
    """int32 [B, P]: each seat's hand score if the hand ended now (table minus hand points)."""
    rows = np.arange(state.batch_size)
    return table_points(rules, state, rows) - hand_points(rules, state, rows)

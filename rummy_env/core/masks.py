"""Exact legal-action masks for a batch of games in any phase.

``legal_mask(rules, state)`` is bool [B, A]: every offered action is legal and
every legal action is offered; a live game always has at least one. Each phase
is handled for all games in it at once:

    draw       draw / end / take d           (_draw_mask)
    play       meld, layoff, swap, discard   (_play_mask)
    call       call / pass
    call_play  meld, layoff, done            (_play_mask, calling=True)
"""

from __future__ import annotations

import numpy as np

from .cards import JOKER, N_NATURAL
from .counting import filled_slots
from .lookup import NO_CARD, LookupTables, lookup_tables
from .meldability import (
    card_meldable,
    complete_melds,
    joker_layable,
    melds_makeable,
    pattern_missing,
)
from .patterns import PATTERN_CONTAINS, PATTERN_SIZE
from .rules import Rules
from .state import PHASE_CALL, PHASE_CALL_PLAY, PHASE_DRAW, PHASE_NAMES, PHASE_PLAY, State
from .table import any_direction, blocked_cards, jokers_declared, layoff_fits


def legal_mask(
    rules: Rules, state: State, fits: np.ndarray | None = None, blocked: np.ndarray | None = None
) -> np.ndarray:
    """bool [B, A]: exactly the legal actions of each game (all False when finished).

    ``fits``: ``layoff_fits(rules, state)`` when the caller keeps it (what the table
    accepts changes only when a meld or lay-off grows the table); ``blocked``: the
    batch's ``blocked_cards`` when kept too (rules where they matter). ``TableCache``
    keeps both.
    """
    t = lookup_tables(rules)
    action_ids = t.layout
    b = state.batch_size
    mask = np.zeros((b, action_ids.size), dtype=bool)
    games = np.bincount(state.phase, minlength=len(PHASE_NAMES)).tolist()  # games per phase
    # Which cards the table accepts, for every game at once (draw and play both need it).
    if fits is None and (games[PHASE_DRAW] or games[PHASE_PLAY] or games[PHASE_CALL_PLAY]):
        fits = layoff_fits(rules, state)

    def in_phase(phase: int) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """The games in ``phase``, their ``fits`` and ``blocked`` (all: no selection)."""
        assert fits is not None  # worked out above whenever a phase that needs it has games
        if games[phase] == b:
            return np.arange(b), fits, blocked
        rows = (state.phase == phase).nonzero()[0]
        return rows, fits[rows], None if blocked is None else blocked[rows]

    if games[PHASE_DRAW]:
        _draw_mask(rules, t, state, *in_phase(PHASE_DRAW), mask)
    if games[PHASE_PLAY]:
        _play_mask(rules, t, state, *in_phase(PHASE_PLAY), mask, calling=False)
    if games[PHASE_CALL]:
        rows = (state.phase == PHASE_CALL).nonzero()[0]
        mask[rows, action_ids.CALL] = True
        mask[rows, action_ids.PASS] = True
    if games[PHASE_CALL_PLAY]:
        _play_mask(rules, t, state, *in_phase(PHASE_CALL_PLAY), mask, calling=True)
    return mask


def _padded(present: np.ndarray) -> np.ndarray:
    """Natural presence [n, 52+] widened to [n, NO_CARD + 1] (joker and padding False)."""
    out = np.zeros((present.shape[0], NO_CARD + 1), bool)
    out[:, :N_NATURAL] = present[:, :N_NATURAL]
    return out


# ----------------------------------------------------------------------------- draw phase
def _draw_mask(
    rules: Rules,
    t: LookupTables,
    state: State,
    rows: np.ndarray,
    fits: np.ndarray,
    blocked: np.ndarray | None,
    mask: np.ndarray,
) -> None:
    action_ids = t.layout
    stock_left = state.stock_size[rows] > 0
    mask[rows, action_ids.DRAW] = stock_left
    mask[rows, action_ids.END] = ~stock_left
    takes = take_ok(rules, t, state, rows, fits, blocked)
    mask[rows, action_ids.TAKE : action_ids.TAKE + takes.shape[1]] = takes


def take_ok(
    rules: Rules,
    t: LookupTables,
    state: State,
    rows: np.ndarray,
    fits: np.ndarray,
    blocked: np.ndarray | None = None,
) -> np.ndarray:
    """bool [n, D]: whether ``take d`` (d = 1..D) is legal, D = deepest pile among ``rows``.

    ``fits`` [n, 52, 3] is ``layoff_fits`` of those games, ``blocked`` their
    ``blocked_cards`` (worked out when not given)."""
    pile_size = state.pile_size[rows].astype(np.int64)
    depth_max = int(pile_size.max())
    ok = np.zeros((rows.size, depth_max), bool)
    if depth_max == 0:
        return ok
    ok[:, 0] = pile_size >= 1
    if not rules.dig and not rules.top_card_must_meld:
        return ok
    depths = np.arange(1, (depth_max if rules.dig else 1) + 1)
    meldable = deepest_card_meldable(rules, t, state, rows, depths, any_direction(fits), blocked)
    if rules.dig:
        ok[:, 1:] = meldable[:, 1:]
        if rules.dig_swap:
            ok[:, 1:] |= deepest_card_swappable(state, rows, depths)[:, 1:]
    if rules.top_card_must_meld:
        ok[:, 0] &= meldable[:, 0]
    return ok


def _pile_cards(pile: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """[n, D]: the card at ``positions`` [n, D] (below the pile's width) of each row of
    ``pile`` [n, width], by one flat lookup; a negative position reads position 0, for
    the caller to mask."""
    n, width = pile.shape
    return pile.reshape(-1)[np.maximum(positions, 0) + (np.arange(n) * width)[:, None]]


def deepest_card_swappable(state: State, rows: np.ndarray, depths: np.ndarray) -> np.ndarray:
    """bool [n, len(depths)]: after ``take d`` the deepest card is a natural card that a
    table joker is declared as (``dig_swap``: swapping it settles the dig)."""
    pile_size = state.pile_size[rows].astype(np.int64)
    card_pos = pile_size[:, None] - depths[None, :]
    valid = card_pos >= 0
    deepest = _pile_cards(state.pile[rows], card_pos)
    natural = valid & (deepest != JOKER)
    declared = jokers_declared(state, rows)
    return natural & declared[np.arange(rows.size)[:, None], np.where(natural, deepest, 0)]


def _available_from(
    state: State,
    rows: np.ndarray,
    seat: np.ndarray,
    pile_game: np.ndarray,
    pile_card: np.ndarray,
    pile_depth: np.ndarray,
    width: int,
) -> np.ndarray:
    """int16 [n, NO_CARD+1]: for each card, the take depth the player's take must pass to
    hold it naturally: 0 if in hand, else the depth of its topmost pile copy (``take d``
    takes the cards above depth d with it), ``width + 1`` if neither. ``pile_game``,
    ``pile_card``, ``pile_depth``: every pile card of the games ``rows`` (``_pile_pairs``)."""
    n = rows.size
    # The least depth over a card's copies (its topmost), by one fast minimum.at.
    available: np.ndarray = np.full(n * (NO_CARD + 1), width + 1, np.int16)
    np.minimum.at(available, pile_game * (NO_CARD + 1) + pile_card, pile_depth.astype(np.int16))
    available = available.reshape(n, NO_CARD + 1)
    available[:, :N_NATURAL] *= state.hand[rows, seat, :N_NATURAL] == 0  # 0: in hand
    available[:, JOKER:] = width + 1  # jokers are counted apart
    return available


def _pile_pairs(pile: np.ndarray, pile_size: np.ndarray) -> tuple[np.ndarray, ...]:
    """(game, card, depth) of every card in the piles ``pile`` [n, width] (depth 1 = top),
    one flat pass: ``take d`` has the card at depth d as its deepest card."""
    game, position = filled_slots(pile_size)
    return game, pile.reshape(-1)[game * pile.shape[1] + position], pile_size[game] - position


def deepest_card_meldable(
    rules: Rules,
    t: LookupTables,
    state: State,
    rows: np.ndarray,
    depths: np.ndarray,
    fits: np.ndarray,
    blocked: np.ndarray | None = None,
) -> np.ndarray:
    """bool [n, len(depths)]: after ``take d`` (``depths`` = 1, 2, ..., D) the deepest card
    can be melded or laid off.

    A card melds if some allowed 3-card meld holds it and two cards available
    to the player: in hand, or taken with it (above it in the pile). Longer
    melds contain such a 3-card meld, so three cards decide it. Each (game, depth)
    a pile reaches is worked out once, as one flat row.
    """
    n, d = rows.size, depths.size
    seat = state.current_player[rows]
    pile_size = state.pile_size[rows].astype(np.int64)
    pile = state.pile[rows]
    game, card, depth = _pile_pairs(pile, pile_size)
    available = _available_from(state, rows, seat, game, card, depth, pile.shape[1])
    if d < int(pile_size.max(initial=0)):
        reached = depth <= d
        game, card, depth = game[reached], card[reached], depth[reached]

    if rules.n_jokers == 0:
        melds = _natural_deepest_meldable(t, available, game, card, depth)
        lays = fits[game, card]
    else:
        if blocked is None:
            blocked = blocked_cards(rules, state, rows)
        melds, lays = _deepest_with_jokers(
            rules, t, state, rows, game, card, depth, d, available, fits, blocked
        )
    if rules.discard_required:
        melds &= state.hand_size[rows, seat][game] + depth >= 4
    if rules.layoff_requires_meld:
        lays &= state.melded[rows, seat][game]
    out = np.zeros((n, d), bool)
    out[game, depth - 1] = melds | lays
    return out


def _natural_deepest_meldable(
    t: LookupTables, available: np.ndarray, game: np.ndarray, card: np.ndarray, depth: np.ndarray
) -> np.ndarray:
    """bool [m]: without jokers, pile card ``card`` of game ``game`` (at ``depth``) completes
    an allowed 3-card meld with two partners available to a take of that depth."""
    partners = t.partners[card]  # [m, K, 2]
    from_depth = available.reshape(-1)[game[:, None, None] * available.shape[1] + partners]
    # Tiny trailing axes reduce slowly in numpy: unroll max over the pair, min over K.
    pair_from = np.maximum(from_depth[..., 0], from_depth[..., 1])
    best = pair_from[:, 0]
    for k in range(1, pair_from.shape[1]):
        best = np.minimum(best, pair_from[:, k])
    return best < depth


def _deepest_with_jokers(
    rules: Rules,
    t: LookupTables,
    state: State,
    rows: np.ndarray,
    game: np.ndarray,
    card: np.ndarray,
    depth: np.ndarray,
    d: int,
    available: np.ndarray,
    fits: np.ndarray,
    blocked: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray]:
    """(melds, lays) bool [m]: the general dig test with jokers, for pile card ``card`` of
    game ``game`` at ``depth`` (the pairs of ``_pile_pairs``, none deeper than ``d``)."""
    seat = state.current_player[rows]
    pile_size = state.pile_size[rows].astype(np.int64)
    pile = state.pile[rows]
    below_top = pile_size[:, None] - 1 - np.arange(d)[None, :]  # position of depth 1..d
    pile_top_first = _pile_cards(pile, below_top)
    joker_on_top = (pile_top_first == JOKER) & (below_top >= 0)
    jokers_above = np.cumsum(joker_on_top, axis=1) - joker_on_top  # above each depth
    jokers = state.hand[rows, seat, JOKER][:, None].astype(np.int64) + jokers_above  # [n, D]

    present = available[game] < depth[:, None]  # [m, NO_CARD+1]
    blocked_m = None if blocked is None else blocked[game]
    melds = card_meldable(t, card, present, jokers[game, depth - 1], blocked_m)
    natural = card != JOKER
    lays = np.zeros(card.size, bool)
    lays[natural] = fits[game[natural], card[natural]]
    jk = ~natural
    if jk.any():
        lays[jk] = joker_layable(
            fits[game[jk]], present[jk], None if blocked_m is None else blocked_m[jk]
        )
    return melds, lays


# ----------------------------------------------------------------------------- play phases
def _play_mask(
    rules: Rules,
    t: LookupTables,
    state: State,
    rows: np.ndarray,
    fits: np.ndarray,
    blocked: np.ndarray | None,
    mask: np.ndarray,
    calling: bool,
) -> None:
    """Melds, lay-offs and then discards/swaps (``play``) or ``done`` (``call_play``)."""
    action_ids = t.layout
    n = rows.size
    seat = state.current_player[rows]
    hand = state.hand[rows, seat]
    size = state.hand_size[rows, seat]
    jokers = hand[:, JOKER].astype(np.int64)
    present = hand[:, :N_NATURAL] > 0
    owed = state.owed[rows]
    owing = owed >= 0
    owes_joker = owed == JOKER
    owes_natural = owing & ~owes_joker
    if blocked is None:
        blocked = blocked_cards(rules, state, rows)

    if rules.n_jokers:
        melds = melds_makeable(t, present, jokers, blocked)
    else:
        melds = complete_melds(t, present)
    if rules.discard_required:
        melds &= PATTERN_SIZE[None, :] < size[:, None]
    any_natural, any_joker = bool(owes_natural.any()), bool(owes_joker.any())
    if any_natural:
        melds[owes_natural] &= PATTERN_CONTAINS[owed[owes_natural]]
    if any_joker:
        melds[owes_joker] &= pattern_missing(t, present[owes_joker]) >= 1
    mask[rows, action_ids.MELD : action_ids.LAYOFF] = melds

    by_joker = (jokers > 0)[:, None] & ~present
    if blocked is not None:
        by_joker &= ~blocked
    layable = present | by_joker
    if any_natural:
        only = np.zeros_like(layable[owes_natural])
        only[np.arange(only.shape[0]), owed[owes_natural]] = True
        layable[owes_natural] &= only
    if any_joker:
        layable[owes_joker] &= ~present[owes_joker]
    if rules.discard_required:
        layable &= (size >= 2)[:, None]
    if rules.layoff_requires_meld:
        layable &= state.melded[rows, seat][:, None]
    # [n, 52 * 3] against each card repeated per direction: a tiny trailing axis of
    # broadcasting would be much slower, and np.repeat is slower than a stack.
    layoffs = fits.reshape(n, -1) & np.stack([layable] * 3, axis=2).reshape(n, -1)
    mask[rows, action_ids.LAYOFF : action_ids.DISCARD] = layoffs

    if calling:
        empty = size == 0
        mask[rows[empty], action_ids.MELD : action_ids.DISCARD] = False
        mask[rows, action_ids.DONE] = ~owing | empty
        return

    discards = _discardable(rules, state, rows, hand, size)
    discards[owing] = False
    mask[rows, action_ids.DISCARD : action_ids.SWAP] = discards

    if rules.joker_swap:
        declared = jokers_declared(state, rows)
        swaps = present & declared & ~owing[:, None]
        if rules.dig_swap:
            # While a dug card is owed, the only swap offered is that card's.
            dug = np.flatnonzero(owes_natural & (state.no_discard[rows] < 0))
            swaps[dug, owed[dug]] = declared[dug, owed[dug]]
        mask[rows, action_ids.SWAP : action_ids.CALL] = swaps


def _discardable(
    rules: Rules, state: State, rows: np.ndarray, hand: np.ndarray, size: np.ndarray
) -> np.ndarray:
    """bool [n, 53]: cards in hand that may be discarded, ignoring any obligation.

    Standard: not the card taken by ``take 1``; ``keep_taken``: no card taken this
    turn (by text). Either way, a hand holding nothing but such cards may discard any.
    """
    discards = hand > 0
    if rules.keep_taken:
        held_back = state.taken[rows]
        only_taken = ~(discards & ~held_back).any(axis=1)
        discards &= ~held_back | only_taken[:, None]
        return discards
    banned = state.no_discard[rows]
    ban_rows = (banned >= 0).nonzero()[0]
    if ban_rows.size:
        only_that = size[ban_rows] == hand[ban_rows, banned[ban_rows]]
        discards[ban_rows[~only_that], banned[ban_rows[~only_that]]] = False
    return discards


def call_eligibility(
    rules: Rules,
    t: LookupTables,
    state: State,
    rows: np.ndarray,
    seats: np.ndarray,
    card: np.ndarray,
    fits: np.ndarray,
    blocked: np.ndarray | None,
) -> np.ndarray:
    """bool [n]: seat ``seats[i]`` of game ``rows[i]`` could meld or lay off ``card[i]``
    at once with its own hand (a rummy call). ``fits``: the table's [n, 52] accepted cards;
    ``blocked``: ``blocked_cards`` of those games."""
    hand = state.hand[rows, seats]
    size = state.hand_size[rows, seats]
    present = _padded(hand > 0)
    jokers = hand[:, JOKER].astype(np.int64)
    melds = card_meldable(t, card, present, jokers, blocked)
    if rules.discard_required:
        melds &= size >= 3
    natural = card != JOKER
    lays = np.zeros(rows.size, bool)
    lays[natural] = fits[np.flatnonzero(natural), card[natural]]
    if (~natural).any():
        jk = np.flatnonzero(~natural)
        lays[jk] = joker_layable(fits[jk], present[jk], None if blocked is None else blocked[jk])
    if rules.layoff_requires_meld:
        lays &= state.melded[rows, seats]
    return (melds | lays) & (size > 0)


def call_window_opens(
    rules: Rules,
    t: LookupTables,
    state: State,
    rows: np.ndarray,
    fits: np.ndarray,
    blocked: np.ndarray | None,
) -> np.ndarray:
    """bool [n]: the top discard could be laid off on the table (``fits`` [n, 52]) or
    melded with pile cards."""
    pile_size = state.pile_size[rows].astype(np.int64)
    card = state.pile[rows, pile_size - 1].astype(np.int64)
    game, position = filled_slots(pile_size - 1)  # the cards below the top
    below = state.pile[rows[game], position]
    in_pile = np.zeros((rows.size, NO_CARD + 1), bool)
    in_pile[game, below] = True
    pile_jokers = np.bincount(game[below == JOKER], minlength=rows.size)
    in_pile[:, JOKER] = False
    melds = card_meldable(t, card, in_pile, pile_jokers, blocked)
    natural = card != JOKER
    lays = np.zeros(rows.size, bool)
    lays[natural] = fits[np.flatnonzero(natural), card[natural]]
    if (~natural).any():
        jk = np.flatnonzero(~natural)
        nothing = np.zeros((jk.size, NO_CARD + 1), bool)
        lays[jk] = joker_layable(fits[jk], nothing, None if blocked is None else blocked[jk])
    return melds | lays

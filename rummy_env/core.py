"""The vectorized game core: pure functions over a batched ``State``.

    init(rules, seed, batch_size)     -> State        deal hand 0 of every game
    legal_mask(rules, state)          -> bool [B, A]  exact legal actions per game
    step(rules, state, actions)       -> State        one micro-action per game
    step_inplace(rules, state, actions)               the same, mutating ``state``

Games in a batch may be in different phases; every rule is applied to all games
at once with boolean selections, never with a Python loop over games.

Cross-cutting rules, written once here:

* An illegal action (id out of range, or masked) raises ``ValueError`` naming the
  game index, the action text and the legal texts, and no game is changed.
* A finished game (``game_over``) or a hand waiting to be dealt (``auto_deal=False``)
  ignores its action: stepping it is a no-op and its legal mask is all False.
* With ``auto_deal=True`` (the default) the next hand is dealt as soon as a hand
  ends; ``state.hand_ended`` flags the games in which that happened this step.
"""

from __future__ import annotations

import numpy as np

from .cards import N_NATURAL, N_RANKS
from .deal import dealer_of_hand, game_keys, shuffled_decks
from .patterns import (
    KIND_RUN,
    KIND_SET,
    PATTERN_CARDS,
    PATTERN_CONTAINS,
    PATTERN_KEY,
    PATTERN_KIND,
    PATTERN_SIZE,
    PATTERN_START,
    run_allowed,
)
from .rules import Rules
from .state import (
    PHASE_DRAW,
    PHASE_GAME_OVER,
    PHASE_HAND_OVER,
    PHASE_PLAY,
    State,
    empty_state,
)
from .tables import NO_CARD, Tables, tables_for

UNSUPPORTED = ("floating", "joker_swap", "rummy_call")


def check_supported(rules: Rules) -> None:
    """Raise for the variants the core does not play yet."""
    if rules.jokers:
        raise NotImplementedError("rules: jokers are not supported by the core yet")
    for flag in UNSUPPORTED:
        if getattr(rules, flag):
            raise NotImplementedError(f"rules: {flag} is not supported by the core yet")


# ----------------------------------------------------------------------------- init / deal
def init(rules: Rules, seed: int, batch_size: int | None = None,
         game_ids: np.ndarray | None = None) -> State:
    """Deal hand 0 of each game. Game ``g`` depends only on (rules, seed, g).

    Pass ``batch_size`` for games 0..B-1, or ``game_ids`` to pick which games
    (game 7 dealt alone equals game 7 of any batch).
    """
    check_supported(rules)
    if game_ids is None:
        if batch_size is None or batch_size < 1:
            raise ValueError("init: give batch_size >= 1 or game_ids")
        game_ids = np.arange(batch_size)
    game_ids = np.asarray(game_ids, dtype=np.int64)
    state = empty_state(rules, game_ids.size)
    state.key[:] = game_keys(seed, game_ids)
    state.dealer[:] = dealer_of_hand(rules, 0)
    deal(rules, state, np.arange(game_ids.size))
    return state


def deal(rules: Rules, state: State, rows: np.ndarray) -> None:
    """Deal hand ``state.hand_number`` of the games ``rows`` (in place)."""
    n = rows.size
    if n == 0:
        return
    p, hs = rules.players, rules.hand_cards
    decks = shuffled_decks(rules, state.key[rows], state.hand_number[rows])
    first = (state.dealer[rows].astype(np.int64) + 1) % p
    dealt = p * hs
    seats = (first[:, None] + np.arange(dealt)[None, :]) % p
    hand = np.zeros((n, p, state.hand.shape[2]), np.int8)
    np.add.at(hand, (np.repeat(np.arange(n), dealt), seats.ravel(), decks[:, :dealt].ravel()), 1)
    state.hand[rows] = hand
    state.hand_size[rows] = hs
    state.known[rows] = 0
    state.pile[rows] = 0
    state.pile[rows, 0] = decks[:, dealt]
    state.pile_size[rows] = 1
    rest = decks[:, dealt + 1:][:, ::-1]
    state.stock[rows] = 0
    state.stock[rows, : rest.shape[1]] = rest
    state.stock_size[rows] = rest.shape[1]
    state.meld_kind[rows] = 0
    state.meld_key[rows] = 0
    state.meld_start[rows] = 0
    state.meld_len[rows] = 0
    state.meld_by[rows] = -1
    state.meld_joker[rows] = False
    state.n_melds[rows] = 0
    state.phase[rows] = PHASE_DRAW
    state.to_play[rows] = first
    state.owed[rows] = -1
    state.no_discard[rows] = -1
    state.drew_last[rows] = False
    state.melded[rows] = False
    state.turn[rows] = 0
    state.went_out[rows] = -1


# ----------------------------------------------------------------------------- legal mask
def legal_mask(rules: Rules, state: State) -> np.ndarray:
    """bool [B, A]: exactly the legal actions of each game (all False when finished)."""
    t = tables_for(rules)
    lay = t.layout
    mask = np.zeros((state.batch_size, lay.size), dtype=bool)

    draw_rows = np.flatnonzero(state.phase == PHASE_DRAW)
    if draw_rows.size:
        stock_left = state.stock_size[draw_rows] > 0
        mask[draw_rows, lay.DRAW] = stock_left
        mask[draw_rows, lay.END] = ~stock_left
        takes = _take_ok(rules, t, state, draw_rows)
        mask[draw_rows, lay.TAKE: lay.TAKE + takes.shape[1]] = takes

    play_rows = np.flatnonzero(state.phase == PHASE_PLAY)
    if play_rows.size:
        seat = state.to_play[play_rows]
        hand = state.hand[play_rows, seat]
        size = state.hand_size[play_rows, seat]
        owed = state.owed[play_rows]
        owing = owed >= 0
        melds = _melds_in_hand(t, hand)
        if rules.discard_required:
            melds &= PATTERN_SIZE[None, :] < size[:, None]
        if owing.any():
            melds[owing] &= PATTERN_CONTAINS[owed[owing]]
        mask[play_rows, lay.MELD: lay.LAYOFF] = melds

        layoffs = _layoff_cards(state, play_rows, rules) & (hand[:, :N_NATURAL, None] > 0)
        allowed = np.ones(play_rows.size, bool)
        if rules.discard_required:
            allowed &= size >= 2
        if rules.layoff_requires_meld:
            allowed &= state.melded[play_rows, seat]
        layoffs &= allowed[:, None, None]
        if owing.any():
            only_owed = np.zeros_like(layoffs)
            only_owed[np.flatnonzero(owing), owed[owing]] = True
            layoffs[owing] &= only_owed[owing]
        mask[play_rows, lay.LAYOFF: lay.DISCARD] = layoffs.reshape(play_rows.size, -1)

        discards = hand > 0
        banned = state.no_discard[play_rows]
        has_ban = banned >= 0
        if has_ban.any():
            ban_rows = np.flatnonzero(has_ban)
            only_that = size[ban_rows] == hand[ban_rows, banned[ban_rows]]
            discards[ban_rows[~only_that], banned[ban_rows[~only_that]]] = False
        discards[owing] = False
        mask[play_rows, lay.DISCARD: lay.SWAP] = discards
    return mask


def _melds_in_hand(t: Tables, hand: np.ndarray) -> np.ndarray:
    """bool [n, N_PATTERNS]: allowed patterns whose cards are all in ``hand`` [n, 53]."""
    n = hand.shape[0]
    present = (hand[:, :N_NATURAL] > 0).reshape(n, 4, N_RANKS)
    suit_bits = np.packbits(present, axis=2, bitorder="little")  # [n, 4, 2]
    suit_masks = suit_bits[..., 0].astype(np.int32) | (suit_bits[..., 1].astype(np.int32) << 8)
    rank_masks = np.packbits(present.transpose(0, 2, 1), axis=2, bitorder="little")[..., 0]
    missing = np.concatenate(
        [t.set_missing[rank_masks].reshape(n, -1), t.run_missing[suit_masks].reshape(n, -1)],
        axis=1,
    )
    return (missing == 0) & t.allowed[None, :]


def _layoff_targets(rules: Rules, state: State, rows: np.ndarray) -> np.ndarray:
    """int16 [n, M, 3]: the card each meld accepts as ``set`` / ``up`` / ``down``, -1 none."""
    kind = state.meld_kind[rows]
    key = state.meld_key[rows].astype(np.int16)
    start = state.meld_start[rows].astype(np.int16)
    length = state.meld_len[rows].astype(np.int16)
    targets = np.full(kind.shape + (3,), -1, np.int16)

    is_set = (kind == KIND_SET) & (length == 3)
    missing_suit = np.argmax(state.meld_by[rows][:, :, :4] < 0, axis=2).astype(np.int16)
    targets[..., 0] = np.where(is_set, missing_suit * N_RANKS + key, -1)

    is_run = kind == KIND_RUN
    up_ok = is_run & run_allowed(start, length + 1, rules.runs_ace_high, rules.runs_wrap)
    targets[..., 1] = np.where(up_ok, key * N_RANKS + (start + length) % N_RANKS, -1)
    down_ok = is_run & (length + 1 <= 13)
    if not rules.runs_wrap:
        down_ok &= start >= 1
    targets[..., 2] = np.where(down_ok, key * N_RANKS + (start - 1) % N_RANKS, -1)
    return targets


def _layoff_cards(state: State, rows: np.ndarray, rules: Rules) -> np.ndarray:
    """bool [n, 52, 3]: card c fits some table meld in direction d."""
    targets = _layoff_targets(rules, state, rows)
    fits = np.zeros((rows.size, N_NATURAL + 1, 3), bool)
    # Melds that accept nothing write into the spare column N_NATURAL.
    fits[np.arange(rows.size)[:, None, None], np.where(targets >= 0, targets, N_NATURAL),
         np.arange(3)[None, None, :]] = True
    return fits[:, :N_NATURAL]


def _take_ok(rules: Rules, t: Tables, state: State, rows: np.ndarray) -> np.ndarray:
    """bool [n, D]: whether ``take d`` (d = 1..D) is legal, D = deepest pile among ``rows``."""
    pile_size = state.pile_size[rows].astype(np.int64)
    depth_max = int(pile_size.max())
    ok = np.zeros((rows.size, depth_max), bool)
    if depth_max == 0:
        return ok
    ok[:, 0] = pile_size >= 1
    must_meld_top = rules.top_card_must_meld
    if not rules.dig and not must_meld_top:
        return ok
    depths = np.arange(1, depth_max + 1)
    if not rules.dig:
        depths = depths[:1]
    meldable = _deepest_card_meldable(rules, t, state, rows, depths)
    if rules.dig:
        ok[:, 1:] = meldable[:, 1:]
    if must_meld_top:
        ok[:, 0] &= meldable[:, 0]
    return ok


def _deepest_card_meldable(rules: Rules, t: Tables, state: State, rows: np.ndarray,
                           depths: np.ndarray) -> np.ndarray:
    """bool [n, len(depths)]: after ``take d`` the deepest card can be melded or laid off.

    A card melds if some allowed 3-card meld holds it and two cards available
    to the player: in hand, or taken with it (above it in the pile). Longer
    melds contain such a 3-card meld, so three cards decide it.
    """
    n = rows.size
    seat = state.to_play[rows]
    pile_size = state.pile_size[rows].astype(np.int64)
    pile = state.pile[rows].astype(np.int64)
    width = pile.shape[1]
    position = np.arange(width)
    in_pile = position[None, :] < pile_size[:, None]
    # Depth at which each card id becomes available: 0 in hand, else the depth of
    # its topmost pile copy (a card at depth e is taken by any take d > e).
    top_position = np.full((n, NO_CARD + 1), -1, np.int64)
    rr = np.broadcast_to(np.arange(n)[:, None], pile.shape)
    positions = np.broadcast_to(position, pile.shape)
    np.maximum.at(top_position, (rr[in_pile], pile[in_pile]), positions[in_pile])
    available_from = np.where(top_position >= 0, pile_size[:, None] - top_position, width + 1)
    available_from[:, : state.hand.shape[2]][state.hand[rows, seat] > 0] = 0

    card_pos = pile_size[:, None] - depths[None, :]  # [n, D]
    valid = card_pos >= 0
    deepest = np.where(valid, np.take_along_axis(pile, np.clip(card_pos, 0, width - 1), 1), 0)
    partners = t.partners[deepest]  # [n, D, K, 2]
    from_depth = available_from[np.arange(n)[:, None, None, None], partners]
    # Tiny trailing axes reduce slowly in numpy: unroll the max over the pair
    # and the min over the K pairs.
    pair_from = np.maximum(from_depth[..., 0], from_depth[..., 1])
    best = pair_from[:, :, 0]
    for k in range(1, pair_from.shape[2]):
        best = np.minimum(best, pair_from[:, :, k])
    melds = best < depths[None, :]
    if rules.discard_required:
        melds &= (state.hand_size[rows, seat][:, None] + depths[None, :]) >= 4

    by_direction = _layoff_cards(state, rows, rules)
    fits = by_direction[..., 0] | by_direction[..., 1] | by_direction[..., 2]  # [n, 52]
    lays = fits[np.arange(n)[:, None], deepest]
    if rules.layoff_requires_meld:
        lays &= state.melded[rows, seat][:, None]
    return (melds | lays) & valid


# ----------------------------------------------------------------------------- step
def step(rules: Rules, state: State, actions, *, auto_deal: bool = True,
         mask: np.ndarray | None = None) -> State:
    """A new State after one action per game; ``state`` is left untouched.

    ``mask`` may pass ``legal_mask(rules, state)`` when the caller has it already.
    """
    out = state.copy()
    step_inplace(rules, out, actions, auto_deal=auto_deal, mask=mask)
    return out


def step_inplace(rules: Rules, state: State, actions, *, auto_deal: bool = True,
                 mask: np.ndarray | None = None) -> None:
    """Apply one action per game to ``state`` in place (the fast path for trainers)."""
    t = tables_for(rules)
    lay = t.layout
    actions = np.asarray(actions, dtype=np.int64).reshape(-1)
    if actions.shape[0] != state.batch_size:
        raise ValueError(f"step: got {actions.shape[0]} actions for {state.batch_size} games")
    live = (state.phase == PHASE_DRAW) | (state.phase == PHASE_PLAY)
    if mask is None:
        mask = legal_mask(rules, state)
    _check_legal(lay, mask, actions, live)

    state.hand_ended[:] = False
    rows_of = _rows_by_range(lay, actions, live)
    if rows_of["draw"].size:
        _apply_draw(rules, state, rows_of["draw"])
    if rows_of["take"].size:
        _apply_take(rules, state, rows_of["take"], actions[rows_of["take"]] - lay.TAKE + 1)
    if rows_of["meld"].size:
        _apply_meld(t, state, rows_of["meld"], actions[rows_of["meld"]] - lay.MELD)
    if rows_of["layoff"].size:
        code = actions[rows_of["layoff"]] - lay.LAYOFF
        _apply_layoff(rules, state, rows_of["layoff"], code // 3, code % 3)
    if rows_of["discard"].size:
        _apply_discard(state, rows_of["discard"], actions[rows_of["discard"]] - lay.DISCARD)

    played = np.concatenate([rows_of["meld"], rows_of["layoff"], rows_of["discard"]])
    out = played[state.hand_size[played, state.to_play[played]] == 0]
    state.went_out[out] = state.to_play[out]
    turn_over = np.setdiff1d(rows_of["discard"], out, assume_unique=True)
    ended = _finish_turns(rules, state, turn_over)
    hand_over = np.concatenate([out, rows_of["end"], ended])
    if hand_over.size:
        _end_hands(rules, t, state, np.sort(hand_over), auto_deal)


def _check_legal(lay, mask: np.ndarray, actions: np.ndarray, live: np.ndarray) -> None:
    in_range = (actions >= 0) & (actions < lay.size)
    legal = np.zeros_like(live)
    legal[in_range] = mask[np.flatnonzero(in_range), actions[in_range]]
    bad = np.flatnonzero(live & ~legal)
    if bad.size:
        g = int(bad[0])
        a = int(actions[g])
        shown = lay.text(a) if 0 <= a < lay.size else f"id {a} (outside 0..{lay.size - 1})"
        legal_texts = [lay.text(i) for i in np.flatnonzero(mask[g])]
        raise ValueError(
            f"illegal action in game {g}: {shown!r}; legal: {legal_texts}"
            + (f" ({bad.size} games had illegal actions)" if bad.size > 1 else "")
        )


def _rows_by_range(lay, actions: np.ndarray, live: np.ndarray) -> dict[str, np.ndarray]:
    def rows(lo: int, hi: int) -> np.ndarray:
        return np.flatnonzero(live & (actions >= lo) & (actions < hi))

    return {
        "draw": rows(lay.DRAW, lay.DRAW + 1),
        "end": rows(lay.END, lay.END + 1),
        "take": rows(lay.TAKE, lay.MELD),
        "meld": rows(lay.MELD, lay.LAYOFF),
        "layoff": rows(lay.LAYOFF, lay.DISCARD),
        "discard": rows(lay.DISCARD, lay.SWAP),
    }


def _apply_draw(rules: Rules, state: State, rows: np.ndarray) -> None:
    seat = state.to_play[rows]
    top = state.stock_size[rows] - 1
    card = state.stock[rows, top]
    state.stock_size[rows] = top
    state.hand[rows, seat, card] += 1
    state.hand_size[rows, seat] += 1
    state.phase[rows] = PHASE_PLAY
    state.drew_last[rows] = (top == 0) & (rules.stock_out == "last_draw")


def _apply_take(rules: Rules, state: State, rows: np.ndarray, depth: np.ndarray) -> None:
    seat = state.to_play[rows].astype(np.int64)
    pile_size = state.pile_size[rows].astype(np.int64)
    j = np.arange(int(depth.max()))[None, :]
    taken = j < depth[:, None]
    pos = np.clip(pile_size[:, None] - 1 - j, 0, None)
    cards = state.pile[rows[:, None], pos]
    rr = np.broadcast_to(rows[:, None], cards.shape)[taken]
    ss = np.broadcast_to(seat[:, None], cards.shape)[taken]
    np.add.at(state.hand, (rr, ss, cards[taken]), 1)
    np.add.at(state.known, (rr, ss, cards[taken]), 1)
    state.hand_size[rows, seat] += depth.astype(np.int16)
    deepest = state.pile[rows, pile_size - depth]
    state.pile_size[rows] = pile_size - depth
    owe = (depth >= 2) | rules.top_card_must_meld
    state.owed[rows] = np.where(owe, deepest, -1)
    state.no_discard[rows] = np.where(depth == 1, deepest, -1)
    state.phase[rows] = PHASE_PLAY
    state.drew_last[rows] = False


def _remove_from_hand(state: State, rows: np.ndarray, seat: np.ndarray, cards: np.ndarray) -> None:
    """Take one copy of each (row, card) out of the seat's hand, known copies first.

    The (row, card) pairs must be distinct; ``hand_size`` is the caller's to update.
    """
    state.hand[rows, seat, cards] -= 1
    known = state.known[rows, seat, cards]
    state.known[rows, seat, cards] = np.maximum(known - 1, 0)


def _apply_meld(t: Tables, state: State, rows: np.ndarray, pattern: np.ndarray) -> None:
    seat = state.to_play[rows]
    cards = PATTERN_CARDS[pattern].astype(np.int64)  # [n, 13], -1 padded
    has = cards >= 0
    rr = np.broadcast_to(rows[:, None], cards.shape)[has]
    ss = np.broadcast_to(seat[:, None], cards.shape)[has]
    _remove_from_hand(state, rr, ss, cards[has])
    state.hand_size[rows, seat] -= PATTERN_SIZE[pattern]
    m = state.n_melds[rows].astype(np.int64)
    state.meld_kind[rows, m] = PATTERN_KIND[pattern]
    state.meld_key[rows, m] = PATTERN_KEY[pattern]
    state.meld_start[rows, m] = PATTERN_START[pattern]
    state.meld_len[rows, m] = PATTERN_SIZE[pattern]
    slots = t.pattern_slots[pattern].astype(np.int64)
    mm = np.broadcast_to(m[:, None], cards.shape)[has]
    state.meld_by[rr, mm, slots[has]] = ss
    state.n_melds[rows] += 1
    state.melded[rows, seat] = True
    owed = state.owed[rows]
    settled = (owed >= 0) & PATTERN_CONTAINS[np.maximum(owed, 0), pattern]
    state.owed[rows] = np.where(settled, -1, owed)


def _apply_layoff(rules: Rules, state: State, rows: np.ndarray, card: np.ndarray,
                  direction: np.ndarray) -> None:
    seat = state.to_play[rows]
    targets = _layoff_targets(rules, state, rows)  # [n, M, 3]
    fits = targets[np.arange(rows.size), :, direction] == card[:, None]
    m = np.argmax(fits, axis=1)  # the oldest fitting meld
    _remove_from_hand(state, rows, seat, card)
    state.hand_size[rows, seat] -= 1
    is_set = direction == 0
    slot = np.where(is_set, card // N_RANKS, card % N_RANKS)
    state.meld_by[rows, m, slot] = seat
    state.meld_len[rows, m] += 1
    down = direction == 2
    state.meld_start[rows[down], m[down]] = (state.meld_start[rows[down], m[down]] - 1) % N_RANKS
    owed = state.owed[rows]
    state.owed[rows] = np.where(owed == card, -1, owed)


def _apply_discard(state: State, rows: np.ndarray, card: np.ndarray) -> None:
    seat = state.to_play[rows]
    _remove_from_hand(state, rows, seat, card)
    state.hand_size[rows, seat] -= 1
    size = state.pile_size[rows]
    state.pile[rows, size] = card
    state.pile_size[rows] = size + 1


def _finish_turns(rules: Rules, state: State, rows: np.ndarray) -> np.ndarray:
    """Close the turns of ``rows`` after a discard; returns the rows whose hand ends."""
    state.turn[rows] += 1
    ends = (state.turn[rows] >= rules.max_turns) | state.drew_last[rows]
    go_on = rows[~ends]
    state.to_play[go_on] = (state.to_play[go_on] + 1) % rules.players
    state.phase[go_on] = PHASE_DRAW
    state.owed[go_on] = -1
    state.no_discard[go_on] = -1
    state.drew_last[go_on] = False
    return rows[ends]


# ----------------------------------------------------------------------------- hand end
def table_points(rules: Rules, state: State, rows: np.ndarray) -> np.ndarray:
    """int32 [n, P]: points each seat has on the table this hand (low aces judged now)."""
    t = tables_for(rules)
    kind = state.meld_kind[rows][:, :, None]
    key = state.meld_key[rows].astype(np.int64)[:, :, None]
    start = state.meld_start[rows][:, :, None]
    slot = np.arange(N_RANKS)[None, None, :]
    set_pts = t.rank_points[key]  # [n, M, 1]
    run_pts = np.broadcast_to(t.rank_points[slot], kind.shape[:2] + (N_RANKS,)).copy()
    low_ace = (slot == 0) & (start == 0)
    run_pts = np.where(low_ace, rules.low_ace_value, run_pts)
    pts = np.where(kind == KIND_SET, set_pts, run_pts)
    if t.joker_points >= 0:
        pts = np.where(state.meld_joker[rows], t.joker_points, pts)
    by = state.meld_by[rows]
    return np.stack([(pts * (by == p)).sum(axis=(1, 2)) for p in range(rules.players)], axis=1)


def hand_points(rules: Rules, state: State, rows: np.ndarray) -> np.ndarray:
    """int32 [n, P]: points of the cards left in each hand."""
    t = tables_for(rules)
    return (state.hand[rows].astype(np.int32) * t.card_values[None, None, :]).sum(axis=2)


def _end_hands(rules: Rules, t: Tables, state: State, rows: np.ndarray, auto_deal: bool) -> None:
    scores = table_points(rules, state, rows) - hand_points(rules, state, rows)
    state.hand_scores[rows] = scores
    state.totals[rows] += scores
    state.hand_ended[rows] = True
    state.owed[rows] = -1
    state.no_discard[rows] = -1
    state.drew_last[rows] = False
    totals = state.totals[rows]
    if rules.go_out_to_win:
        out = state.went_out[rows].astype(np.int64)
        scorer = np.where(out >= 0, out, 0)
        over = (out >= 0) & (totals[np.arange(rows.size), scorer] >= rules.target)
        winner = out
    else:
        best = totals.max(axis=1)
        over = (best >= rules.target) & ((totals == best[:, None]).sum(axis=1) == 1)
        winner = totals.argmax(axis=1)
    state.winner[rows] = np.where(over, winner, -1)
    truncated = ~over & (state.hand_number[rows] + 1 >= rules.max_hands)
    state.truncated[rows] = truncated
    finished = over | truncated
    state.game_over[rows] = finished
    state.phase[rows[finished]] = PHASE_GAME_OVER
    going_on = rows[~finished]
    if not auto_deal:
        state.phase[going_on] = PHASE_HAND_OVER
        return
    state.hand_number[going_on] += 1
    state.dealer[going_on] = (state.dealer[going_on] + 1) % rules.players
    deal(rules, state, going_on)



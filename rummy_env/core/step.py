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

import bisect
from functools import lru_cache

import numpy as np

from ._one_game.step import step_one
from .actions import LAYOFF_DOWN, LAYOFF_SET, ActionLayout
from .cards import JOKER, N_RANKS
from .counting import add_at, filled_slots
from .deal import dealer_of_hand, game_keys, shuffled_decks
from .lookup import LookupTables, lookup_tables
from .masks import call_eligibility, call_window_opens, legal_mask
from .patterns import (
    PATTERN_CARDS,
    PATTERN_CONTAINS,
    PATTERN_KEY,
    PATTERN_KIND,
    PATTERN_SIZE,
    PATTERN_START,
)
from .rules import Rules
from .scoring import hand_points, lowest_card_values, table_points
from .state import (
    PHASE_CALL,
    PHASE_CALL_PLAY,
    PHASE_DRAW,
    PHASE_GAME_OVER,
    PHASE_HAND_OVER,
    PHASE_PLAY,
    State,
    empty_state,
)
from .table import any_direction, blocked_cards, layoff_fits, layoff_targets, slot_cards

__all__ = ["init", "deal", "legal_mask", "step", "step_inplace", "table_points", "hand_points"]


# ----------------------------------------------------------------------------- init / deal
def init(
    rules: Rules, seed: int, batch_size: int | None = None, game_ids: np.ndarray | None = None
) -> State:
    """Deal hand 0 of each game. Game ``g`` depends only on (rules, seed, g).

    Pass ``batch_size`` for games 0..B-1, or ``game_ids`` to pick which games
    (game 7 dealt alone equals game 7 of any batch).
    """
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
    add_at(hand, (np.repeat(np.arange(n), dealt), seats.ravel(), decks[:, :dealt].ravel()))
    state.hand[rows] = hand
    state.hand_size[rows] = hs
    state.known[rows] = 0
    state.pile[rows] = 0
    state.pile[rows, 0] = decks[:, dealt]
    state.pile_size[rows] = 1
    rest = decks[:, dealt + 1 :][:, ::-1]
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
    _new_turn(state, rows)
    state.current_player[rows] = first
    state.melded[rows] = False
    state.turn[rows] = 0
    state.went_out[rows] = -1


# ----------------------------------------------------------------------------- step
def step(
    rules: Rules, state: State, actions, *, auto_deal: bool = True, mask: np.ndarray | None = None
) -> State:
    """A new State after one action per game; ``state`` is left untouched.

    ``mask`` may pass ``legal_mask(rules, state)`` when the caller has it already.
    """
    out = state.copy()
    step_inplace(rules, out, actions, auto_deal=auto_deal, mask=mask)
    return out


def step_inplace(
    rules: Rules,
    state: State,
    actions,
    *,
    auto_deal: bool = True,
    mask: np.ndarray | None = None,
    fits: np.ndarray | None = None,
    blocked: np.ndarray | None = None,
) -> None:
    """Apply one action per game to ``state`` in place (the fast path for trainers).

    ``fits`` and ``blocked``: what the tables accepted before the step, as passed to
    ``legal_mask`` (``TableCache`` keeps both). A discard leaves its table as it was,
    so the rummy-call test after it reads them instead of working them out again.
    """
    t = lookup_tables(rules)
    action_ids = t.layout
    actions = np.asarray(actions, dtype=np.int64).reshape(-1)
    if actions.shape[0] != state.batch_size:
        raise ValueError(f"step: got {actions.shape[0]} actions for {state.batch_size} games")
    if actions.shape[0] == 1 and mask is not None and _one_game_step(rules, state, actions, mask):
        return
    live = (state.phase != PHASE_GAME_OVER) & (state.phase != PHASE_HAND_OVER)
    if mask is None:
        mask = legal_mask(rules, state)
    _check_legal(action_ids, mask, actions, live)

    state.hand_ended[:] = False
    rows_of = _rows_by_range(action_ids, actions, live)
    calling = state.phase == PHASE_CALL_PLAY
    if rows_of["draw"].size:
        _apply_draw(rules, state, rows_of["draw"])
    if rows_of["take"].size:
        _apply_take(rules, state, rows_of["take"], actions[rows_of["take"]] - action_ids.TAKE + 1)
    if rows_of["meld"].size:
        _apply_meld(t, state, rows_of["meld"], actions[rows_of["meld"]] - action_ids.MELD)
    if rows_of["layoff"].size:
        code = actions[rows_of["layoff"]] - action_ids.LAYOFF
        _apply_layoff(rules, state, rows_of["layoff"], code // 3, code % 3)
    if rows_of["swap"].size:
        _apply_swap(state, rows_of["swap"], actions[rows_of["swap"]] - action_ids.SWAP)
    if rows_of["discard"].size:
        _apply_discard(state, rows_of["discard"], actions[rows_of["discard"]] - action_ids.DISCARD)
    if rows_of["call"].size:
        _apply_call(state, rows_of["call"])
    if rows_of["pass"].size:
        _apply_pass(rules, state, rows_of["pass"])

    # Emptying the hand in the play phase: out, or (floating) the turn ends at once.
    # Each kind of action that ends something adds its rows; empty kinds cost nothing.
    out, turn_over, hand_over = [], [], [rows_of["end"]]
    discarded, done = rows_of["discard"], rows_of["done"]
    if discarded.size:
        discard_out = state.hand_size[discarded, state.current_player[discarded]] == 0
        out.append(discarded[discard_out])
        turn_over.append(discarded[~discard_out])
    if rows_of["meld"].size or rows_of["layoff"].size:
        played = np.concatenate([rows_of["meld"], rows_of["layoff"]])
        played = played[~calling[played]]
        emptied = played[state.hand_size[played, state.current_player[played]] == 0]
        floating = (
            ~state.started_floating[emptied] if rules.floating else np.zeros(emptied.size, bool)
        )
        out.append(emptied[~floating])
        turn_over.append(emptied[floating])
    if out:
        went_out = np.concatenate(out)
        state.went_out[went_out] = state.current_player[went_out]
        hand_over.append(went_out)

    if done.size:
        done_out = (
            done[state.hand_size[done, state.current_player[done]] == 0]
            if not rules.floating
            else done[:0]
        )
        state.went_out[done_out] = state.current_player[done_out]
        _resume_after_call(rules, state, done[~np.isin(done, done_out)] if done_out.size else done)
        hand_over.append(done_out)

    if turn_over:
        ended = _finish_turns(rules, t, state, np.concatenate(turn_over), discarded, fits, blocked)
        hand_over.append(ended)
    ended_hands = np.concatenate(hand_over)  # sorted below: the order they came in is no matter
    if ended_hands.size:
        _end_hands(rules, state, np.sort(ended_hands), auto_deal)


def _one_game_step(rules: Rules, state: State, actions: np.ndarray, mask: np.ndarray) -> bool:
    """Apply a lone live game's legal action with ``step_one`` when it can, with scalar
    checks only; False leaves the step (and any refusal) to the batched code."""
    phase, a = int(state.phase[0]), int(actions[0])
    ids = lookup_tables(rules).layout
    if (
        phase == PHASE_GAME_OVER
        or phase == PHASE_HAND_OVER
        or not (0 <= a < ids.size and mask[0, a])
    ):
        return False
    state.hand_ended[0] = False
    return step_one(rules, ids, state, a)


def _check_legal(action_ids, mask: np.ndarray, actions: np.ndarray, live: np.ndarray) -> None:
    """Raise ``ValueError`` for the first live game whose action is out of range or masked."""
    if actions.shape[0] == 1:  # one game: two comparisons
        a = int(actions[0])
        if not live[0] or (0 <= a < action_ids.size and mask[0, a]):
            return
    bad = (live & ~action_ids.legal(mask, actions)).nonzero()[0]
    if bad.size:
        g = int(bad[0])
        raise ValueError(
            action_ids.illegal_message(actions[g], mask[g], f" in game {g}")
            + (f" ({bad.size} games had illegal actions)" if bad.size > 1 else "")
        )


ACTION_KINDS = ("draw", "end", "take", "meld", "layoff", "discard", "swap", "call", "pass", "done")


@lru_cache(maxsize=16)
def _kind_starts(action_ids: ActionLayout) -> np.ndarray:
    """int64 [9]: first id of each of ``ACTION_KINDS`` after ``draw``."""
    starts = np.array(
        [
            action_ids.END,
            action_ids.TAKE,
            action_ids.MELD,
            action_ids.LAYOFF,
            action_ids.DISCARD,
            action_ids.SWAP,
            action_ids.CALL,
            action_ids.PASS,
            action_ids.DONE,
        ]
    )
    starts.setflags(write=False)
    return starts


@lru_cache(maxsize=16)
def _kind_of_action(action_ids: ActionLayout) -> np.ndarray:
    """int8 [A]: the index in ``ACTION_KINDS`` of each action id (one take per batch)."""
    kinds = np.searchsorted(
        _kind_starts(action_ids), np.arange(action_ids.size), side="right"
    ).astype(np.int8)
    kinds.setflags(write=False)
    return kinds


def _read_only(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


_NO_ROWS, _ROW_0 = _read_only(np.zeros(0, np.int64)), _read_only(np.zeros(1, np.int64))


def _rows_by_range(action_ids, actions: np.ndarray, live: np.ndarray) -> dict[str, np.ndarray]:
    """The live games (ascending) taking each kind of action, in a few array passes (one
    game: one lookup)."""
    if actions.shape[0] == 1:
        rows = dict.fromkeys(ACTION_KINDS, _NO_ROWS)
        if live[0]:
            starts = _kind_starts(action_ids).tolist()
            rows[ACTION_KINDS[bisect.bisect_right(starts, int(actions[0]))]] = _ROW_0
        return rows
    # Clipped: a finished game's action may be any number, and its kind is overwritten.
    kind = np.take(_kind_of_action(action_ids), actions, mode="clip")
    kind[~live] = len(ACTION_KINDS)
    order = np.argsort(kind, kind="stable")  # int8: a radix sort, ten times faster
    ends = np.cumsum(np.bincount(kind, minlength=len(ACTION_KINDS) + 1)).tolist()
    return {name: order[start:end] for name, start, end in zip(ACTION_KINDS, [0] + ends, ends)}


def _start_play(state: State, rows: np.ndarray, seat: np.ndarray) -> None:
    state.started_floating[rows] = state.hand_size[rows, seat] == 0
    state.phase[rows] = PHASE_PLAY


def _apply_draw(rules: Rules, state: State, rows: np.ndarray) -> None:
    seat = state.current_player[rows]
    _start_play(state, rows, seat)
    top = state.stock_size[rows] - 1
    card = state.stock[rows, top]
    state.stock_size[rows] = top
    state.hand[rows, seat, card] += 1
    state.hand_size[rows, seat] += 1
    state.drew_last[rows] = (top == 0) & (rules.stock_out == "last_draw")


def _apply_take(rules: Rules, state: State, rows: np.ndarray, depth: np.ndarray) -> None:
    seat = state.current_player[rows].astype(np.int64)
    _start_play(state, rows, seat)
    pile_size = state.pile_size[rows].astype(np.int64)
    i, j = filled_slots(depth)
    rr, ss = rows[i], seat[i]  # one entry per card taken, j cards below the top
    cards = state.pile[rr, pile_size[i] - 1 - j]
    add_at(state.hand, (rr, ss, cards))
    add_at(state.known, (rr, ss, cards))
    state.taken[rr, cards] = True
    state.hand_size[rows, seat] += depth.astype(np.int16)
    deepest = state.pile[rows, pile_size - depth]
    state.pile_size[rows] = pile_size - depth
    owe = (depth >= 2) | rules.top_card_must_meld
    state.owed[rows] = np.where(owe, deepest, -1)
    state.no_discard[rows] = np.where(depth == 1, deepest, -1)
    state.drew_last[rows] = False


def _remove_from_hand(
    state: State, rows: np.ndarray, seat: np.ndarray, cards: np.ndarray, copies=1
) -> None:
    """Take ``copies`` of each (row, card) out of the seat's hand, known copies first.

    The (row, card) pairs must be distinct; ``hand_size`` is the caller's to update.
    """
    state.hand[rows, seat, cards] -= copies
    known = state.known[rows, seat, cards]
    state.known[rows, seat, cards] = np.maximum(known - copies, 0)


def _apply_meld(t: LookupTables, state: State, rows: np.ndarray, pattern: np.ndarray) -> None:
    """Lay a new meld: natural cards the player holds, a joker for each card it lacks."""
    seat = state.current_player[rows]
    i, k = np.nonzero(PATTERN_CARDS[pattern] >= 0)  # one entry per card of each meld
    rr, ss, cards = rows[i], seat[i], PATTERN_CARDS[pattern[i], k]
    held = state.hand[rr, ss, cards] > 0
    _remove_from_hand(state, rr[held], ss[held], cards[held])
    jokers_used = np.bincount(i[~held], minlength=rows.size)
    if jokers_used.any():
        _remove_from_hand(state, rows, seat, np.full(rows.size, JOKER), jokers_used)
    state.hand_size[rows, seat] -= PATTERN_SIZE[pattern]
    m = state.n_melds[rows].astype(np.int64)
    state.meld_kind[rows, m] = PATTERN_KIND[pattern]
    state.meld_key[rows, m] = PATTERN_KEY[pattern]
    state.meld_start[rows, m] = PATTERN_START[pattern]
    state.meld_len[rows, m] = PATTERN_SIZE[pattern]
    mm, slots = m[i], t.pattern_slots[pattern[i], k]
    state.meld_by[rr, mm, slots] = ss
    state.meld_joker[rr[~held], mm[~held], slots[~held]] = True
    state.n_melds[rows] += 1
    state.melded[rows, seat] = True
    owed = state.owed[rows]
    settled = np.where(
        owed == JOKER, jokers_used > 0, (owed >= 0) & PATTERN_CONTAINS[np.maximum(owed, 0), pattern]
    )
    state.owed[rows] = np.where(settled, -1, owed)


def _apply_layoff(
    rules: Rules, state: State, rows: np.ndarray, card: np.ndarray, direction: np.ndarray
) -> None:
    """Add a card (the natural one if held, else a joker declared as it) to the oldest
    meld it fits."""
    seat = state.current_player[rows]
    targets = layoff_targets(rules, state, rows)  # [n, M, 3]
    fits = targets[np.arange(rows.size), :, direction] == card[:, None]
    m = np.argmax(fits, axis=1)
    natural = state.hand[rows, seat, card] > 0
    _remove_from_hand(state, rows, seat, np.where(natural, card, JOKER))
    state.hand_size[rows, seat] -= 1
    slot = np.where(direction == LAYOFF_SET, card // N_RANKS, card % N_RANKS)
    state.meld_by[rows, m, slot] = seat
    state.meld_joker[rows, m, slot] = ~natural
    state.meld_len[rows, m] += 1
    down = direction == LAYOFF_DOWN
    state.meld_start[rows[down], m[down]] = (state.meld_start[rows[down], m[down]] - 1) % N_RANKS
    owed = state.owed[rows]
    settled = np.where(owed == JOKER, ~natural, natural & (owed == card))
    state.owed[rows] = np.where(settled, -1, owed)


def _apply_swap(state: State, rows: np.ndarray, card: np.ndarray) -> None:
    """The natural card replaces the oldest table joker declared as it; the joker,
    known to all, goes to the player's hand. Swapping the owed card (``dig_swap``, the
    only swap offered while a card is owed) settles the obligation."""
    seat = state.current_player[rows]
    shows = slot_cards(state, rows) == card[:, None, None]  # [n, used melds, 13]
    jokers = state.meld_joker[rows, : shows.shape[1]]
    candidates = (shows & jokers).reshape(rows.size, -1)
    flat = np.argmax(candidates, axis=1)
    m, slot = np.divmod(flat, N_RANKS)
    state.meld_joker[rows, m, slot] = False
    _remove_from_hand(state, rows, seat, card)
    state.hand[rows, seat, JOKER] += 1
    state.known[rows, seat, JOKER] += 1
    state.owed[rows] = np.where(state.owed[rows] == card, -1, state.owed[rows])


def _apply_discard(state: State, rows: np.ndarray, card: np.ndarray) -> None:
    seat = state.current_player[rows]
    _remove_from_hand(state, rows, seat, card)
    state.hand_size[rows, seat] -= 1
    size = state.pile_size[rows]
    state.pile[rows, size] = card
    state.pile_size[rows] = size + 1


def _apply_call(state: State, rows: np.ndarray) -> None:
    """The caller takes the discard into hand (known) and owes it."""
    seat = state.current_player[rows]
    top = state.pile_size[rows] - 1
    card = state.pile[rows, top]
    state.pile_size[rows] = top
    state.hand[rows, seat, card] += 1
    state.known[rows, seat, card] += 1
    state.hand_size[rows, seat] += 1
    state.owed[rows] = card
    state.phase[rows] = PHASE_CALL_PLAY


def _apply_pass(rules: Rules, state: State, rows: np.ndarray) -> None:
    """Ask the next eligible seat from the discarder's left; none left: play goes on."""
    p = rules.players
    discarder = state.call_from[rows].astype(np.int64)
    offsets = (discarder[:, None] + np.arange(p)[None, :]) % p  # seat at each offset
    eligible = state.call_eligible[rows[:, None], offsets]
    asked = (state.current_player[rows].astype(np.int64) - discarder) % p
    later = eligible & (np.arange(p)[None, :] > asked[:, None])
    has_next = later.any(axis=1)
    nxt = offsets[np.arange(rows.size), np.argmax(later, axis=1)]
    state.current_player[rows[has_next]] = nxt[has_next]
    _resume_after_call(rules, state, rows[~has_next])


def _resume_after_call(rules: Rules, state: State, rows: np.ndarray) -> None:
    """Close the call window: the seat left of the discarder starts its turn."""
    state.current_player[rows] = (state.call_from[rows] + 1) % rules.players
    _new_turn(state, rows)


def _new_turn(state: State, rows: np.ndarray) -> None:
    """The seat to play starts its turn at the draw step."""
    state.phase[rows] = PHASE_DRAW
    _clear_turn_memory(state, rows)
    state.drew_last[rows] = False
    state.started_floating[rows] = False
    state.call_from[rows] = -1
    state.call_eligible[rows] = False


def _clear_turn_memory(state: State, rows: np.ndarray) -> None:
    """Forget what the turn remembers of its draw: obligation, held-back cards."""
    state.owed[rows] = -1
    state.no_discard[rows] = -1
    state.taken[rows] = False


def _finish_turns(
    rules: Rules,
    t: LookupTables,
    state: State,
    rows: np.ndarray,
    discards: np.ndarray,
    fits: np.ndarray | None,
    blocked: np.ndarray | None,
) -> np.ndarray:
    """Close the turns of ``rows`` (a discard or a float); returns rows whose hand ends.

    After a discard, a rummy-call window may open instead of the next turn (``fits``,
    ``blocked``: the batch's before the step, when kept).
    """
    state.turn[rows] += 1
    ends = (state.turn[rows] >= rules.max_turns) | state.drew_last[rows]
    go_on = rows[~ends]
    if rules.rummy_call and go_on.size:
        opened = _open_call_windows(rules, t, state, go_on[np.isin(go_on, discards)], fits, blocked)
        go_on = go_on[~np.isin(go_on, opened)]
    state.current_player[go_on] = (state.current_player[go_on] + 1) % rules.players
    _new_turn(state, go_on)
    return rows[ends]


def _open_call_windows(
    rules: Rules,
    t: LookupTables,
    state: State,
    rows: np.ndarray,
    kept_fits: np.ndarray | None,
    kept_blocked: np.ndarray | None,
) -> np.ndarray:
    """Open a call window where the discard may be called; returns those rows.

    ``kept_fits`` / ``kept_blocked``: the batch's from before the step, or None (work
    them out): a discard does not change the table.
    """
    if rows.size == 0:
        return rows
    fits = any_direction(layoff_fits(rules, state, rows) if kept_fits is None else kept_fits[rows])
    blocked = blocked_cards(rules, state, rows) if kept_blocked is None else kept_blocked[rows]
    opens = call_window_opens(rules, t, state, rows, fits, blocked)
    rows, fits = rows[opens], fits[opens]
    blocked = None if blocked is None else blocked[opens]
    if rows.size == 0:
        return rows
    p = rules.players
    discarder = state.current_player[rows].astype(np.int64)
    card = state.pile[rows, state.pile_size[rows] - 1].astype(np.int64)
    eligible = np.zeros((rows.size, p), bool)  # by offset from the discarder
    for k in range(1, p):
        eligible[:, k] = call_eligibility(
            rules, t, state, rows, (discarder + k) % p, card, fits, blocked
        )
    opened = eligible.any(axis=1)
    rows, discarder, eligible = rows[opened], discarder[opened], eligible[opened]
    first = (discarder + np.argmax(eligible, axis=1)) % p
    state.call_from[rows] = discarder
    seats = (discarder[:, None] + np.arange(p)[None, :]) % p
    state.call_eligible[rows[:, None], seats] = eligible
    state.current_player[rows] = first
    state.phase[rows] = PHASE_CALL
    _clear_turn_memory(state, rows)
    return rows


# ----------------------------------------------------------------------------- hand end
def _game_result(rules: Rules, state: State, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(bool [n] the game ends with this hand, int64 [n] its winner) from the new totals.

    Under ``go_out_to_win`` (not in a quick game) the seat that went out wins once it
    reached the target. Otherwise the game would end at the target, or after hand
    ``game_hands`` of a quick game, and ends if one seat leads alone; under
    ``tie_break: lowest_card`` the tied seat holding the lowest card breaks a tie.
    """
    totals = state.totals[rows]
    if rules.go_out_to_win and not rules.game_hands:
        out = state.went_out[rows].astype(np.int64)
        scorer = np.where(out >= 0, out, 0)
        over = (out >= 0) & (totals[np.arange(rows.size), scorer] >= rules.target)
        return over, out
    best = totals.max(axis=1)
    leaders = totals == best[:, None]
    if rules.game_hands:
        would_end = state.hand_number[rows] + 1 >= rules.game_hands
    else:
        would_end = best >= rules.target
    if rules.tie_break == "lowest_card":
        lowest = lowest_card_values(rules, state, rows)
        lowest = np.where(leaders, lowest, np.iinfo(np.int32).max)
        leaders &= lowest == lowest.min(axis=1, keepdims=True)
    over = would_end & (leaders.sum(axis=1) == 1)
    return over, leaders.argmax(axis=1)


def _end_hands(rules: Rules, state: State, rows: np.ndarray, auto_deal: bool) -> None:
    scores = table_points(rules, state, rows) - hand_points(rules, state, rows)
    state.hand_scores[rows] = scores
    state.totals[rows] += scores
    state.hand_ended[rows] = True
    _clear_turn_memory(state, rows)
    state.drew_last[rows] = False
    state.call_from[rows] = -1
    state.call_eligible[rows] = False
    over, winner = _game_result(rules, state, rows)
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

"""The observation of one seat in one game, in plain Python: the one-game envs' path.

``observation.observe`` encodes a batch in a few dozen whole-array operations;
for one game each of them costs its call overhead, not its work. This module
builds the same vector (``observation.py`` has the layout) from the state's few
dozen numbers as Python lists and one buffer, with no ``PlayerView`` in between.
It equals ``observe(rules, state, [seat], [row])[0]`` to the bit (tested for
every preset); the AEC and Gymnasium envs call it. The table's columns
(``table_part``) change only with the table, so those envs keep them between
steps and pass them in.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np

from ..cards import JOKER, N_RANKS
from ..lookup import lookup_tables
from ..observation import PILE_TOP, _encode_plan
from ..patterns import KIND_SET
from ..rules import Rules
from ..scoring import slot_points_table
from ..state import State


class TablePart(NamedTuple):
    """What one game's table writes into one seat's observation (``table_part``)."""

    columns: np.ndarray
    """int64 [k]: the observation columns the table sets (table_* and melds blocks)."""
    values: np.ndarray
    """float32 [k]: their values."""
    points: list[float]
    """Points each absolute seat has on the table this hand."""


def table_part(rules: Rules, state: State, seat: int, row: int = 0) -> TablePart:
    """The table's columns of ``seat``'s observation in game ``row``: they change only when a
    meld, lay-off or joker swap changes the table, so a one-game env may keep them.

    A loop over the filled slots (a table holds a few dozen): for one game that is
    cheaper than the batched encoder's whole-array operations."""
    plan, prices = _encode_plan(rules), _slot_prices(rules)
    col, p = plan.col, rules.players
    n_melds = state.meld_kind.shape[1]
    used = int(state.n_melds[row])
    points = [0.0] * p
    if not used:
        return TablePart(np.zeros(0, np.int64), np.zeros(0, np.float32), points)
    set_col, run_col, meld_col, joker_col = (
        col[name] for name in ("table_set", "table_run", "table_meld", "table_joker")
    )
    by_col = [col["table_by"] + k * (JOKER + 1) for k in range(p)]
    joker_points, distinct = lookup_tables(rules).joker_points, plan.distinct
    values: dict[int, float] = {}
    kinds, keys = state.meld_kind[row, :used].tolist(), state.meld_key[row, :used].tolist()
    starts, lengths = state.meld_start[row, :used].tolist(), state.meld_len[row, :used].tolist()
    by_all, jokers = state.meld_by[row, :used].tolist(), state.meld_joker[row, :used].tolist()
    shares = [(m + 1) / n_melds for m in range(used)]  # cast to float32 once, at the end

    for m in range(used):
        kind, key, share = kinds[m], keys[m], shares[m]
        is_set = kind == KIND_SET
        price = prices[0 if is_set else 1 + (starts[m] != 0)][key]
        kind_col = set_col if is_set else run_col
        for j, by in enumerate(by_all[m]):
            if by < 0:
                continue
            card = j * N_RANKS + key if is_set else key * N_RANKS + j
            joker = jokers[m][j]
            marked = [card + kind_col, card + by_col[(by - seat) % p]]
            if joker and rules.n_jokers:
                marked.append(card + joker_col)
            for column in marked:  # copies add up where the deck has them
                values[column] = 1.0 if distinct else values.get(column, 0.0) + 1.0
            if distinct or meld_col + card not in values:  # distinct: the later meld's share
                values[meld_col + card] = share
            points[by] += joker_points if joker and joker_points >= 0 else price[j]
        first = col["melds"] + 3 * m
        values[first + (0 if is_set else 1)] = 1.0
        values[first + 2] = lengths[m] / N_RANKS
    columns = np.fromiter(values, np.int64, len(values))
    return TablePart(columns, np.fromiter(values.values(), np.float32, len(values)), points)


@lru_cache(maxsize=16)
def _slot_prices(rules: Rules) -> list[list[list[int]]]:
    """``scoring``'s slot points as nested lists [shape][key][slot] (shape 0 a set, 1 a
    run from the ace, 2 any other run)."""
    return slot_points_table(rules).tolist()


def observe_one(
    rules: Rules, state: State, seat: int, row: int = 0, table: TablePart | None = None
) -> np.ndarray:
    """float32 [D]: the observation of absolute ``seat`` in game ``row`` of ``state``;
    ``table``: its ``table_part`` when the caller keeps it."""
    plan = _encode_plan(rules)
    col, deck, c = plan.col, float(rules.deck_cards), JOKER + 1
    p = rules.players
    order = _seat_order(p, seat)
    obs = _blank(rules).copy()  # zeros but for the rule features

    obs[col["hand"] : col["hand"] + c] = state.hand[row, seat]
    known = state.known[row] if seat == 0 else state.known[row, order]  # me first
    obs[col["known"] : col["known"] + p * c] = known.reshape(-1)
    ones: list[int] = []  # columns set to 1 (where copies cannot add up)

    # The pile, oldest first: counts, depth of the topmost copy, the top cards in order.
    pile_size = int(state.pile_size[row])
    depth_col, pile_col, top_col = col["pile_depth"], col["pile"], col["pile_top"]
    for i, card in enumerate(state.pile[row, :pile_size].tolist()):
        depth = pile_size - i
        if depth <= PILE_TOP:
            ones.append(top_col + (depth - 1) * c + card)
        if plan.distinct:
            ones.append(pile_col + card)
        else:
            obs[pile_col + card] += 1.0
        obs[depth_col + card] = depth / deck  # the later (higher) copy overwrites

    if table is None:
        table = table_part(rules, state, seat, row)
    obs[table.columns] = table.values
    points = table.points

    # One-hot blocks: phase, to play, dealer (relative), owed and no_discard when set.
    phase_col, to_play_col, dealer_col, owed_col, no_discard_col = plan.hot_starts.tolist()
    ones.append(phase_col + int(state.phase[row]))
    for start, who in ((to_play_col, state.current_player), (dealer_col, state.dealer)):
        if who[row] >= 0:
            ones.append(start + (int(who[row]) - seat) % p)
    for start, card in ((owed_col, state.owed), (no_discard_col, state.no_discard)):
        if card[row] >= 0:
            ones.append(start + int(card[row]))
    obs[ones] = 1.0
    if rules.keep_taken:
        obs[no_discard_col : no_discard_col + c] = state.taken[row]

    # Copies I cannot see: the deck minus everything visible to me.
    cards = obs[: plan.visible.size * c].reshape(plan.visible.size, c)
    visible = plan.visible @ cards
    if rules.n_jokers:
        visible[JOKER] += obs[col["table_joker"] : col["table_joker"] + c].sum()
    obs[col["unseen"] : col["unseen"] + c] = plan.deck_counts - visible

    # The numbers: hand_sizes .. melded, then turn and hand_number, over their divisors.
    sizes, totals = state.hand_size[row].tolist(), state.totals[row].tolist()
    melded = state.melded[row].tolist()
    numbers = [
        *[sizes[s] for s in order],
        int(state.stock_size[row]),
        pile_size,
        *[points[s] for s in order],
        *[totals[s] for s in order],
        *[melded[s] for s in order],
    ]
    divisors = _divisors(rules)  # Python floats divide as numpy's float64 does
    k = len(numbers)
    obs[col["hand_sizes"] : col["hand_sizes"] + k] = [a / d for a, d in zip(numbers, divisors)]
    obs[col["turn"]] = int(state.turn[row]) / divisors[k]
    obs[col["hand_number"]] = int(state.hand_number[row]) / divisors[k + 1]
    return obs


@lru_cache(maxsize=64)
def _seat_order(players: int, seat: int) -> tuple[int, ...]:
    """The absolute seats in ``seat``'s relative order (me first)."""
    return tuple((seat + i) % players for i in range(players))


@lru_cache(maxsize=16)
def _divisors(rules: Rules) -> list[float]:
    """The numbers' divisors (``plan.numbers``) as Python floats."""
    return _encode_plan(rules).numbers.tolist()


@lru_cache(maxsize=16)
def _blank(rules: Rules) -> np.ndarray:
    """float32 [D]: an observation with only the rule features set (they never change)."""
    plan = _encode_plan(rules)
    blank = np.zeros(plan.size, np.float32)
    blank[plan.col["rules"] : plan.col["rules"] + plan.rules.size] = plan.rules
    blank.setflags(write=False)
    return blank

"""The observation of one seat in one game, in plain Python: the one-game envs' path.

``observation.observe`` encodes a batch in a few dozen whole-array operations;
for one game each of them costs its call overhead, not its work. This module
builds the same vector (``observation.py`` has the layout) from the state's few
dozen numbers as Python lists and one buffer, with no ``PlayerView`` in between.
It equals ``observe(rules, state, [seat], [row])[0]`` to the bit (tested for
every preset); the AEC and Gymnasium envs call it.
"""

from __future__ import annotations

import numpy as np

from .cards import JOKER, N_RANKS
from .lookup import lookup_tables
from .observation import PILE_TOP, _encode_plan
from .patterns import KIND_RUN, KIND_SET
from .rules import Rules
from .scoring import _slot_points_table
from .state import State


def observe_one(rules: Rules, state: State, seat: int, row: int = 0) -> np.ndarray:
    """float32 [D]: the observation of absolute ``seat`` in game ``row`` of ``state``."""
    plan = _encode_plan(rules)
    col, deck, c = plan.col, plan.deck, JOKER + 1
    p = rules.players
    order = [(seat + i) % p for i in range(p)]
    obs = np.zeros(plan.size, np.float32)

    obs[col["hand"]: col["hand"] + c] = state.hand[row, seat]
    obs[col["known"]: col["known"] + p * c] = state.known[row, order].reshape(-1)
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

    # The table: each filled slot is one declared card laid by one seat.
    n_melds = state.meld_kind.shape[1]
    used = int(state.n_melds[row])
    joker_points = lookup_tables(rules).joker_points
    points = [0] * p  # absolute seats
    meld_col = col["melds"]
    if used:
        kinds = state.meld_kind[row, :used].tolist()
        keys = state.meld_key[row, :used].tolist()
        starts = state.meld_start[row, :used].tolist()
        by_all = state.meld_by[row, :used]
        m_at, j_at = np.nonzero(by_all >= 0)
        by = by_all[m_at, j_at].tolist()
        jokers = state.meld_joker[row, :used][m_at, j_at].tolist()
        slot_points = _slot_points_table(rules)
        set_col, run_col, by_col = col["table_set"], col["table_run"], plan.by_col.tolist()
        joker_col, oldest_col = col["table_joker"], col["table_meld"]
        oldest: dict[int, int] = {}
        for m, j, owner, joker in zip(m_at.tolist(), j_at.tolist(), by, jokers):
            kind, key = kinds[m], keys[m]
            card = j * N_RANKS + key if kind == KIND_SET else key * N_RANKS + j
            at = [set_col + card if kind == KIND_SET else run_col + card,
                  by_col[(owner - seat) % p] + card]
            if joker and rules.n_jokers:
                at.append(joker_col + card)
            if plan.distinct:
                ones += at
                obs[oldest_col + card] = (m + 1) / n_melds  # the later meld overwrites
            else:
                for a in at:
                    obs[a] += 1.0
                oldest.setdefault(card, m)
            shape = 0 if kind != KIND_RUN else 1 + (starts[m] != 0)
            points[owner] += (joker_points if joker and joker_points >= 0
                              else int(slot_points[shape, key, j]))
        for card, m in oldest.items():
            obs[oldest_col + card] = (m + 1) / n_melds
        lengths = state.meld_len[row, :used].tolist()
        for m in range(used):
            base = meld_col + 3 * m
            obs[base] = kinds[m] == KIND_SET
            obs[base + 1] = kinds[m] == KIND_RUN
            obs[base + 2] = lengths[m] / N_RANKS

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
        obs[no_discard_col: no_discard_col + c] = state.taken[row]

    # Copies I cannot see: the deck minus everything visible to me.
    cards = obs[: plan.visible.size * c].reshape(plan.visible.size, c)
    visible = plan.visible @ cards
    if rules.n_jokers:
        visible[JOKER] += obs[col["table_joker"]: col["table_joker"] + c].sum()
    obs[col["unseen"]: col["unseen"] + c] = plan.deck_counts - visible

    # The numbers: hand_sizes .. melded, then turn and hand_number, over their divisors.
    numbers = [*state.hand_size[row, order].tolist(), int(state.stock_size[row]), pile_size,
               *(points[s] for s in order), *state.totals[row, order].tolist(),
               *state.melded[row, order].tolist()]
    k = len(numbers)
    obs[col["hand_sizes"]: col["hand_sizes"] + k] = np.divide(numbers, plan.numbers[:k])
    obs[col["turn"]] = int(state.turn[row]) / plan.numbers[k]
    obs[col["hand_number"]] = int(state.hand_number[row]) / plan.numbers[k + 1]
    obs[col["rules"]: col["rules"] + plan.rules.size] = plan.rules
    return obs

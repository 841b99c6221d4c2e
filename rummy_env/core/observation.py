"""Observation vectors: everything one seat may know, as float32 [n, D].

``observe(rules, state, seats)`` encodes ``view.player_view`` (the structured
public view of each seat) into one flat vector per game, so nothing hidden (the
other hands' unknown cards, the stock's order) can reach it. Every per-seat
block is relative to the observer: seat 0 = me, 1 = the next seat to my left, ...
The encoding is batched: no Python loop over games.

Sizes: C = 53 card columns (card id = suit * 13 + rank, 52 = joker; see
``cards.py``), P = seats, M = ``state.max_melds(rules)`` table melds, K = 4.
Card counts are copies (0..2 with two decks). N = ``rules.deck_cards``.

================  =========  ==================================================
name              size       meaning
================  =========  ==================================================
hand              C          copies of each card in my hand
known             P*C        copies each seat is known to hold (taken from the
                             pile, not yet played); row 0 = me
unseen            C          copies I cannot see anywhere (stock, or hidden in
                             another hand): deck - mine - pile - table - known
pile              C          copies in the discard pile
pile_depth        C          depth of the topmost copy in the pile / N (the top
                             card is 1/N; ``take d`` reaches depth <= d), 0 absent
pile_top          K*C        one-hot card at depth 1, 2, ..., K (top first)
table_set         C          copies on the table in sets (as the card declared)
table_run         C          copies on the table in runs
table_by          P*C        copies on the table laid by each relative seat
table_joker       C          copies on the table that are jokers declared as it
table_meld        C          (m + 1) / M for the oldest table meld m holding it
melds             M*3        per table meld: is set, is run, length / 13
hand_sizes        P          cards in each hand / hand_cards of the deal
stock_size        1          cards in the stock / N
pile_size         1          cards in the discard pile / N
table_points      P          points each seat has on the table this hand / 100
totals            P          running totals / target
melded            P          seat has melded this hand
phase             6          one-hot ``state.PHASE_NAMES``: draw, play, hand_over,
                             game_over, call, call_play
to_play           P          one-hot relative seat that must act
dealer            P          one-hot relative seat of the dealer
owed              C          one-hot card the next meld / lay-off must contain
no_discard        C          one-hot card I may not discard this turn (``keep_taken``:
                             every card taken from the pile this turn)
turn              1          finished turns this hand / max_turns
hand_number       1          hands finished before this one / max_hands
rules             24         the rule flags that vary (``RULE_FEATURES``)
================  =========  ==================================================

``obs_layout(rules).slices[name]`` gives each block's slice and
``obs_layout(rules).table()`` the (name, offset, size) rows; with 2 players and one
deck D = 1051. Any change to this layout (a new phase in ``state.PHASE_NAMES``
included) bumps ``OBS_VERSION``: checkpoints record it.

>>> from rummy_env import core
>>> from rummy_env.core.rules import Rules
>>> rules = Rules()
>>> observe(rules, core.init(rules, seed=0, batch_size=3)).shape == (3, observation_size(rules))
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from .cards import JOKER, N_CARD_IDS, N_NATURAL, N_RANKS
from .lookup import lookup_tables
from .patterns import KIND_RUN, KIND_SET
from .rules import Rules
from .state import PHASE_NAMES, State, max_melds
from .view import PlayerView, player_view

OBS_VERSION = 2
C = N_CARD_IDS
PILE_TOP = 4
MELD_FEATURES = 3

RULE_FEATURES = (
    "two_decks", "jokers_per_deck/2", "joker_value_15", "joker_value_25", "joker_value_declared",
    "low_ace_15", "ace_high", "wrap", "pip_flat5", "dig", "top_card_must_meld",
    "discard_required", "layoff_requires_meld", "floating", "joker_swap", "rummy_call",
    "stock_out_last_draw", "go_out_to_win", "target/1000", "hand_cards/13",
    "keep_taken", "dig_swap", "game_hands/10", "tie_break_lowest_card",
)


@dataclass(frozen=True)
class ObsLayout:
    """Named slices of the observation vector of one rules config."""

    fields: tuple[tuple[str, int], ...]
    """(name, size) of each block, in order."""
    slices: dict[str, slice] = field(init=False, compare=False)
    size: int = field(init=False, compare=False)

    def __post_init__(self) -> None:
        slices, offset = {}, 0
        for name, size in self.fields:
            slices[name] = slice(offset, offset + size)
            offset += size
        object.__setattr__(self, "slices", slices)
        object.__setattr__(self, "size", offset)

    def table(self) -> list[tuple[str, int, int]]:
        """(name, offset, size) rows, as in the module docstring."""
        return [(name, s.start, s.stop - s.start) for name, s in self.slices.items()]


@lru_cache(maxsize=64)
def obs_layout(rules: Rules) -> ObsLayout:
    p, m = rules.players, max_melds(rules)
    return ObsLayout((
        ("hand", C), ("known", p * C), ("unseen", C), ("pile", C), ("pile_depth", C),
        ("pile_top", PILE_TOP * C), ("table_set", C), ("table_run", C), ("table_by", p * C),
        ("table_joker", C), ("table_meld", C), ("melds", m * MELD_FEATURES),
        ("hand_sizes", p), ("stock_size", 1), ("pile_size", 1), ("table_points", p),
        ("totals", p), ("melded", p), ("phase", len(PHASE_NAMES)), ("to_play", p),
        ("dealer", p), ("owed", C), ("no_discard", C), ("turn", 1), ("hand_number", 1),
        ("rules", len(RULE_FEATURES)),
    ))


def observation_size(rules: Rules) -> int:
    """D: the length of one observation vector."""
    return obs_layout(rules).size


@lru_cache(maxsize=64)
def rule_features(rules: Rules) -> np.ndarray:
    """float32 [24]: the rule flags that vary, in ``RULE_FEATURES`` order."""
    values = [
        rules.n_decks == 2, rules.jokers / 2, rules.joker_value == 15, rules.joker_value == 25,
        rules.joker_value == "declared", rules.low_ace_value == 15, rules.ace_high, rules.wrap,
        rules.pip_values == "flat5", rules.dig, rules.top_card_must_meld, rules.discard_required,
        rules.layoff_requires_meld, rules.floating, rules.joker_swap, rules.rummy_call,
        rules.stock_out == "last_draw", rules.go_out_to_win, rules.target / 1000,
        rules.hand_cards / 13, rules.keep_taken, rules.dig_swap, rules.game_hands / 10,
        rules.tie_break == "lowest_card",
    ]
    out = np.array(values, np.float32)
    out.setflags(write=False)
    return out


@lru_cache(maxsize=64)
def observation_bounds(rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) float32 [D]: finite bounds every observation lies within."""
    action_ids = obs_layout(rules)
    s = action_ids.slices
    decks = float(max(rules.n_decks, rules.n_jokers))
    low = np.zeros(action_ids.size, np.float32)
    high = np.ones(action_ids.size, np.float32)
    for name in ("hand", "known", "unseen", "pile", "pile_top", "table_set", "table_run",
                 "table_by", "table_joker"):
        high[s[name]] = decks
    t = lookup_tables(rules)
    # No hand, table or score can hold more points than the whole deck.
    deck_points = float(t.card_values[:N_NATURAL].sum() * rules.n_decks
                        + max(t.card_values[JOKER], 25) * rules.n_jokers)
    high[s["hand_sizes"]] = rules.deck_cards / rules.hand_cards
    high[s["table_points"]] = deck_points / 100
    total_bound = deck_points * rules.max_hands / rules.target
    low[s["totals"]], high[s["totals"]] = -total_bound, total_bound
    high[s["rules"]] = np.maximum(rule_features(rules), 1.0)
    low.setflags(write=False)
    high.setflags(write=False)
    return low, high


def observe(rules: Rules, state: State, seats: np.ndarray | None = None,
            rows: np.ndarray | None = None) -> np.ndarray:
    """float32 [n, D]: the observation of ``seats[i]`` in game ``rows[i]``.

    Defaults: every game, observed by the seat to play (``state.current_player``).
    """
    return encode(rules, player_view(rules, state, seats, rows))


def encode(rules: Rules, view: PlayerView, out: np.ndarray | None = None) -> np.ndarray:
    """float32 [n, D]: the flat observation of a ``PlayerView`` (layout in the docstring).

    ``out`` may pass a C-contiguous float32 [n, D] buffer to fill (and return) instead
    of a new array: batched callers reuse one and skip the allocation.
    """
    action_ids = obs_layout(rules)
    s = action_ids.slices
    n, p = view.size, rules.players
    deck = float(rules.deck_cards)
    if out is None:
        obs = np.zeros((n, action_ids.size), np.float32)
    else:
        if (out.shape != (n, action_ids.size) or out.dtype != np.float32
                or not out.flags.c_contiguous):
            raise ValueError(f"encode: out must be C-contiguous float32 {(n, action_ids.size)}")
        obs = out
        obs.fill(0.0)
    rows = np.arange(n)
    flat = obs.reshape(-1)
    base = rows * action_ids.size  # flat index of each row's first column
    distinct = _distinct_cards(rules)

    obs[:, s["hand"]] = view.hand
    obs[:, s["known"]] = view.known.reshape(n, -1)

    # The pile: counts, depth of the topmost copy, and the top K cards in order.
    pile_size = view.pile_size.astype(np.int64)
    used = max(int(pile_size.max(initial=0)), 1)
    at = np.flatnonzero(np.arange(used)[None, :] < pile_size[:, None])
    r, i = at // used, at % used
    card = view.pile[:, :used].reshape(-1)[at].astype(np.int64)
    depth = pile_size[r] - i
    at_card = base[r] + card
    if distinct:
        flat[at_card + s["pile"].start] = 1.0
        flat[at_card + s["pile_depth"].start] = depth / deck
    else:  # copies add up; the topmost copy has the greatest height (deck + 1 - depth)
        np.add.at(flat, at_card + s["pile"].start, 1.0)
        height = np.zeros(n * C, np.int64)
        np.maximum.at(height, r * C + card, rules.deck_cards + 1 - depth)
        height = height.reshape(n, C)
        obs[:, s["pile_depth"]] = np.where(height > 0, (deck + 1 - height) / deck, 0.0)
    near = depth <= PILE_TOP  # depth d is the one-hot row d - 1 of pile_top
    flat[at_card[near] + s["pile_top"].start + (depth[near] - 1) * C] = 1.0

    # The table: every occupied slot is one declared card laid by one seat.
    n_melds = view.meld_by.shape[1]
    used = max(int(view.n_melds.max(initial=0)), 1)
    by = view.meld_by[:, :used].reshape(-1)
    at = np.flatnonzero(by >= 0)
    r, m, j = at // (used * N_RANKS), (at // N_RANKS) % used, at % N_RANKS
    meld_at = r * n_melds + m
    is_set = view.meld_kind.reshape(-1)[meld_at] == KIND_SET
    key = view.meld_key.reshape(-1)[meld_at].astype(np.int64)
    card = np.where(is_set, j * N_RANKS + key, key * N_RANKS + j)
    at_card = base[r] + card
    kind_col = np.where(is_set, s["table_set"].start, s["table_run"].start)
    by_col = s["table_by"].start + by[at].astype(np.int64) * C
    jokers = view.meld_joker[:, :used].reshape(-1)[at] if rules.n_jokers else None
    if distinct:
        flat[at_card + kind_col] = 1.0
        flat[at_card + by_col] = 1.0
        flat[at_card + s["table_meld"].start] = (m + 1) / n_melds
        if jokers is not None:
            flat[at_card[jokers] + s["table_joker"].start] = 1.0
    else:  # copies add up; the oldest meld holding one has the greatest n_melds - m
        np.add.at(flat, at_card + kind_col, 1.0)
        np.add.at(flat, at_card + by_col, 1.0)
        if jokers is not None:
            np.add.at(flat, at_card[jokers] + s["table_joker"].start, 1.0)
        oldest = np.zeros(n * C, np.int64)
        np.maximum.at(oldest, r * C + card, n_melds - m)
        oldest = oldest.reshape(n, C)
        obs[:, s["table_meld"]] = np.where(oldest > 0, (n_melds + 1 - oldest) / n_melds, 0.0)
    melds = obs[:, s["melds"]].reshape(n, n_melds, MELD_FEATURES)
    melds[:, :used, 0] = view.meld_kind[:, :used] == KIND_SET
    melds[:, :used, 1] = view.meld_kind[:, :used] == KIND_RUN
    melds[:, :used, 2] = view.meld_len[:, :used] / N_RANKS

    # Copies I cannot see: the deck minus everything visible to me.
    table_joker = obs[:, s["table_joker"]]
    visible = (obs[:, s["hand"]] + obs[:, s["pile"]] + obs[:, s["table_set"]]
               + obs[:, s["table_run"]] - table_joker)
    if p > 1:
        visible += obs[:, s["known"]].reshape(n, p, C)[:, 1:].sum(axis=1)
    if jokers is not None:
        visible[:, JOKER] += table_joker.sum(axis=1)
    obs[:, s["unseen"]] = _deck_counts(rules)[None, :] - visible

    # hand_sizes .. melded and turn, hand_number are contiguous runs of the layout.
    obs[:, s["hand_sizes"].start: s["melded"].stop] = np.concatenate([
        view.hand_sizes / rules.hand_cards, view.stock_size[:, None] / deck,
        view.pile_size[:, None] / deck, view.table_points / 100.0, view.totals / rules.target,
        view.melded], axis=1)
    obs[:, s["turn"].start: s["hand_number"].stop] = np.stack(
        [view.turn / rules.max_turns, view.hand_number / rules.max_hands], axis=1)
    obs[:, s["rules"]] = rule_features(rules)

    # One-hot blocks: one column each (owed / no_discard only when set).
    hot = np.stack([view.phase, view.current_player, view.dealer, view.owed, view.no_discard],
                   axis=1).astype(np.int64)
    starts = np.array([s[name].start for name in
                       ("phase", "to_play", "dealer", "owed", "no_discard")])
    flat_hot = (rows * action_ids.size)[:, None] + starts[None, :] + hot
    obs.reshape(-1)[flat_hot[hot >= 0]] = 1.0
    if rules.keep_taken:
        obs[:, s["no_discard"]] = view.taken
    return obs


def _distinct_cards(rules: Rules) -> bool:
    """Every card id occurs at most once in the deck (one deck, at most one joker)."""
    return rules.n_decks == 1 and rules.n_jokers <= 1


@lru_cache(maxsize=64)
def _deck_counts(rules: Rules) -> np.ndarray:
    counts = np.full(C, rules.n_decks, np.float32)
    counts[JOKER] = rules.n_jokers
    counts.setflags(write=False)
    return counts

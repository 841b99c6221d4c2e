"""Observation vectors: everything one seat may know, as float32 [n, D].

``observe(rules, state, seats)`` encodes ``view.player_view`` (the structured
public view of each seat) into one flat vector per game, so nothing hidden (the
other hands' unknown cards, the stock's order) can reach it. Every per-seat
block is relative to the observer: seat 0 = me, 1 = the next seat to my left, ...
The encoding is batched: no Python loop over games. One game alone is
encoded faster, to the same bits, by ``observe_one.observe_one`` (the one-game envs').
``observe(..., compact=True)`` stops before the widening to float32: a
``CompactObservation`` (uint8 codes and a few float32 numbers, a quarter of the
bytes) that ``widen`` turns into the same vectors, here or in torch (``rummy500.agents.widen``).

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
from typing import Literal, NamedTuple, overload

import numpy as np

from .cards import JOKER, N_CARD_IDS, N_NATURAL, N_RANKS
from .counting import add_at, filled_slots
from .lookup import lookup_tables
from .patterns import KIND_RUN, KIND_SET
from .rules import Rules
from .scoring import seat_points
from .state import PHASE_NAMES, State, max_melds
from .table import SLOT_CARD
from .view import PlayerView, player_view

OBS_VERSION = 2
C = N_CARD_IDS
PILE_TOP = 4
MELD_FEATURES = 3

RULE_FEATURES = (
    "two_decks",
    "jokers_per_deck/2",
    "joker_value_15",
    "joker_value_25",
    "joker_value_declared",
    "low_ace_15",
    "ace_high",
    "wrap",
    "pip_flat5",
    "dig",
    "top_card_must_meld",
    "discard_required",
    "layoff_requires_meld",
    "floating",
    "joker_swap",
    "rummy_call",
    "stock_out_last_draw",
    "go_out_to_win",
    "target/1000",
    "hand_cards/13",
    "keep_taken",
    "dig_swap",
    "game_hands/10",
    "tie_break_lowest_card",
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
    """The named slices of the flat observation for ``rules`` (the module docstring's table)."""
    p, m = rules.players, max_melds(rules)
    return ObsLayout(
        (
            ("hand", C),
            ("known", p * C),
            ("unseen", C),
            ("pile", C),
            ("pile_depth", C),
            ("pile_top", PILE_TOP * C),
            ("table_set", C),
            ("table_run", C),
            ("table_by", p * C),
            ("table_joker", C),
            ("table_meld", C),
            ("melds", m * MELD_FEATURES),
            ("hand_sizes", p),
            ("stock_size", 1),
            ("pile_size", 1),
            ("table_points", p),
            ("totals", p),
            ("melded", p),
            ("phase", len(PHASE_NAMES)),
            ("to_play", p),
            ("dealer", p),
            ("owed", C),
            ("no_discard", C),
            ("turn", 1),
            ("hand_number", 1),
            ("rules", len(RULE_FEATURES)),
        )
    )


def observation_size(rules: Rules) -> int:
    """D: the length of one observation vector."""
    return obs_layout(rules).size


@lru_cache(maxsize=64)
def rule_features(rules: Rules) -> np.ndarray:
    """float32 [24]: the rule flags that vary, in ``RULE_FEATURES`` order."""
    values = [
        rules.n_decks == 2,
        rules.jokers / 2,
        rules.joker_value == 15,
        rules.joker_value == 25,
        rules.joker_value == "declared",
        rules.low_ace_value == 15,
        rules.ace_high,
        rules.wrap,
        rules.pip_values == "flat5",
        rules.dig,
        rules.top_card_must_meld,
        rules.discard_required,
        rules.layoff_requires_meld,
        rules.floating,
        rules.joker_swap,
        rules.rummy_call,
        rules.stock_out == "last_draw",
        rules.go_out_to_win,
        rules.target / 1000,
        rules.hand_cards / 13,
        rules.keep_taken,
        rules.dig_swap,
        rules.game_hands / 10,
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
    for name in (
        "hand",
        "known",
        "unseen",
        "pile",
        "pile_top",
        "table_set",
        "table_run",
        "table_by",
        "table_joker",
    ):
        high[s[name]] = decks
    t = lookup_tables(rules)
    # No hand, table or score can hold more points than the whole deck.
    deck_points = float(
        t.card_values[:N_NATURAL].sum() * rules.n_decks
        + max(t.card_values[JOKER], 25) * rules.n_jokers
    )
    high[s["hand_sizes"]] = rules.deck_cards / rules.hand_cards
    high[s["table_points"]] = deck_points / 100
    total_bound = deck_points * rules.max_hands / rules.target
    low[s["totals"]], high[s["totals"]] = -total_bound, total_bound
    high[s["rules"]] = np.maximum(rule_features(rules), 1.0)
    low.setflags(write=False)
    high.setflags(write=False)
    return low, high


@overload
def observe(
    rules: Rules,
    state: State,
    seats: np.ndarray | None = None,
    rows: np.ndarray | None = None,
    points: np.ndarray | None = None,
    table: np.ndarray | None = None,
    out: np.ndarray | None = None,
    compact: Literal[False] = False,
) -> np.ndarray: ...


@overload
def observe(
    rules: Rules,
    state: State,
    seats: np.ndarray | None = None,
    rows: np.ndarray | None = None,
    points: np.ndarray | None = None,
    table: np.ndarray | None = None,
    out: np.ndarray | None = None,
    compact: bool = False,
) -> np.ndarray | CompactObservation: ...


def observe(
    rules: Rules,
    state: State,
    seats: np.ndarray | None = None,
    rows: np.ndarray | None = None,
    points: np.ndarray | None = None,
    table: np.ndarray | None = None,
    out: np.ndarray | None = None,
    compact: bool = False,
) -> np.ndarray | CompactObservation:
    """float32 [n, D]: the observation of ``seats[i]`` in game ``rows[i]``.

    Defaults: every game, observed by the seat to play (``state.current_player``).
    ``points`` and ``table``: the batch's ``table_points`` [B, P] and ``table_codes``
    [B, W] when the caller keeps them (``TableCache``). ``out``: a buffer to fill, as
    for ``encode``. ``compact``: return the ``CompactObservation`` instead (no ``out``).
    """
    view = player_view(rules, state, seats, rows, share=True, points=points, owners=table is None)
    if table is not None and rows is not None:
        table = table[rows]
    if compact:
        return encode_compact(rules, view, table)
    return encode(rules, view, table=table, out=out)


@dataclass(frozen=True)
class _EncodePlan:
    """What ``encode`` needs of one rules config beyond the layout, worked out once."""

    size: int
    """D, the vector's length."""
    col: dict[str, int]
    """First column of each block."""
    distinct: bool
    """Every card id occurs at most once in the deck (``_distinct_cards``)."""
    deck_counts: np.ndarray
    """uint8 [C]: copies of each card id in the deck."""
    rules: np.ndarray
    """float32 [24]: ``rule_features``."""
    numbers: np.ndarray
    """float64 [4P + 4]: divisors of the blocks hand_sizes .. melded, then turn, hand_number."""
    hot_starts: np.ndarray
    """int64 [5]: first columns of phase, to_play, dealer, owed, no_discard."""
    visible: np.ndarray
    """float32 [K]: weight of each card row of the blocks hand .. table_joker in the count
    of visible copies (mine, the others' known, pile, table; a table joker's declared
    card is not a copy of it)."""
    table_columns: tuple[int, int]
    """(start, stop): the columns of the blocks table_set .. melds (``table_codes``)."""
    added_rows: tuple[int, ...]
    """The card rows of weight 1 in ``visible``."""
    subtracted_rows: tuple[int, ...]
    """The card rows of weight -1 in ``visible``."""


@lru_cache(maxsize=64)
def _encode_plan(rules: Rules) -> _EncodePlan:
    p, layout = rules.players, obs_layout(rules)
    col = {name: sl.start for name, sl in layout.slices.items()}
    numbers = np.array(
        [rules.hand_cards] * p
        + [rules.deck_cards] * 2
        + [100.0] * p
        + [rules.target] * p
        + [1] * p
        + [rules.max_turns, rules.max_hands],
        np.float64,
    )
    visible = np.zeros(col["table_joker"] // C + 1, np.float32)
    for name in ("hand", "pile", "table_set", "table_run"):
        visible[col[name] // C] = 1.0
    visible[col["known"] // C + 1 : col["known"] // C + p] = 1.0
    visible[col["table_joker"] // C] = -1.0
    hot_starts = np.array(
        [col[name] for name in ("phase", "to_play", "dealer", "owed", "no_discard")], np.int64
    )
    for a in (numbers, hot_starts, visible):
        a.setflags(write=False)
    table = (col["table_set"], col["melds"] + max_melds(rules) * MELD_FEATURES)
    return _EncodePlan(
        layout.size,
        col,
        _distinct_cards(rules),
        _deck_counts(rules),
        rule_features(rules),
        numbers,
        hot_starts,
        visible,
        table,
        tuple(np.flatnonzero(visible > 0).tolist()),
        tuple(np.flatnonzero(visible < 0).tolist()),
    )


class CompactObservation(NamedTuple):
    """Observations before widening, a quarter of the bytes: what a trainer stores in its
    rollouts or sends to a GPU and widens there (``widen``, or ``rummy500.agents.widen`` in torch).

    ``codes`` uint8 [n, D]: every column's integer numerator (the columns of the number
    and rule blocks are 0); ``numbers`` float32 [n, K]: the number blocks, hand_sizes ..
    melded then turn and hand_number, already divided. ``widen`` gives the float32
    observation with the bits of ``observe``'s.
    """

    codes: np.ndarray
    numbers: np.ndarray

    def take(self, rows: np.ndarray) -> CompactObservation:
        """The observations of rows ``rows`` (an index array)."""
        return CompactObservation(self.codes[rows], self.numbers[rows])

    def widen(self, rules: Rules, out: np.ndarray | None = None) -> np.ndarray:
        """float32 [n, D]: the observations, as ``observe`` gives them (``out``: a
        C-contiguous float32 [n, D] buffer to fill and return)."""
        if out is None:
            obs = np.empty(self.codes.shape, np.float32)
        elif out.shape != self.codes.shape or out.dtype != np.float32 or not out.flags.c_contiguous:
            raise ValueError(f"widen: out must be C-contiguous float32 {self.codes.shape}")
        else:
            obs = out
        np.copyto(obs, self.codes)  # one pass: copies by column blocks are slower
        plan = widening(rules)
        for start, stop, divisors in plan.fractions:
            np.divide(obs[:, start:stop], divisors, out=obs[:, start:stop])
        for at, first, size in plan.number_runs:
            obs[:, at : at + size] = self.numbers[:, first : first + size]
        obs[:, plan.rules_at : plan.rules_at + plan.rules.size] = plan.rules
        return obs


class Widening(NamedTuple):
    """How compact observations widen to float32, as data any array library can apply:
    cast the codes, divide the ``fractions`` columns, copy in the number runs and the
    rule features."""

    fractions: tuple[tuple[int, int, np.ndarray], ...]
    """(start, stop, float32 divisors [stop - start]) of the blocks whose codes are
    numerators: pile_depth by N; table_meld by M and the melds block by (1, 1, 13) a meld."""
    number_runs: tuple[tuple[int, int, int], ...]
    """(first column, first number, size) of each contiguous run of number blocks."""
    rules_at: int
    """First column of the rules block."""
    rules: np.ndarray
    """float32 [24]: ``rule_features``, the rules block of every observation."""


@lru_cache(maxsize=64)
def widening(rules: Rules) -> Widening:
    """The ``Widening`` of one rules config's observations."""
    plan = _encode_plan(rules)
    col, k, m = plan.col, plan.numbers.size - 2, max_melds(rules)
    meld_divisors = np.ones((m, MELD_FEATURES), np.float32)
    meld_divisors[:, 2] = N_RANKS
    depth = np.full(C, rules.deck_cards, np.float32)
    place = np.concatenate([np.full(C, m, np.float32), meld_divisors.reshape(-1)])
    for divisors in (depth, place):
        divisors.setflags(write=False)
    fractions = (
        (col["pile_depth"], col["pile_depth"] + C, depth),
        (col["table_meld"], plan.table_columns[1], place),
    )
    return Widening(
        fractions, ((col["hand_sizes"], 0, k), (col["turn"], k, 2)), col["rules"], plan.rules
    )


def encode(
    rules: Rules, view: PlayerView, out: np.ndarray | None = None, table: np.ndarray | None = None
) -> np.ndarray:
    """float32 [n, D]: the flat observation of a ``PlayerView`` (layout in the docstring).

    ``out`` may pass a C-contiguous float32 [n, D] buffer to fill (and return) instead
    of a new array. ``table``: the games' ``table_codes`` when the caller keeps them
    (``TableCache(observed=True)``); they are turned to each view's seat here.

    Every block but the numbers is an integer (a count, a one-hot, a depth, a meld's
    place or length) over a small divisor, so they are built as uint8 codes, a quarter
    of the bytes to write, then widened in one pass and the fractional blocks divided
    in float32 (which rounds as the float64 quotient did: the same bits).
    """
    return encode_compact(rules, view, table).widen(rules, out)


def encode_compact(
    rules: Rules, view: PlayerView, table: np.ndarray | None = None
) -> CompactObservation:
    """The ``CompactObservation`` of a ``PlayerView`` (``table`` as for ``encode``)."""
    plan = _encode_plan(rules)
    numbers = (
        np.concatenate(
            [
                view.hand_sizes,
                view.stock_size[:, None],
                view.pile_size[:, None],
                view.table_points,
                view.totals,
                view.melded,
                view.turn[:, None],
                view.hand_number[:, None],
            ],
            axis=1,
        )
        / plan.numbers
    )
    return CompactObservation(_codes(rules, plan, view, table), numbers.astype(np.float32))


def _codes(
    rules: Rules, plan: _EncodePlan, view: PlayerView, table: np.ndarray | None
) -> np.ndarray:
    """uint8 [n, D]: the integer numerator of every column outside the number blocks
    (those stay 0), as ``encode`` divides them.

    Per-call cost is a few dozen whole-batch array operations: the entries that are 1
    are written by one scatter (where copies cannot add up), the unseen counts by a few
    whole-row adds over the card rows.
    """
    col = plan.col
    n, p, size = view.size, rules.players, plan.size
    codes = np.zeros((n, size), np.uint8)
    flat = codes.reshape(-1)
    base = np.arange(n) * size  # flat index of each row's first column

    codes[:, col["hand"] : col["hand"] + C] = view.hand
    codes[:, col["known"] : col["known"] + p * C] = view.known.reshape(n, -1)

    # The pile: counts, depth of the topmost copy, and the top K cards in order.
    pile_size = view.pile_size.astype(np.int64)
    r, i = filled_slots(pile_size)
    card = view.pile.reshape(-1)[r * view.pile.shape[1] + i]
    depth = pile_size[r] - i
    at_card = base[r] + card
    near = depth <= PILE_TOP  # depth d is the one-hot row d - 1 of pile_top
    ones = [at_card[near] + (depth[near] - 1) * C + col["pile_top"]]  # flat ids set to 1
    if plan.distinct:
        ones.append(at_card + col["pile"])
        flat[at_card + col["pile_depth"]] = depth
    else:  # copies add up; the topmost copy has the greatest height (deck + 1 - depth)
        add_at(flat, (at_card + col["pile"],), 1)
        height: np.ndarray = np.zeros(n * C, np.int64)
        np.maximum.at(height, r * C + card, rules.deck_cards + 1 - depth)
        height = height.reshape(n, C)
        codes[:, col["pile_depth"] : col["pile_depth"] + C] = np.where(
            height > 0, rules.deck_cards + 1 - height, 0
        )

    # The table: its own block of columns, or the kept one turned to the observers.
    start, stop = plan.table_columns
    if table is None:
        _encode_table(rules, plan, view, codes, start)
    else:
        by_start, by_stop = col["table_by"], col["table_by"] + p * C
        codes[:, start:by_start] = table[:, : by_start - start]
        codes[:, by_stop:stop] = table[:, by_stop - start :]
        by = table[:, by_start - start : by_stop - start].reshape(n, p, C)
        seats = (view.seat.astype(np.int64)[:, None] + np.arange(p)) % p  # absolute, by offset
        codes[:, by_start:by_stop] = by[np.arange(n)[:, None], seats].reshape(n, -1)

    # One-hot blocks: one column each (owed / no_discard only when set).
    hot = np.array([view.phase, view.current_player, view.dealer, view.owed, view.no_discard]).T
    ones.append((base[:, None] + plan.hot_starts + hot)[hot >= 0])
    flat[np.concatenate(ones)] = 1
    if rules.keep_taken:
        codes[:, col["no_discard"] : col["no_discard"] + C] = view.taken

    # Copies I cannot see: the deck minus everything visible to me. A few whole-row
    # adds: numpy's batched matrix-vector product over [n, K, C] is five times slower.
    cards = codes[:, : plan.visible.size * C].reshape(n, plan.visible.size, C)
    first, *more = plan.added_rows
    visible = cards[:, first].copy()
    for row in more:
        visible += cards[:, row]
    for row in plan.subtracted_rows:
        visible -= cards[:, row]
    if rules.n_jokers:
        visible[:, JOKER] += codes[:, col["table_joker"] : col["table_joker"] + C].sum(
            axis=1, dtype=np.uint8
        )
    codes[:, col["unseen"] : col["unseen"] + C] = plan.deck_counts[None, :] - visible
    return codes


@overload
def table_codes(
    rules: Rules, melds, rows: np.ndarray | None = None, points: Literal[False] = False
) -> np.ndarray: ...


@overload
def table_codes(
    rules: Rules, melds, rows: np.ndarray | None = None, *, points: Literal[True]
) -> tuple[np.ndarray, np.ndarray]: ...


def table_codes(
    rules: Rules, melds, rows: np.ndarray | None = None, points: bool = False
) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """uint8 [n, W]: the codes of the observation's table blocks (``table_set`` ..
    ``melds``, W columns; as ``encode`` builds them, before the division) of the games
    ``rows`` (default all) of ``melds`` (a ``State``: owners are absolute seats, as seat
    0 sees them; or a ``PlayerView``: its own seats').

    A table stands for many steps, so batched callers keep these columns and ``encode``
    only turns the owner rows to each observer (``TableCache(observed=True)``).
    ``points``: also return ``scoring.table_points`` of those games (int32 [n, P], by the
    same seats), priced from the same walk over the filled slots.
    """
    plan = _encode_plan(rules)
    if rows is not None:
        melds = _TableArrays(*(getattr(melds, name)[rows] for name in _TableArrays._fields))
    start, stop = plan.table_columns
    n = melds.n_melds.shape[0]
    out = np.zeros((n, stop - start), np.uint8)
    slots = _encode_table(rules, plan, melds, out, 0)
    if not points:
        return out
    joker = slots.joker if slots.joker is not None else np.zeros(slots.j.shape, bool)
    return out, seat_points(
        rules,
        n,
        slots.r,
        slots.owner,
        slots.kind,
        melds.meld_start.reshape(-1)[slots.meld_at],
        slots.key,
        slots.j,
        joker,
    )


class _TableArrays(NamedTuple):
    """The table's arrays of some games (what ``_encode_table`` and its pricing read)."""

    meld_kind: np.ndarray
    meld_key: np.ndarray
    meld_start: np.ndarray
    meld_len: np.ndarray
    meld_by: np.ndarray
    meld_joker: np.ndarray
    n_melds: np.ndarray


class _FilledSlots(NamedTuple):
    """The filled table slots ``_encode_table`` walked: each one's row, the flat index of
    its meld in the [n, M] arrays, its slot, its meld's kind and key, who laid it and
    whether a joker fills it (None under rules without jokers)."""

    r: np.ndarray
    meld_at: np.ndarray
    j: np.ndarray
    kind: np.ndarray
    key: np.ndarray
    owner: np.ndarray
    joker: np.ndarray | None


def _encode_table(
    rules: Rules, plan: _EncodePlan, melds, out: np.ndarray, origin: int
) -> _FilledSlots:
    """Write the table codes of ``melds`` (as for ``table_codes``) into the C-contiguous
    uint8 ``out`` [n, *], whose columns from ``origin`` on are the table's (zeros): every
    occupied slot is one declared card laid by one seat. Returns the slots it walked."""
    col = {name: origin + at - plan.table_columns[0] for name, at in plan.col.items()}
    n, row = out.shape
    flat = out.reshape(-1)
    n_melds = melds.meld_by.shape[1]
    used = max(int(melds.n_melds.max(initial=0)), 1)
    by = melds.meld_by[:, :used].reshape(-1)
    at = (by >= 0).nonzero()[0]
    q, j = np.divmod(at, N_RANKS)
    r, m = np.divmod(q, used)
    meld_at = r * n_melds + m
    kind = melds.meld_kind.reshape(-1)[meld_at]
    is_set = kind == KIND_SET
    key = melds.meld_key.reshape(-1)[meld_at]
    card = SLOT_CARD[kind, key, j]
    at_card = r * row + card
    kind_at = at_card + np.where(is_set, col["table_set"], col["table_run"])
    owner = by[at].astype(np.int64)
    by_at = at_card + col["table_by"] + owner * C
    jokers = melds.meld_joker[:, :used].reshape(-1)[at] if rules.n_jokers else None
    if plan.distinct:
        flat[
            np.concatenate(
                [kind_at, by_at]
                + ([] if jokers is None else [at_card[jokers] + col["table_joker"]])
            )
        ] = 1
        flat[at_card + col["table_meld"]] = m + 1
    else:  # copies add up; the oldest meld holding one has the greatest n_melds - m
        add_at(flat, (kind_at,), 1)
        add_at(flat, (by_at,), 1)
        if jokers is not None:
            add_at(flat, (at_card[jokers] + col["table_joker"],), 1)
        oldest = np.zeros(n * C, np.int64)
        np.maximum.at(oldest, r * C + card, n_melds - m)
        oldest = oldest.reshape(n, C)
        out[:, col["table_meld"] : col["table_meld"] + C] = np.where(
            oldest > 0, n_melds + 1 - oldest, 0
        )
    features = out[:, col["melds"] : col["melds"] + n_melds * MELD_FEATURES]
    features = features.reshape(n, n_melds, MELD_FEATURES)
    used_kind = melds.meld_kind[:, :used]  # one column at a time: tiny axes write slowly
    features[:, :used, 0] = used_kind == KIND_SET
    features[:, :used, 1] = used_kind == KIND_RUN
    features[:, :used, 2] = melds.meld_len[:, :used]
    return _FilledSlots(r, meld_at, j, kind, key, owner, jokers)


def _distinct_cards(rules: Rules) -> bool:
    """Every card id occurs at most once in the deck (one deck, at most one joker)."""
    return rules.n_decks == 1 and rules.n_jokers <= 1


@lru_cache(maxsize=64)
def _deck_counts(rules: Rules) -> np.ndarray:
    counts = np.full(C, rules.n_decks, np.uint8)
    counts[JOKER] = rules.n_jokers
    counts.setflags(write=False)
    return counts

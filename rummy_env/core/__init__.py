"""The engine: Rummy 500 as pure functions over a batch of games held as numpy arrays.

This module is the engine's public contract; everything above it (envs,
agents, trainers, programs) imports from here. It depends on numpy and the
standard library only.

>>> from rummy_env.core import Rules, action_layout, init, legal_mask, step
>>> rules = Rules.from_dict({"preset": "standard"})
>>> state = init(rules, seed=0, batch_size=2)
>>> mask = legal_mask(rules, state)                 # bool [2, 955]
>>> draw = action_layout(rules).parse("draw")
>>> bool(mask[:, draw].all())
True
>>> after = step(rules, state, [draw, draw])        # a new State; ``state`` is unchanged
>>> int(state.stock_size[0]) - int(after.stock_size[0])   # each game drew one card
1

The contract (``__all__``), by job:

* the rules: ``Rules`` (a validated, frozen config) and ``PRESETS``;
* the games: ``State``, ``init``, ``step``, ``step_inplace``, ``legal_mask``,
  ``sample_legal``; playing many games: ``Games`` (the one stateful driver: deals,
  kept tables, the one-game path; everything that drives games goes through it);
  deals: ``GameStream``, ``game_keys``, ``deck_cards``,
  ``dealer_of_hand``, ``daily_seed``, ``check_seed`` (the one seed range);
  phases: ``PHASE_NAMES`` and ``PHASE_DRAW``, ``PHASE_PLAY``, ``PHASE_CALL``,
  ``PHASE_CALL_PLAY``, ``PHASE_HAND_OVER``, ``PHASE_GAME_OVER``; scoring: ``chips``;
* what a seat sees: ``player_view``, ``PlayerView``, ``Decision``, ``observe``,
  ``encode``, ``obs_layout``, ``observation_size``, ``observation_bounds``,
  ``OBS_VERSION``, ``CompactObservation``;
* the actions: ``action_layout``, ``ActionLayout``, ``LAYOFF_DIRECTIONS``, ``legal_texts``;
* the cards: ``card_id``, ``card_text``, ``parse_card``, ``count_texts``, ``rank_of``,
  ``suit_of``, ``rank_points``, ``JOKER``, ``N_CARD_IDS``, ``N_NATURAL``, ``N_RANKS``,
  ``N_SUITS``; melds: ``KIND_RUN``, ``KIND_SET``, ``meld_cards``;
* positions and records: ``from_position``, ``snapshot``, ``PositionError``,
  ``GameRecord``, ``BatchRecorder``, ``read_records``, ``write_records``, ``replay``.

The other modules serve these; those whose names start with ``_`` (the one-game
path, the table cache) are speed-ups private to the engine, reached through ``Games``.
"""

from .actions import LAYOFF_DIRECTIONS, ActionLayout, action_layout
from .cards import (
    JOKER,
    N_CARD_IDS,
    N_NATURAL,
    N_RANKS,
    N_SUITS,
    card_id,
    card_text,
    count_texts,
    parse_card,
    rank_of,
    rank_points,
    suit_of,
)
from .chips import chips
from .deal import check_seed, daily_seed, dealer_of_hand, deck_cards, game_keys
from .decision import Decision, sample_legal
from .games import Games
from .observation import (
    OBS_VERSION,
    CompactObservation,
    encode,
    obs_layout,
    observation_bounds,
    observation_size,
    observe,
)
from .patterns import KIND_RUN, KIND_SET
from .position import PositionError, from_position, legal_texts, meld_cards, snapshot
from .records import (
    BatchRecorder,
    GameRecord,
    read_records,
    replay,
    write_records,
)
from .rules import PRESETS, Rules
from .state import (
    PHASE_CALL,
    PHASE_CALL_PLAY,
    PHASE_DRAW,
    PHASE_GAME_OVER,
    PHASE_HAND_OVER,
    PHASE_NAMES,
    PHASE_PLAY,
    State,
)
from .step import init, legal_mask, step, step_inplace
from .stream import GameStream
from .view import PlayerView, player_view

__all__ = [
    "ActionLayout",
    "BatchRecorder",
    "CompactObservation",
    "Decision",
    "GameRecord",
    "GameStream",
    "Games",
    "JOKER",
    "KIND_RUN",
    "KIND_SET",
    "LAYOFF_DIRECTIONS",
    "N_CARD_IDS",
    "N_NATURAL",
    "N_RANKS",
    "N_SUITS",
    "OBS_VERSION",
    "PHASE_CALL",
    "PHASE_CALL_PLAY",
    "PHASE_DRAW",
    "PHASE_GAME_OVER",
    "PHASE_HAND_OVER",
    "PHASE_NAMES",
    "PHASE_PLAY",
    "PRESETS",
    "PlayerView",
    "PositionError",
    "Rules",
    "State",
    "action_layout",
    "card_id",
    "card_text",
    "check_seed",
    "chips",
    "count_texts",
    "daily_seed",
    "dealer_of_hand",
    "deck_cards",
    "encode",
    "from_position",
    "game_keys",
    "init",
    "legal_mask",
    "legal_texts",
    "meld_cards",
    "obs_layout",
    "observation_bounds",
    "observation_size",
    "observe",
    "parse_card",
    "player_view",
    "rank_of",
    "rank_points",
    "read_records",
    "replay",
    "sample_legal",
    "snapshot",
    "step",
    "step_inplace",
    "suit_of",
    "write_records",
]

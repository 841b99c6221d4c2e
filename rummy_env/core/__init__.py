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
from .deal import daily_seed, dealer_of_hand, deck_cards, game_keys, shuffled_decks
from .decision import Decision, sample_legal
from .lookup import LookupTables, lookup_tables
from .mask_one import legal_mask_one
from .meldability import bit_masks, complete_melds, makeable_melds, melds_makeable
from .observation import (
    OBS_VERSION,
    PILE_TOP,
    CompactObservation,
    Widening,
    encode,
    encode_compact,
    obs_layout,
    observation_bounds,
    observation_size,
    observe,
    widening,
)
from .observe_one import observe_one
from .patterns import (
    KIND_RUN,
    KIND_SET,
    N_PATTERNS,
    N_RUNS_PER_SUIT,
    N_SET_PATTERNS,
    PATTERN_CARDS,
    PATTERN_CONTAINS,
    PATTERN_KIND,
    PATTERN_SIZE,
    PATTERN_START,
    run_allowed,
)
from .position import (
    Position,
    PositionError,
    TableMeldSpec,
    from_position,
    legal_texts,
    meld_cards,
    parse_position,
    snapshot,
)
from .records import BatchRecorder, GameRecord, read_records, replay, write_records
from .rules import PRESETS, Rules, is_int
from .state import (
    PHASE_CALL,
    PHASE_CALL_PLAY,
    PHASE_DRAW,
    PHASE_GAME_OVER,
    PHASE_HAND_OVER,
    PHASE_NAMES,
    PHASE_PLAY,
    State,
    empty_state,
    max_melds,
)
from .step import init, legal_mask, step, step_inplace
from .stream import GameStream
from .table import layoff_fits
from .table_cache import TableCache
from .view import PlayerView, player_view
from .worlds import (
    fresh_deal_keys,
    provisional_scores,
    sample_worlds,
    shuffle_prefixes,
    unseen_counts,
)

__all__ = [
    "ActionLayout", "BatchRecorder", "Decision", "GameRecord", "GameStream", "JOKER", "KIND_RUN",
    "KIND_SET", "LAYOFF_DIRECTIONS", "LookupTables", "ModuleType", "N_CARD_IDS", "N_NATURAL",
    "N_PATTERNS", "N_RANKS", "N_RUNS_PER_SUIT", "N_SET_PATTERNS", "N_SUITS", "OBS_VERSION",
    "PATTERN_CARDS", "PATTERN_CONTAINS", "PATTERN_KIND", "PATTERN_SIZE", "PATTERN_START",
    "PHASE_CALL", "PHASE_CALL_PLAY", "PHASE_DRAW", "PHASE_GAME_OVER", "PHASE_HAND_OVER",
    "PHASE_NAMES", "PHASE_PLAY", "PILE_TOP", "PRESETS", "PlayerView", "Position", "PositionError",
    "TableCache", "TableMeldSpec", "Widening", "CompactObservation", "parse_position",
    "Rules", "State", "action_layout", "bit_masks", "card_id", "card_text", "chips", "count_texts",
    "daily_seed", "dealer_of_hand", "deck_cards", "empty_state", "encode", "encode_compact",
    "from_position", "game_keys", "init", "is_int", "layoff_fits", "legal_mask",
    "legal_mask_one", "legal_texts",
    "lookup_tables", "complete_melds", "makeable_melds", "melds_makeable", "max_melds",
    "meld_cards", "obs_layout",
    "observation_bounds", "observation_size", "observe", "observe_one", "parse_card", "player_view",
    "provisional_scores", "rank_of", "rank_points", "read_records", "replay", "run_allowed",
    "sample_legal", "sample_worlds", "unseen_counts", "fresh_deal_keys", "shuffle_prefixes",
    "shuffled_decks", "snapshot", "step", "step_inplace", "suit_of", "widening", "write_records",
]

"""The scalar reference engine against the conformance scenarios and rule tables.

Every rule case is a position in the conformance format (see
``../shared/conformance/README.md``): it is played through ``ReferenceGame`` and the
result compared with its ``expect``, exactly as the conformance files are.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scenario_support import (
    CONFORMANCE,
    OWN_SCENARIOS,
    RUN_5H,
    check_expect,
    load,
    position,
    scenario_files,
)

from rummy_env.core import Rules, card_text, dealer_of_hand, deck_cards, from_position, game_keys
from rummy_env.core.deal import shuffled_decks
from rummy_env.reference import ReferenceGame


def play_scenario(position: dict[str, Any]) -> dict[str, Any]:
    """Run a scenario's actions; the harness output of conformance/README.md."""
    game = ReferenceGame.from_position(position)
    steps, error = [], None
    for index, action in enumerate(position.get("actions", [])):
        steps.append({"action": action, "legal": game.legal_actions()})
        try:
            game.apply(action)
        except ValueError as exc:
            error = {"index": index, "action": action, "message": str(exc)}
            break
    return {"steps": steps, "error": error, **game.snapshot()}


# Conformance scenarios ------------------------------------------------------------------


@pytest.mark.parametrize("path", scenario_files(CONFORMANCE), ids=lambda p: p.stem)
def test_conformance_scenario(path: Path) -> None:
    scenario = json.loads(path.read_text())
    check_expect(play_scenario(scenario), scenario["expect"])


def test_conformance_folder_present() -> None:
    if not scenario_files(CONFORMANCE):
        pytest.skip(f"no conformance scenarios: {CONFORMANCE} is absent or empty")


# Rule cases (tests/scenarios) -------------------------------------------------------

RULE_CASES = {p.stem: load(p) for p in scenario_files(OWN_SCENARIOS)}


@pytest.mark.parametrize("name", RULE_CASES)
def test_rule_case(name: str) -> None:
    case = RULE_CASES[name]
    check_expect(play_scenario(case), case["expect"])


# Positions: errors ----------------------------------------------------------------------

GAP_RUN = ["5H", "6H", "8H"]
BAD_POSITIONS = {
    "unknown_card": position([["9X"], ["2C"]], [], [], [], {}),
    "joker_without_jokers": position([["JK"], ["2C"]], [], [], [], {}),
    "card_twice_one_deck": position([["9C"], ["9C"]], [], [], [], {}),
    "card_thrice_two_decks": position([["9C", "9C"], ["9C"]], [], [], [], {}, decks=2),
    "meld_not_a_pattern": position([["2C"], ["3C"]], [], [], [], {}, melds=[(GAP_RUN, [0, 0, 0])]),
    "meld_out_of_print_order": position(
        [["2C"], ["3C"]], [], [], [], {}, melds=[(["7H", "6H", "5H"], [0, 0, 0])]
    ),
    "wrap_meld_without_wrap": position(
        [["2C"], ["3C"]], [], [], [], {}, melds=[(["KH", "AH", "2H"], [0, 0, 0])]
    ),
    "meld_by_wrong_length": position([["2C"], ["3C"]], [], [], [], {}, melds=[(RUN_5H[0], [1])]),
    "hands_count": position([["2C"], ["3C"], ["4C"]], [], [], [], {}),
    "to_play_out_of_range": position([["2C"], ["3C"]], [], [], [], {}, to_play=2),
    "too_many_jokers": position([["JK", "JK"], ["JK"]], [], [], [], {}, jokers=1),
    "table_joker_too_many": position(
        [["JK"], ["2C"]], [], [], [], {}, melds=[(["5H", "JK=6H", "7H"], [0, 0, 0])], jokers=1
    ),
    "table_joker_undeclared": position(
        [["2C"], ["3C"]], [], [], [], {}, melds=[(["5H", "JK", "7H"], [0, 0, 0])], jokers=1
    ),
    "table_joker_declared_as_joker": position(
        [["2C"], ["3C"]], [], [], [], {}, melds=[(["5H", "JK=JK", "7H"], [0, 0, 0])], jokers=1
    ),
    "table_joker_not_a_pattern": position(
        [["2C"], ["3C"]], [], [], [], {}, melds=[(["5H", "JK=8H", "7H"], [0, 0, 0])], jokers=1
    ),
    "one_deck_card_on_table_twice": position(
        [["2C"], ["3C"]],
        [],
        [],
        [],
        {},
        melds=[(["5H", "6H", "7H"], [0, 0, 0]), (["6C", "6D", "JK=6H"], [1, 1, 1])],
        jokers=1,
    ),
}


@pytest.mark.parametrize("name", BAD_POSITIONS)
@pytest.mark.parametrize("engine", ["reference", "core"])
def test_bad_position_raises_in_both_engines(name: str, engine: str) -> None:
    """Both engines set positions up through one parser, so they refuse the same ones."""
    set_up = ReferenceGame.from_position if engine == "reference" else from_position
    with pytest.raises(ValueError, match="position"):
        set_up(BAD_POSITIONS[name])


def test_illegal_action_leaves_state_unchanged() -> None:
    game = ReferenceGame.from_position(RULE_CASES["known_cards_follow_play"])
    game.apply("take 4")
    before = game.snapshot()
    with pytest.raises(ValueError, match=r"legal: meld 9C 9H 9S$"):
        game.apply("discard KD")
    assert game.snapshot() == before


# Seeded games ---------------------------------------------------------------------------


def expected_deal(rules: Rules, seed: int, game_id: int, hand: int) -> dict[str, Any]:
    """The deal of the rules (docs/rules.md) computed straight from the shuffled deck."""
    key = game_keys(seed, np.array([game_id], dtype=np.uint64))[0]
    order = [
        int(c) for c in shuffled_decks(rules, np.array([key], dtype=np.uint64), np.array([hand]))[0]
    ]
    players, dealt = rules.players, rules.players * rules.hand_cards
    first = (dealer_of_hand(rules, hand) + 1) % players
    hands = [
        sorted(order[i] for i in range(dealt) if (first + i) % players == seat)
        for seat in range(players)
    ]
    return {
        "to_play": first,
        "hands": [[card_text(c) for c in hand] for hand in hands],
        "discard": [card_text(order[dealt])],
        "stock": [card_text(c) for c in order[dealt + 1 :]],
    }


@pytest.mark.parametrize("players", [2, 3, 5])
def test_deal_matches_shuffled_deck(players: int) -> None:
    rules = Rules(players=players)
    game = ReferenceGame(rules, seed=11, game_id=3)
    snap = game.snapshot()
    assert {k: snap[k] for k in ("to_play", "hands", "discard", "stock")} == expected_deal(
        rules, 11, 3, 0
    )
    assert (snap["phase"], snap["hand_number"], snap["turn"]) == ("draw", 0, 0)
    assert snap["dealer"] == players - 1


RANDOM_RULES = [
    {},
    {"preset": "web"},
    {"players": 3},
    {"players": 5},
    {"wrap": True, "top_card_must_meld": True},
    {"discard_required": True, "layoff_requires_meld": True},
    {"go_out_to_win": True, "target": 100, "pip_values": "flat5", "low_ace_value": 15},
    {"max_turns": 20, "target": 60},
]
# The jokers preset and each of its flags alone (a joker value or joker swaps only
# matter with jokers in the deck), at 2, 4 and 6 players.
JOKER_FLAGS = [
    {"preset": "jokers"},
    {"jokers": 2},
    {"jokers": 1, "joker_value": 25},
    {"jokers": 2, "joker_value": "declared"},
    {"pip_values": "flat5"},
    {"layoff_requires_meld": True},
    {"floating": True},
    {"jokers": 2, "joker_swap": True},
    {"rummy_call": True},
]
RANDOM_RULES += [{**flags, "players": players} for flags in JOKER_FLAGS for players in (2, 4, 6)]
RANDOM_RULES += [
    {"preset": "jokers", "discard_required": True, "floating": False, "top_card_must_meld": True},
    {"preset": "jokers", "players": 3, "wrap": True, "stock_out": "last_draw"},
    {"preset": "jokers", "players": 3, "max_turns": 30, "target": 100},
]

LIVE_PHASES = {"draw", "play", "call", "call_play"}


def table_card(text: str) -> str:
    """A table card as the card it is: ``JK=6H`` is a joker."""
    return "JK" if text.startswith("JK=") else text


@pytest.mark.parametrize("flags", RANDOM_RULES, ids=str)
def test_random_games_keep_invariants(flags: dict[str, Any]) -> None:
    """Random legal play: cards are conserved, a live game always offers an action,
    each new hand is the seeded deal, the call window and floating seats are
    consistent, and the game ends won or truncated."""
    rules = Rules.from_dict({**flags, "max_hands": 3})
    deck = Counter(card_text(int(c)) for c in deck_cards(rules))
    rng = random.Random(0)
    for game_id in range(2):
        game = ReferenceGame(rules, seed=5, game_id=game_id)
        hand_number = 0
        while True:
            snap = game.snapshot()
            cards = Counter(snap["stock"] + snap["discard"])
            for hand in snap["hands"]:
                cards.update(hand)
            for meld in snap["melds"]:
                cards.update(table_card(c) for c in meld["cards"])
            assert cards == deck
            live = snap["phase"] in LIVE_PHASES
            assert snap["floating"] == [live and not hand for hand in snap["hands"]]
            assert (snap["call_from"] is not None) == (snap["phase"] in ("call", "call_play"))
            if snap["call_from"] is not None:
                assert snap["call_from"] != snap["to_play"]
                assert snap["hands"][snap["to_play"]] or snap["phase"] == "call_play"
            if snap["hand_number"] != hand_number:
                hand_number = snap["hand_number"]
                assert {k: snap[k] for k in ("to_play", "hands", "discard", "stock")} == (
                    expected_deal(rules, 5, game_id, hand_number)
                )
                assert snap["hand_scores"] is not None and not snap["known"][0]
            if snap["game_over"]:
                assert snap["legal"] == []
                assert (snap["winner"] is None) == snap["truncated"]
                assert snap["truncated"] <= (hand_number == rules.max_hands - 1)
                break
            assert snap["legal"]
            game.apply(rng.choice(snap["legal"]))

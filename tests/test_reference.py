"""The scalar reference engine against the conformance scenarios and rule tables.

Every rule case is a position in the conformance format (see
``../shared/conformance/README.md``): it is played through ``ReferenceGame`` and the
result compared with its ``expect``, exactly as the conformance files are.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rummy_env.cards import card_text
from rummy_env.deal import dealer_of_hand, deck_cards, game_keys, shuffled_decks
from rummy_env.reference import ReferenceGame
from rummy_env.rules import Rules

CONFORMANCE = Path(__file__).resolve().parents[1].parent / "shared" / "conformance"


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


def check_expect(result: dict[str, Any], expect: dict[str, Any]) -> None:
    """Compare the keys ``expect`` gives; legal lists as sets."""
    for key, want in expect.items():
        if key == "steps":
            assert [s["action"] for s in result["steps"]] == [s["action"] for s in want]
            for got, wanted in zip(result["steps"], want, strict=True):
                assert set(got["legal"]) == set(wanted["legal"]), got["action"]
        elif key == "legal":
            assert set(result["legal"]) == set(want)
        elif key == "legal_includes":
            assert set(want) <= set(result["legal"]), set(want) - set(result["legal"])
        elif key == "legal_excludes":
            assert not set(want) & set(result["legal"]), set(want) & set(result["legal"])
        elif key == "error_index":
            assert result["error"] is not None and result["error"]["index"] == want
        elif key == "error" and want is not None:
            assert result["error"] is not None
            assert {k: result["error"][k] for k in ("index", "action")} == {
                k: want[k] for k in ("index", "action")
            }
        else:
            assert result[key] == want, key


# Conformance scenarios ------------------------------------------------------------------


def _scenario_files() -> list[Path]:
    return sorted(CONFORMANCE.glob("*.json")) if CONFORMANCE.is_dir() else []


@pytest.mark.parametrize("path", _scenario_files(), ids=lambda p: p.stem)
def test_conformance_scenario(path: Path) -> None:
    scenario = json.loads(path.read_text())
    check_expect(play_scenario(scenario), scenario["expect"])


def test_conformance_folder_present() -> None:
    if not _scenario_files():
        pytest.skip(f"no conformance scenarios: {CONFORMANCE} is absent or empty")


# Rule tables ----------------------------------------------------------------------------


def position(
    hands: list[list[str]],
    stock: list[str],
    discard: list[str],
    actions: list[str],
    expect: dict[str, Any],
    melds: Sequence[tuple[list[str], list[int]]] = (),
    totals: list[int] | None = None,
    to_play: int = 0,
    **rules: Any,
) -> dict[str, Any]:
    """A scenario dict; ``rules`` are flags over the standard preset."""
    return {
        "rules": {"preset": "standard", **rules},
        "hands": hands,
        "stock": stock,
        "discard": discard,
        "melds": [{"cards": cards, "by": by} for cards, by in melds],
        "totals": totals or [0] * len(hands),
        "to_play": to_play,
        "actions": actions,
        "expect": expect,
    }


RUN_5H = (["5H", "6H", "7H"], [1, 1, 1])
HEARTS = ["AH", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH", "QH", "KH"]

RULE_CASES = {
    # Two decks: a lay-off goes to the oldest meld it fits; the next copy to the other.
    "two_decks_oldest_meld_first": position(
        [["8H", "8H", "2C"], ["3D"]], ["9S"], ["KC"],
        ["draw", "layoff 8H up", "layoff 8H up"],
        {"melds": [
            {"cards": ["5H", "6H", "7H", "8H"], "by": [1, 1, 1, 0]},
            {"cards": ["5H", "6H", "7H", "8H"], "by": [1, 1, 1, 0]},
        ]},
        melds=[RUN_5H, RUN_5H], decks=2,
    ),
    "two_decks_first_layoff_goes_to_oldest": position(
        [["8H", "2C"], ["3D"]], ["9S"], ["KC"],
        ["draw", "layoff 8H up"],
        {"melds": [
            {"cards": ["5H", "6H", "7H", "8H"], "by": [1, 1, 1, 0]},
            {"cards": ["5H", "6H", "7H"], "by": [0, 0, 0]},
        ]},
        melds=[RUN_5H, (["5H", "6H", "7H"], [0, 0, 0])], decks=2,
    ),
    # Two decks: neither copy of the card taken by `take 1` may go back...
    "two_decks_no_discard_by_text": position(
        [["9C", "2D", "5S"], ["3D"]], ["4C"], ["KH", "9C"],
        ["take 1"],
        {"legal": ["discard 2D", "discard 5S"], "no_discard": "9C"},
        decks=2,
    ),
    # ...unless the hand holds nothing but copies of it.
    "two_decks_only_copies_left": position(
        [["9C"], ["3D"]], ["4C"], ["KH", "9C"],
        ["take 1"],
        {"legal": ["discard 9C"]},
        decks=2,
    ),
    # Wrap: K-A-2 is a run; the ace in it is not low.
    "wrap_meld_k_a_2_scores_high_ace": position(
        [["KH", "AH", "2H"], ["3D"]], ["5C"], ["9S"],
        ["draw", "meld KH AH 2H", "discard 5C"],
        {"steps": [
            {"action": "draw", "legal": ["draw", "take 1"]},
            {"action": "meld KH AH 2H",
             "legal": ["meld KH AH 2H", "discard 2H", "discard 5C", "discard AH", "discard KH"]},
            {"action": "discard 5C", "legal": ["discard 5C"]},
        ],
         "hand_scores": [27, -3]},
        wrap=True,
    ),
    "no_wrap_no_k_a_2": position(
        [["KH", "AH", "2H"], ["3D"]], ["5C"], ["9S"],
        ["draw"],
        {"legal": ["discard 2H", "discard 5C", "discard AH", "discard KH"]},
    ),
    # Wrap: a king laid off below A-2-3; judged on the final table the ace is not low.
    "wrap_layoff_down_past_ace": position(
        [["KS"], ["7D"]], ["4C"], ["9H"],
        ["draw", "layoff KS down", "discard 4C"],
        {"melds": [{"cards": ["KS", "AS", "2S", "3S"], "by": [0, 1, 1, 1]}],
         "hand_scores": [10, 13]},
        melds=[(["AS", "2S", "3S"], [1, 1, 1])], wrap=True,
    ),
    "no_wrap_no_layoff_below_ace": position(
        [["KS"], ["7D"]], ["4C"], ["9H"],
        ["draw"],
        {"legal": ["discard 4C", "discard KS"]},
        melds=[(["AS", "2S", "3S"], [1, 1, 1])],
    ),
    "wrap_layoff_up_past_king": position(
        [["2S"], ["7D"]], ["4C"], ["9H"],
        ["draw"],
        {"legal_includes": ["layoff 2S up"]},
        melds=[(["QS", "KS", "AS"], [1, 1, 1])], wrap=True,
    ),
    "ace_high_no_layoff_up_past_ace": position(
        [["2S"], ["7D"]], ["4C"], ["9H"],
        ["draw"],
        {"legal": ["discard 2S", "discard 4C"]},
        melds=[(["QS", "KS", "AS"], [1, 1, 1])],
    ),
    # Thirteen-card runs: A..K and 2..K A are different texts; K A 2..Q needs wrap.
    "thirteen_card_runs_no_wrap": position(
        [HEARTS, ["3D"]], ["5C"], ["9S"],
        ["draw"],
        {"legal_includes": ["meld " + " ".join(HEARTS), "meld " + " ".join(HEARTS[1:] + ["AH"])],
         "legal_excludes": ["meld " + " ".join(HEARTS[-1:] + HEARTS[:-1])]},
    ),
    "thirteen_card_runs_wrap": position(
        [HEARTS, ["3D"]], ["5C"], ["9S"],
        ["draw"],
        {"legal_includes": ["meld " + " ".join(HEARTS[k:] + HEARTS[:k]) for k in range(13)]},
        wrap=True,
    ),
    # discard_required: a dig must leave a card to discard after the meld.
    "discard_required_dig_leaving_no_card": position(
        [["9S"], ["3D"]], ["5C"], ["9C", "9H"],
        [],
        {"legal": ["draw", "take 1"]},
        discard_required=True,
    ),
    "standard_dig_melding_everything": position(
        [["9S"], ["3D"]], ["5C"], ["9C", "9H"],
        [],
        {"legal": ["draw", "take 1", "take 2"]},
    ),
    "discard_required_dig_leaving_a_card": position(
        [["9S", "4D"], ["3D"]], ["5C"], ["9C", "9H"],
        [],
        {"legal": ["draw", "take 1", "take 2"]},
        discard_required=True,
    ),
    # discard_required: a lay-off needs two cards in hand.
    "discard_required_last_card_not_laid_off": position(
        [["8H"], ["3D"]], ["9H"], ["KC"],
        ["draw", "layoff 8H up"],
        {"legal": ["discard 9H"]},
        melds=[RUN_5H], discard_required=True,
    ),
    "standard_last_card_laid_off_goes_out": position(
        [["8H"], ["3D"]], ["9H"], ["KC"],
        ["draw", "layoff 8H up", "layoff 9H up"],
        {"hand_over": True, "hand_scores": [17, 15]},
        melds=[RUN_5H],
    ),
    # layoff_requires_meld: no lay-off before a meld of one's own this hand.
    "layoff_requires_meld_before_meld": position(
        [["8H", "2C", "2D", "2S", "KD"], ["3D"]], ["3C"], ["9S"],
        ["draw", "meld 2C 2D 2S"],
        {"steps": [
            {"action": "draw", "legal": ["draw", "take 1"]},
            {"action": "meld 2C 2D 2S",
             "legal": ["meld 2C 2D 2S", "discard 2C", "discard 3C", "discard 2D",
                       "discard KD", "discard 8H", "discard 2S"]},
        ],
         "legal_includes": ["layoff 8H up"], "melded": [True, True]},
        melds=[RUN_5H], layoff_requires_meld=True,
    ),
    "layoff_requires_meld_table_card_counts": position(
        [["8H", "KD"], ["3D"]], ["3C"], ["9S"],
        ["draw"],
        {"legal_includes": ["layoff 8H up"], "melded": [True, True]},
        melds=[(["5H", "6H", "7H"], [0, 1, 1])], layoff_requires_meld=True,
    ),
    "layoff_requires_meld_dig": position(
        [["2C", "3D"], ["4S"]], ["3C"], ["8H", "KS"],
        [],
        {"legal": ["draw", "take 1"]},
        melds=[RUN_5H], layoff_requires_meld=True,
    ),
    "standard_dig_to_lay_off": position(
        [["2C", "3D"], ["4S"]], ["3C"], ["8H", "KS"],
        ["take 2"],
        {"steps": [{"action": "take 2", "legal": ["draw", "take 1", "take 2"]}],
         "legal": ["layoff 8H up"], "owed": "8H", "known": [["8H", "KS"], []]},
        melds=[RUN_5H],
    ),
    # stock_out: last_draw ends the hand after the turn that drew the last card.
    "last_draw_ends_hand": position(
        [["9S", "2D"], ["3H"]], ["4C"], ["KH"],
        ["draw", "discard 4C"],
        {"hand_over": True, "hand_scores": [-11, -3], "to_play": 0, "legal": []},
        stock_out="last_draw",
    ),
    "pass_plays_on_after_last_draw": position(
        [["9S", "2D"], ["3H"]], ["4C"], ["KH"],
        ["draw", "discard 4C"],
        {"hand_over": False, "to_play": 1, "legal": ["end", "take 1"]},
    ),
    # go_out_to_win: only the seat that goes out can win, once it reaches the target.
    "go_out_to_win_goer_wins": position(
        [["5H", "6H", "7H"], ["2D"]], ["3C"], ["KD"],
        ["draw", "meld 5H 6H 7H", "discard 3C"],
        {"totals": [513, 558], "game_over": True, "winner": 0},
        totals=[495, 560], go_out_to_win=True,
    ),
    "standard_highest_total_wins": position(
        [["5H", "6H", "7H"], ["2D"]], ["3C"], ["KD"],
        ["draw", "meld 5H 6H 7H", "discard 3C"],
        {"totals": [513, 558], "game_over": True, "winner": 1},
        totals=[495, 560],
    ),
    "go_out_to_win_goer_below_target": position(
        [["5H", "6H", "7H"], ["2D"]], ["3C"], ["KD"],
        ["draw", "meld 5H 6H 7H", "discard 3C"],
        {"totals": [18, 558], "game_over": False, "winner": None, "phase": "hand_over"},
        totals=[0, 560], go_out_to_win=True,
    ),
    "go_out_to_win_nobody_out": position(
        [["5H"], ["2D"]], [], ["KD"],
        ["end"],
        {"totals": [595, 598], "game_over": False},
        totals=[600, 600], go_out_to_win=True,
    ),
    # max_turns: the hand ends after that many finished turns; to_play stays.
    "max_turns_ends_hand": position(
        [["2C", "3C"], ["4D", "5D"]], ["9S", "8S", "7S"], ["KH"],
        ["draw", "discard 9S", "draw", "discard 8S"],
        {"hand_over": True, "turn": 2, "to_play": 1, "legal": [], "hand_scores": [-5, -9]},
        max_turns=2,
    ),
    # max_hands: a game that plays its last allowed hand without a winner is truncated.
    "max_hands_truncates": position(
        [["8S", "8D", "2C"], ["TD", "JD", "3H"]], [], ["4C", "8H"],
        ["end"],
        {"phase": "game_over", "game_over": True, "truncated": True, "winner": None},
        max_hands=1,
    ),
    "max_hands_last_hand_won": position(
        [["6S", "7S", "8S", "4D"], ["5C", "7D"]], ["KC", "9H"], ["2H"],
        ["draw", "meld 6S 7S 8S", "layoff 4D set", "discard KC"],
        {"game_over": True, "truncated": False, "winner": 0},
        melds=[(["4C", "4H", "4S"], [1, 1, 1])], totals=[485, 400], max_hands=1,
    ),
    # top_card_must_meld: `take 1` only for a card that can be played; then it is owed.
    "top_card_must_meld_offered": position(
        [["5H", "6H", "2C"], ["3D"]], ["4S"], ["9S", "7H"],
        ["take 1", "meld 5H 6H 7H"],
        {"steps": [
            {"action": "take 1", "legal": ["draw", "take 1"]},
            {"action": "meld 5H 6H 7H", "legal": ["meld 5H 6H 7H"]},
        ],
         "legal": ["discard 2C"], "owed": None},
        top_card_must_meld=True,
    ),
    "top_card_must_meld_refused": position(
        [["5H", "6H", "2C"], ["3D"]], ["4S"], ["7H", "9S"],
        [],
        {"legal": ["draw", "take 2"]},
        top_card_must_meld=True,
    ),
    "top_card_must_meld_by_layoff": position(
        [["2C", "4D"], ["3D"]], ["4S"], ["7S"],
        ["take 1"],
        {"legal": ["layoff 7S down"], "owed": "7S", "no_discard": "7S"},
        melds=[(["8S", "9S", "TS"], [1, 1, 1])], top_card_must_meld=True,
    ),
    # An empty stock and an empty pile leave only `end`.
    "stock_and_pile_empty": position(
        [["2C"], ["3D"]], [], [],
        [],
        {"legal": ["end"]},
    ),
    # Sets take the missing suit in print order.
    "set_layoff_in_suit_order": position(
        [["9D", "2C"], ["3D"]], ["4S"], ["KH"],
        ["draw", "layoff 9D set"],
        {"melds": [{"cards": ["9C", "9D", "9H", "9S"], "by": [1, 0, 1, 1]}]},
        melds=[(["9C", "9H", "9S"], [1, 1, 1])],
    ),
    # Known cards: taken cards are known until played.
    "known_cards_follow_play": position(
        [["9S", "9H", "2C", "5D"], ["KC", "QC", "8D"]], ["3C", "4C", "6S"],
        ["4D", "9C", "JS", "3H", "KD"],
        ["take 4", "meld 9C 9H 9S", "discard KD"],
        {"known": [["3H", "JS"], []]},
    ),
}


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
}


@pytest.mark.parametrize("name", BAD_POSITIONS)
def test_bad_position_raises(name: str) -> None:
    with pytest.raises(ValueError, match="position"):
        ReferenceGame.from_position(BAD_POSITIONS[name])


@pytest.mark.parametrize("flag", [{"jokers": 2}, {"floating": True}, {"joker_swap": True},
                                  {"rummy_call": True}, {"preset": "jokers"}])
def test_unsupported_variants_raise(flag: dict[str, Any]) -> None:
    with pytest.raises(NotImplementedError):
        ReferenceGame(Rules.from_dict(flag), seed=0)
    with pytest.raises(NotImplementedError):
        ReferenceGame.from_position({**RULE_CASES["stock_and_pile_empty"], "rules": flag})


def test_illegal_action_leaves_state_unchanged() -> None:
    game = ReferenceGame.from_position(RULE_CASES["known_cards_follow_play"])
    game.apply("take 4")
    before = game.snapshot()
    with pytest.raises(ValueError, match=r"legal: meld 9C 9H 9S$"):
        game.apply("discard KD")
    assert game.snapshot() == before


# Seeded games ---------------------------------------------------------------------------


def expected_deal(rules: Rules, seed: int, game_id: int, hand: int) -> dict[str, Any]:
    """The deal of RULES.md section 2 computed straight from the shuffled deck."""
    key = game_keys(seed, np.array([game_id], dtype=np.uint64))[0]
    order = [int(c) for c in shuffled_decks(rules, np.array([key], dtype=np.uint64),
                                            np.array([hand]))[0]]
    players, dealt = rules.players, rules.players * rules.hand_cards
    first = (dealer_of_hand(rules, hand) + 1) % players
    hands = [sorted(order[i] for i in range(dealt) if (first + i) % players == seat)
             for seat in range(players)]
    return {
        "to_play": first,
        "hands": [[card_text(c) for c in hand] for hand in hands],
        "discard": [card_text(order[dealt])],
        "stock": [card_text(c) for c in order[dealt + 1:]],
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


@pytest.mark.parametrize("flags", RANDOM_RULES, ids=str)
def test_random_games_keep_invariants(flags: dict[str, Any]) -> None:
    """Random legal play: cards are conserved, a live game always offers an action,
    each new hand is the seeded deal, and the game ends won or truncated."""
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
                cards.update(meld["cards"])
            assert cards == deck
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

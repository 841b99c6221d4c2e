"""The vectorized core and the scalar reference agree on every step of seeded random games.

Each case compares, at every step of every game, the legal action set and the
full snapshot (every card's place, phase, seat, obligation, scores, totals).
``rummy500 difftest --games 5000`` runs the same check at any size.
"""

from __future__ import annotations

import pytest

from rummy500.commands.differential import run_differential
from rummy_env.core import Rules

CASES = [
    ({"preset": "standard", "players": 2}, 180),
    ({"preset": "web", "players": 2}, 120),
    ({"preset": "standard", "players": 3}, 90),
    ({"preset": "web", "players": 4}, 60),
    ({"preset": "standard", "players": 6}, 36),
    ({"preset": "standard", "players": 3, "wrap": True}, 60),
    ({"preset": "standard", "players": 2, "discard_required": True}, 60),
    ({"preset": "standard", "players": 2, "top_card_must_meld": True}, 60),
    ({"preset": "standard", "players": 3, "layoff_requires_meld": True}, 60),
    ({"preset": "standard", "players": 2, "go_out_to_win": True, "target": 150}, 60),
    ({"preset": "standard", "players": 2, "stock_out": "last_draw"}, 60),
    ({"preset": "standard", "players": 2, "max_turns": 25}, 60),
    (
        {
            "preset": "standard",
            "players": 2,
            "ace_high": False,
            "pip_values": "flat5",
            "low_ace_value": 15,
        },
        60,
    ),
    ({"preset": "jokers", "players": 2}, 90),
    ({"preset": "jokers", "players": 4}, 36),
    ({"preset": "jokers", "players": 6}, 30),
    ({"preset": "standard", "players": 2, "jokers": 2}, 48),
    ({"preset": "standard", "players": 4, "jokers": 2, "joker_value": "declared"}, 30),
    ({"preset": "standard", "players": 2, "jokers": 2, "joker_swap": True}, 48),
    ({"preset": "standard", "players": 4, "floating": True}, 30),
    ({"preset": "standard", "players": 2, "rummy_call": True}, 48),
    ({"preset": "standard", "players": 6, "rummy_call": True, "floating": True}, 30),
    ({"preset": "tournament", "players": 2}, 48),
    ({"preset": "tournament", "players": 4}, 30),
    ({"preset": "standard", "players": 2, "keep_taken": True}, 48),
    ({"preset": "standard", "players": 3, "jokers": 1, "joker_swap": True, "dig_swap": True}, 40),
    ({"preset": "standard", "players": 3, "game_hands": 1, "tie_break": "lowest_card"}, 60),
]


@pytest.mark.slow
@pytest.mark.parametrize(("flags", "games"), CASES, ids=[str(c[0]) for c in CASES])
def test_core_agrees_with_reference(flags, games) -> None:
    rules = Rules.from_dict({**flags, "max_hands": 2})
    report = run_differential(rules, games, seed=2026)
    assert report.ok, "\n".join(report.disagreements)
    assert report.games == games and report.hands >= games


ONE_GAME_CASES = [
    {"preset": "standard"},
    {"preset": "web"},
    {"preset": "jokers"},
    {"preset": "tournament"},
    {"preset": "standard", "players": 3, "max_turns": 25},
    {"preset": "standard", "stock_out": "last_draw", "top_card_must_meld": True},
    {"preset": "standard", "players": 3, "rummy_call": True},
]


@pytest.mark.parametrize("flags", ONE_GAME_CASES, ids=[str(c) for c in ONE_GAME_CASES])
def test_one_game_fast_path_agrees_with_reference(flags) -> None:
    """Games stepped one at a time (B = 1) take the engine's one-game paths (plain-Python
    draws, takes and discards); they too agree with the reference at every step."""
    rules = Rules.from_dict({**flags, "max_hands": 2})
    report = run_differential(rules, 12, seed=2027, batch_size=1)
    assert report.ok, "\n".join(report.disagreements)
    assert report.games == 12 and report.hands >= 12

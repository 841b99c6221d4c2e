"""The action codec and the rules configs."""

from __future__ import annotations

from pathlib import Path

import pytest

from rummy_env.config import rules_from_yaml
from rummy_env.core import PRESETS, Rules, action_layout

CONFIGS = Path(__file__).resolve().parents[1] / "configs" / "rules"


@pytest.mark.parametrize("flags", [{}, {"players": 5}, {"jokers": 2}])
def test_every_action_id_round_trips_through_its_text(flags) -> None:
    action_ids = action_layout(Rules.from_dict(flags))
    texts = [action_ids.text(a) for a in range(action_ids.size)]
    assert len(set(texts)) == action_ids.size
    assert [action_ids.parse(t) for t in texts] == list(range(action_ids.size))


def test_layout_ranges_tile_the_action_space() -> None:
    action_ids = action_layout(Rules())
    ranges = action_ids.ranges()
    assert ranges[0][1] == 0
    for (_, first, count), (_, nxt, _) in zip(ranges, ranges[1:]):
        assert first + count == nxt
    assert sum(c for _, _, c in ranges) == action_ids.size == 955


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("meld 9S 9C 9H", "meld 9C 9H 9S"),
        ("meld 10H jh QH", "meld TH JH QH"),
        ("Take 3", "take 3"),
        ("layoff 4d SET", "layoff 4D set"),
        ("meld KH AH 2H", "meld KH AH 2H"),
    ],
)
def test_parse_accepts_loose_forms(text, canonical) -> None:
    action_ids = action_layout(Rules())
    assert action_ids.text(action_ids.parse(text)) == canonical


@pytest.mark.parametrize("path", sorted(CONFIGS.glob("*.yaml")), ids=lambda p: p.stem)
def test_rules_yaml_matches_its_preset(path) -> None:
    rules = rules_from_yaml(path)
    assert rules == Rules.from_dict({"preset": path.stem})


def test_every_preset_has_a_yaml() -> None:
    assert {p.stem for p in CONFIGS.glob("*.yaml")} == set(PRESETS)


def test_derived_sizes() -> None:
    assert (Rules().hand_cards, Rules().n_decks) == (13, 1)
    five = Rules.from_dict({"players": 5})
    assert (five.hand_cards, five.n_decks, five.deck_cards) == (7, 2, 104)
    assert Rules.from_dict({"players": 3, "hand_size": 10}).hand_cards == 10
    assert Rules.from_dict(Rules().to_dict()) == Rules()


def test_rules_hash_is_kept_and_never_travels() -> None:
    """Equal rules hash equal (every lookup table is cached by them), also after a pickle
    into another process, where string hashes differ: the kept hash is not pickled."""
    import os
    import pickle
    import subprocess
    import sys

    rules = Rules.from_dict({"preset": "web", "players": 3})
    assert hash(rules) == hash(Rules.from_dict({"preset": "web", "players": 3}))
    assert hash(rules) == hash(rules.replace(players=3))
    assert rules != rules.replace(players=2)
    code = (
        "import pickle, sys; from rummy_env.core import Rules; "
        "r = pickle.loads(sys.stdin.buffer.read()); "
        "print(hash(r) == hash(Rules.from_dict({'preset': 'web', 'players': 3})))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        input=pickle.dumps(rules),
        capture_output=True,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": "12345"},
    )
    assert done.stdout.strip() == b"True"

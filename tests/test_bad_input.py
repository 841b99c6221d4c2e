"""Bad input gets a clear error and changes nothing."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from rummy_env.core import Rules, action_layout, init, legal_mask, sample_legal, step_inplace

pytestmark = pytest.mark.slow


def _snapshot_arrays(state):
    return {f.name: getattr(state, f.name).copy() for f in dataclasses.fields(state)}


@pytest.mark.parametrize("bad", ["masked", "negative", "too_large"])
def test_illegal_action_raises_and_leaves_every_game_unchanged(bad) -> None:
    rules = Rules()
    state = init(rules, 0, 32)
    rng = np.random.default_rng(0)
    for _ in range(5):
        mask = legal_mask(rules, state)
        step_inplace(rules, state, sample_legal(mask, rng), mask=mask)
    mask = legal_mask(rules, state)
    actions = sample_legal(mask, rng)
    action_ids = action_layout(rules)
    actions[7] = {
        "masked": int(np.flatnonzero(~mask[7])[0]),
        "negative": -3,
        "too_large": action_ids.size + 4,
    }[bad]
    before = _snapshot_arrays(state)
    with pytest.raises(ValueError, match="game 7") as info:
        step_inplace(rules, state, actions)
    legal = [action_ids.text(a) for a in np.flatnonzero(mask[7])]
    assert all(text in str(info.value) for text in legal)
    for name, value in before.items():
        assert np.array_equal(getattr(state, name), value), name


def test_wrong_number_of_actions() -> None:
    rules = Rules()
    with pytest.raises(ValueError, match="3 actions for 4 games"):
        step_inplace(rules, init(rules, 0, 4), np.zeros(3, int))


@pytest.mark.parametrize(
    "text",
    [
        "fly",
        "take",
        "take 0",
        "take 99",
        "meld 2C 3C 5C",
        "meld 9X 9C 9D",
        "layoff 5H sideways",
        "discard",
    ],
)
def test_bad_action_text(text) -> None:
    with pytest.raises(ValueError):
        action_layout(Rules()).parse(text)


@pytest.mark.parametrize(
    ("config", "names"),
    [
        ({"colour": "red"}, ["colour", "allowed keys"]),
        ({"players": 9}, ["players", "from 2 to 8"]),
        ({"players": 8, "hand_size": 13}, ["does not fit", "104"]),
        ({"dig": "yes"}, ["dig", "True, False"]),
        ({"joker_value": 20}, ["joker_value", "15, 25, 'declared'"]),
        ({"stock_out": "never"}, ["stock_out", "'pass', 'last_draw'"]),
        ({"preset": "casino"}, ["preset", "standard"]),
        ({"target": 0}, ["target", "from 1 to"]),
        ({"max_turns": 40_000}, ["max_turns", "from 1 to 32767"]),  # the turn counter is 16-bit
        ({"max_hands": 10**6}, ["max_hands", "from 1 to 32767"]),
    ],
)
def test_invalid_rules_name_the_key_and_allowed_values(config, names) -> None:
    with pytest.raises(ValueError) as info:
        Rules.from_dict(config)
    for name in names:
        assert name in str(info.value)


def test_finished_games_ignore_their_action() -> None:
    rules = Rules.from_dict({"target": 1, "max_hands": 1})
    state = init(rules, 0, 8)
    rng = np.random.default_rng(0)
    while not state.game_over.all():
        mask = legal_mask(rules, state)
        step_inplace(rules, state, sample_legal(mask | state.game_over[:, None], rng), mask=mask)
    before = _snapshot_arrays(state)
    step_inplace(rules, state, np.full(8, 12345))
    for name, value in before.items():
        if name != "hand_ended":
            assert np.array_equal(getattr(state, name), value), name

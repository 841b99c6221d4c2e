"""Invariants of the vectorized core over seeded random play (hypothesis drives the seeds)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rummy_env.core import (
    PHASE_DRAW,
    PHASE_PLAY,
    Rules,
    action_layout,
    init,
    legal_mask,
    sample_legal,
    step,
    step_inplace,
)
from rummy_env.core.lookup import lookup_tables
from rummy_env.core.meldability import complete_melds, makeable_melds, melds_makeable

RULE_SETS = [
    {"preset": "standard", "players": 2},
    {"preset": "web", "players": 3},
    {"preset": "standard", "players": 5},
    {"preset": "standard", "players": 4, "wrap": True, "discard_required": True},
    {
        "preset": "standard",
        "players": 2,
        "top_card_must_meld": True,
        "layoff_requires_meld": True,
        "go_out_to_win": True,
        "target": 200,
    },
]
FAST = settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def card_locations(rules: Rules, state) -> np.ndarray:
    """int [B, 53]: copies of each card id across hands, stock, pile and table."""
    b = state.batch_size
    counts = state.hand.sum(axis=1).astype(np.int64)
    for cards, size in ((state.stock, state.stock_size), (state.pile, state.pile_size)):
        live = np.arange(cards.shape[1])[None, :] < size[:, None]
        np.add.at(
            counts, (np.broadcast_to(np.arange(b)[:, None], cards.shape)[live], cards[live]), 1
        )
    table = state.meld_by >= 0
    slot_card = np.where(
        state.meld_kind[:, :, None] == 1,
        np.arange(13)[None, None, :] * 13 + state.meld_key[:, :, None],
        state.meld_key[:, :, None].astype(np.int64) * 13 + np.arange(13),
    )
    rows = np.broadcast_to(np.arange(b)[:, None, None], table.shape)
    np.add.at(counts, (rows[table], slot_card[table]), 1)
    return counts


def play_random(rules: Rules, seed: int, batch: int, steps: int, check=None):
    rng = np.random.default_rng(seed)
    state = init(rules, seed, batch)
    for _ in range(steps):
        mask = legal_mask(rules, state)
        if check:
            check(state, mask)
        if state.game_over.all():
            break
        step_inplace(rules, state, sample_legal(mask | state.game_over[:, None], rng), mask=mask)
    return state


@pytest.mark.parametrize("flags", RULE_SETS, ids=str)
@FAST
@given(seed=st.integers(0, 2**31))
def test_every_card_in_exactly_one_place(flags, seed) -> None:
    rules = Rules.from_dict(flags)
    expected = np.bincount(np.tile(np.arange(52), rules.n_decks), minlength=53)

    def check(state, mask):
        assert (card_locations(rules, state) == expected).all()
        assert (state.hand.sum(axis=2) == state.hand_size).all()
        live = ~state.game_over
        assert (mask[live].sum(axis=1) > 0).all(), "a live game offers no action"
        assert not mask[~live].any(), "a finished game offers actions"

    play_random(rules, seed, 16, 300, check)


@pytest.mark.parametrize("flags", RULE_SETS[:3], ids=str)
def test_random_games_terminate(flags) -> None:
    rules = Rules.from_dict({**flags, "max_hands": 4, "max_turns": 60})
    state = play_random(rules, 3, 32, 20_000)
    assert state.game_over.all()
    assert ((state.winner >= 0) ^ state.truncated).all()


def _equal_states(a, b) -> bool:
    return all(
        np.array_equal(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a)
    )


@FAST
@given(seed=st.integers(0, 2**31))
def test_same_seed_same_games(seed) -> None:
    rules = Rules.from_dict({"preset": "standard", "players": 3})
    assert _equal_states(play_random(rules, seed, 8, 150), play_random(rules, seed, 8, 150))


def test_games_are_independent_of_the_batch() -> None:
    """Game g stepped inside a batch of 1024 equals game g stepped alone with the same moves."""
    rules = Rules.from_dict({"preset": "standard", "players": 2})
    batch = init(rules, 11, 1024)
    picked = np.array([0, 5, 517, 1023])
    alone = [init(rules, 11, game_ids=[g]) for g in picked]
    for g, single in zip(picked, alone, strict=True):
        assert _equal_states(batch.select([g]), single)
    rng = np.random.default_rng(0)
    for _ in range(400):
        mask = legal_mask(rules, batch)
        actions = sample_legal(mask | batch.game_over[:, None], rng)
        step_inplace(rules, batch, actions, mask=mask)
        for i, g in enumerate(picked):
            alone[i] = step(rules, alone[i], actions[[g]])
    for g, single in zip(picked, alone, strict=True):
        assert _equal_states(batch.select([g]), single)


def test_step_is_pure_and_step_inplace_matches() -> None:
    rules = Rules()
    state = init(rules, 5, 64)
    before = state.copy()
    actions = sample_legal(legal_mask(rules, state), np.random.default_rng(1))
    after = step(rules, state, actions)
    assert _equal_states(state, before)
    step_inplace(rules, state, actions)
    assert _equal_states(state, after)


def test_a_finished_game_ignores_whatever_action_it_gets() -> None:
    """Any number stands for a finished game's action, and the others play on."""
    rules = Rules(target=150)
    state = play_random(rules, 4, 6, 20_000)
    assert state.game_over.all()
    fresh = init(rules, 9, 6)
    fresh.assign(np.array([1, 4]), state.select(np.array([1, 4])))
    before = fresh.copy()
    actions = sample_legal(
        legal_mask(rules, fresh) | fresh.game_over[:, None], np.random.default_rng(0)
    )
    actions[[1, 4]] = [-7, 10**6]
    step_inplace(rules, fresh, actions)
    for f in dataclasses.fields(fresh):
        if f.name != "hand_ended":  # this step's flag: no hand ended in them
            assert np.array_equal(getattr(fresh, f.name)[[1, 4]], getattr(before, f.name)[[1, 4]])
    assert not fresh.hand_ended[[1, 4]].any()
    assert not np.array_equal(fresh.hand_size[[0, 2, 3, 5]], before.hand_size[[0, 2, 3, 5]])


def test_mask_offers_only_actions_of_the_phase() -> None:
    rules = Rules()
    state = play_random(rules, 2, 64, 37)
    mask = legal_mask(rules, state)
    action_ids = action_layout(rules)
    draw = state.phase == PHASE_DRAW
    play = state.phase == PHASE_PLAY
    assert not mask[draw, action_ids.MELD :].any()
    assert not mask[play, : action_ids.MELD].any()


@pytest.mark.parametrize(
    "ace_high, wrap", [(False, False), (True, False), (False, True), (True, True)]
)
def test_complete_melds_are_the_makeable_ones_without_jokers(ace_high, wrap) -> None:
    """The ready-answer lookup of the no-joker mask equals the missing-card counts."""
    rules = Rules.from_dict({"ace_high": ace_high, "wrap": wrap})
    t = lookup_tables(rules)
    present = np.random.default_rng(5).random((3000, 52)) < np.linspace(0.05, 0.6, 3000)[:, None]
    expected = makeable_melds(t, present, np.zeros(3000, np.int64), None)[0]
    assert expected.any(axis=1).mean() > 0.3  # the sample holds melds of every kind
    assert np.array_equal(complete_melds(t, present), expected)


@pytest.mark.parametrize(
    "flags",
    [{"jokers": 2}, {"jokers": 2, "decks": 2, "wrap": True}, {"jokers": 1, "ace_high": True}],
)
def test_the_makeable_lookup_equals_the_missing_card_counts(flags) -> None:
    """The play mask's ready answers per (jokers held, mask) equal counting each
    pattern's missing cards against the jokers, blocked cards included."""
    rules = Rules.from_dict(flags)
    t = lookup_tables(rules)
    rng = np.random.default_rng(6)
    present = rng.random((3000, 52)) < np.linspace(0.05, 0.6, 3000)[:, None]
    jokers = rng.integers(0, rules.n_jokers + 1, 3000)
    blocked = rng.random((3000, 52)) < 0.3
    for kept in (None, blocked):
        expected = makeable_melds(t, present, jokers, kept)[0]
        assert (expected & ~complete_melds(t, present)).any(axis=1).mean() > 0.3  # jokers used
        assert np.array_equal(melds_makeable(t, present, jokers, kept), expected)

"""The observation vector: layout, agreement with the state, and no leak of hidden cards."""

from __future__ import annotations

import re

import numpy as np
import pytest
from env_support import random_positions

from rummy_env.core import (
    N_CARD_IDS,
    OBS_VERSION,
    Rules,
    legal_mask,
    meld_cards,
    obs_layout,
    observation_bounds,
    observation_size,
    observe,
    parse_card,
)
from rummy_env.core import observation as obs_module
from rummy_env.core._one_game.observe import observe_one
from rummy_env.core.observation import PILE_TOP
from rummy_env.core.state import max_melds

C = N_CARD_IDS
CONFIGS = [("standard", 2), ("standard", 3), ("web", 2), ("web", 4), ("jokers", 3)]


def rules_of(preset: str, players: int) -> Rules:
    return Rules.preset_named(preset, players=players)


def test_layout_is_contiguous_and_documented() -> None:
    assert OBS_VERSION == 2
    rules = Rules(players=3)
    action_ids = obs_layout(rules)
    offset = 0
    for name, start, size in action_ids.table():
        assert start == offset and size > 0, name
        offset += size
    assert offset == action_ids.size == observation_size(rules)
    documented = re.findall(r"^(\w+)\s{2,}\S+\s{2,}", obs_module.__doc__, re.MULTILINE)
    assert [n for n in documented if n != "name"] == [name for name, _ in action_ids.fields]


@pytest.mark.parametrize("preset,players", CONFIGS)
def test_observation_agrees_with_the_state(preset: str, players: int) -> None:
    rules = rules_of(preset, players)
    action_ids, deck = obs_layout(rules), rules.deck_cards
    s = action_ids.slices
    low, high = observation_bounds(rules)
    for state in random_positions(rules, batch=6, steps=160, every=40, seed=3):
        for seat in range(players):
            obs = observe(rules, state, np.full(state.batch_size, seat))
            assert obs.dtype == np.float32 and obs.shape == (state.batch_size, action_ids.size)
            assert ((obs >= low) & (obs <= high)).all()
            for g in range(state.batch_size):
                check_one(rules, state, g, seat, obs[g], s, deck)


@pytest.mark.parametrize(
    "preset,players", CONFIGS + [("jokers", 2), ("tournament", 2), ("standard", 8)]
)
def test_the_one_game_path_encodes_the_same_bits(preset: str, players: int) -> None:
    """``observe_one`` (the one-game envs' plain-Python path) equals the batched encoder,
    for every seat of every game, one deck or two, jokers or none."""
    rules = rules_of(preset, players)
    for state in random_positions(rules, batch=8, steps=300, every=15, seed=5):
        for seat in range(players):
            batched = observe(rules, state, np.full(state.batch_size, seat))
            for g in range(state.batch_size):
                assert observe_one(rules, state, seat, g).tobytes() == batched[g].tobytes()


def check_one(rules: Rules, state, g: int, seat: int, o: np.ndarray, s, deck: int) -> None:
    p = rules.players
    order = [(seat + k) % p for k in range(p)]
    np.testing.assert_array_equal(o[s["hand"]], state.hand[g, seat])
    np.testing.assert_array_equal(o[s["known"]].reshape(p, C), state.known[g, order])
    np.testing.assert_allclose(o[s["hand_sizes"]], state.hand_size[g, order] / rules.hand_cards)

    size = int(state.pile_size[g])
    pile = np.zeros(C)
    depth = np.zeros(C)
    top = np.zeros((PILE_TOP, C))
    for i in range(size):
        card, d = int(state.pile[g, i]), size - i
        pile[card] += 1
        depth[card] = d / deck  # later (higher) copies overwrite: the topmost wins
        if d <= PILE_TOP:
            top[d - 1, card] = 1
    np.testing.assert_array_equal(o[s["pile"]], pile)
    np.testing.assert_allclose(o[s["pile_depth"]], depth, rtol=1e-6)
    np.testing.assert_array_equal(o[s["pile_top"]].reshape(PILE_TOP, C), top)

    kinds = {"set": np.zeros(C), "run": np.zeros(C)}
    by = np.zeros((p, C))
    oldest = np.zeros(C)
    m_max = max_melds(rules)
    for m in range(int(state.n_melds[g])):
        texts, seats = meld_cards(state, g, m)
        kind = "set" if state.meld_kind[g, m] == 1 else "run"
        for text, laid in zip(texts, seats):
            card = parse_card(text.split("=")[-1])
            kinds[kind][card] += 1
            by[(laid - seat) % p, card] += 1
            if oldest[card] == 0:
                oldest[card] = (m + 1) / m_max
    np.testing.assert_array_equal(o[s["table_set"]], kinds["set"])
    np.testing.assert_array_equal(o[s["table_run"]], kinds["run"])
    np.testing.assert_array_equal(o[s["table_by"]].reshape(p, C), by)
    np.testing.assert_allclose(o[s["table_meld"]], oldest, rtol=1e-6)
    melds = o[s["melds"]].reshape(m_max, 3)
    np.testing.assert_array_equal(melds[:, 0], state.meld_kind[g] == 1)
    np.testing.assert_array_equal(melds[:, 1], state.meld_kind[g] == 2)
    np.testing.assert_allclose(melds[:, 2], state.meld_len[g] / 13, rtol=1e-6)

    # What I cannot see is exactly the stock plus the others' cards not known to be there.
    hidden = np.bincount(state.stock[g, : state.stock_size[g]], minlength=C).astype(float)
    for other in order[1:]:
        hidden += state.hand[g, other] - state.known[g, other]
    np.testing.assert_array_equal(o[s["unseen"]], hidden)

    np.testing.assert_allclose(o[s["totals"]], state.totals[g, order] / rules.target)
    assert o[s["phase"]].argmax() == state.phase[g] and o[s["phase"]].sum() == 1
    assert o[s["to_play"]].argmax() == (state.current_player[g] - seat) % p
    assert o[s["dealer"]].argmax() == (state.dealer[g] - seat) % p
    for name in ("owed", "no_discard"):
        card = int(getattr(state, name)[g])
        assert o[s[name]].sum() == (card >= 0) and (card < 0 or o[s[name]][card] == 1)


def rehide(rules, state, g: int, seat: int, rng: np.random.Generator) -> None:
    """Re-deal game g's hidden cards (others' unknown cards and the stock), counts kept."""
    others = [x for x in range(rules.players) if x != seat]
    unknown = [state.hand[g, x] - state.known[g, x] for x in others]
    n_stock = int(state.stock_size[g])
    pool = np.concatenate(
        [np.repeat(np.arange(C), u) for u in unknown] + [state.stock[g, :n_stock].astype(np.int64)]
    )
    pool = rng.permutation(pool)
    at = 0
    for x, u in zip(others, unknown):
        k = int(u.sum())
        state.hand[g, x] = state.known[g, x] + np.bincount(pool[at : at + k], minlength=C)
        at += k
    state.stock[g, :n_stock] = pool[at:]


@pytest.mark.parametrize("preset,players", CONFIGS)
def test_hidden_cards_do_not_leak(preset: str, players: int) -> None:
    """Shuffling what a seat cannot see leaves its observation (and own mask) unchanged."""
    rules = rules_of(preset, players)
    rng = np.random.default_rng(7)
    checked = 0
    for state in random_positions(rules, batch=8, steps=200, every=25, seed=11):
        for seat in range(players):
            seats = np.full(state.batch_size, seat)
            before = observe(rules, state, seats)
            mask_before = legal_mask(rules, state)
            shuffled = state.copy()
            for g in range(state.batch_size):
                rehide(rules, shuffled, g, seat, rng)
            np.testing.assert_array_equal(shuffled.hand.sum(axis=2), state.hand.sum(axis=2))
            changed = (shuffled.hand != state.hand).any() or (shuffled.stock != state.stock).any()
            checked += bool(changed)
            np.testing.assert_array_equal(observe(rules, shuffled, seats), before)
            mine = state.current_player == seat
            np.testing.assert_array_equal(legal_mask(rules, shuffled)[mine], mask_before[mine])
    assert checked > 0  # the re-deal did move hidden cards

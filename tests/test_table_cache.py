"""What a batch keeps of its tables between steps equals what is worked out afresh.

``TableCache`` recomputes what a table accepts and scores only for the games whose
table changed; the vector env's masks and observations rest on it. Whole batches of
random games (new hands, new games in finished rows, joker swaps and rummy calls)
check it at every step, and the vector env's output against the core's.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from rummy_env.core import (
    GameStream,
    Rules,
    init,
    legal_mask,
    observe,
    player_view,
    sample_legal,
    step_inplace,
)
from rummy_env.core._table_cache import TableCache, table_key_one, table_keys
from rummy_env.core.observation import table_codes
from rummy_env.core.scoring import table_points
from rummy_env.core.state import PHASE_CALL
from rummy_env.core.table import blocked_cards, layoff_fits
from rummy_env.envs.vector import RummyVectorEnv

PRESETS = sorted(p.stem for p in (Path(__file__).parents[1] / "configs" / "rules").glob("*.yaml"))
QUICK = {"target": 150}  # games end within the test's steps, so rows get new games


def assert_fresh(rules: Rules, cache: TableCache, state) -> None:
    assert np.array_equal(cache.fits, layoff_fits(rules, state))
    every = np.arange(state.batch_size)
    assert np.array_equal(cache.points, table_points(rules, state, every))
    assert (cache.blocked is None) == (blocked_cards(rules, state, every) is None)
    if cache.blocked is not None:
        assert np.array_equal(cache.blocked, blocked_cards(rules, state, every))
    if cache.keeps_columns:
        assert cache.columns.tobytes() == table_codes(rules, state).tobytes()
    # The key counts the table's cards from the stock, pile and hands: the filled slots.
    assert np.array_equal(
        table_keys(rules, state)[:, 3], state.meld_len.sum(axis=1, dtype=np.int64)
    )


@pytest.mark.parametrize(
    "rules",
    [Rules.preset_named(p, **QUICK) for p in PRESETS] + [Rules.from_dict({"players": 5, **QUICK})],
    ids=PRESETS + ["two_decks_5p"],
)
def test_the_kept_tables_equal_fresh_ones_at_every_step(rules: Rules) -> None:
    """The masks, the observations of any seat, and the steps whose rummy-call test reads
    the kept tables equal the ones that work everything out afresh."""
    stream = GameStream(rules, 3, 24)
    state, cache = stream.state, TableCache(rules, observed=True)
    rng = np.random.default_rng(3)
    replaced = calls = 0
    for _ in range(700):
        cache.update(state)
        assert_fresh(rules, cache, state)
        seats = rng.integers(0, rules.players, state.batch_size)  # the kept columns turned
        assert (
            observe(rules, state, seats, table=cache.columns).tobytes()
            == observe(rules, state, seats).tobytes()
        )
        some = np.array([17, 0, 5])
        assert (
            observe(rules, state, seats[some], some, table=cache.columns).tobytes()
            == observe(rules, state, seats[some], some).tobytes()
        )
        mask = legal_mask(rules, state, fits=cache.fits, blocked=cache.blocked)
        assert np.array_equal(mask, legal_mask(rules, state))
        actions = sample_legal(mask, rng)
        afresh = state.copy()
        step_inplace(rules, afresh, actions, mask=mask)
        step_inplace(rules, state, actions, mask=mask, fits=cache.fits, blocked=cache.blocked)
        assert all(
            np.array_equal(getattr(state, f.name), getattr(afresh, f.name))
            for f in dataclasses.fields(state)
        )
        calls += int((state.phase == PHASE_CALL).sum())
        finished = stream.finished()
        replaced += finished.size
        stream.replace(finished)
    assert replaced > 0  # the check covered rows that took new games
    assert calls > 0 or not rules.rummy_call  # and call windows the kept tables opened


def test_a_selected_cache_follows_its_selected_games() -> None:
    rules = Rules.preset_named("jokers")
    stream = GameStream(rules, 5, 16)
    state, cache = stream.state, TableCache(rules, observed=True)
    rng = np.random.default_rng(5)
    for _ in range(60):
        cache.update(state)
        step_inplace(rules, state, sample_legal(legal_mask(rules, state), rng))
    cache.update(state)
    rows = np.array([9, 2, 14, 3])
    state = state.select(rows)
    cache.select(rows)
    for _ in range(60):
        assert_fresh(rules, cache, state)
        step_inplace(rules, state, sample_legal(legal_mask(rules, state, fits=cache.fits), rng))
        cache.update(state)


@pytest.mark.parametrize("preset", ["standard", "jokers"])
def test_the_vector_env_masks_and_observes_as_the_core_does(preset: str) -> None:
    """Its kept tables never show: every step's mask, observation and decision view
    equal the core's on the same state, through finished games and a restore."""
    rules = Rules.preset_named(preset, **QUICK)
    env = RummyVectorEnv(rules, num_envs=12, seed=2)
    obs, mask, _ = env.reset()
    rng = np.random.default_rng(2)
    finished = 0
    for step in range(500):
        assert np.array_equal(mask, legal_mask(rules, env.state))
        assert obs.tobytes() == observe(rules, env.state).tobytes()
        rows = np.array([0, 5, 11])
        view = env.decision(rows).view
        assert np.array_equal(view.table_points, observe_points(rules, env.state, rows))
        if step == 250:
            obs, mask, _ = env.restore(env.snapshot())
            continue
        obs, mask, _, _, _, _, info = env.step(sample_legal(mask, rng))
        finished += info["episode"]["game"].size
    assert finished > 0


def observe_points(rules: Rules, state, rows: np.ndarray) -> np.ndarray:
    """table_points of ``rows`` turned relative to the seat to play, as a view shows them."""
    return player_view(rules, state, rows=rows).table_points


@pytest.mark.parametrize("illegal", ["raise", "penalize"])
def test_the_single_agent_vector_env_masks_and_observes_as_the_core_does(illegal: str) -> None:
    """The learner's masks and observations, while the opponents play through the kept
    tables in between, equal the core's on the same state (games lost to an illegal
    action are dealt again and must not keep their old table either)."""
    from rummy_env.envs.vector import RummySingleAgentVectorEnv

    rules = Rules.preset_named("jokers", **QUICK)
    env = RummySingleAgentVectorEnv(num_envs=10, rules=rules, illegal_action=illegal)
    obs, info = env.reset(seed=4)
    rng = np.random.default_rng(4)
    for step in range(300):
        state = env._games.state
        assert np.array_equal(info["action_mask"], legal_mask(rules, state))
        assert obs.tobytes() == observe(rules, state, env.seat).tobytes()
        actions = sample_legal(info["action_mask"], rng)
        if illegal == "penalize" and step % 25 == 0:
            actions[3] = np.flatnonzero(~info["action_mask"][3])[0]
        obs, _, _, _, info = env.step(actions)


@pytest.mark.parametrize("preset", ["standard", "jokers", "tournament", "web"])
def test_one_game_and_the_batch_name_a_table_by_one_key(preset: str) -> None:
    """The one-game envs' key is the batched cache's key of that game, step after step
    (a seat's hand, the pile and the stock move; melds, lay-offs and swaps)."""
    rules = Rules.from_dict({"preset": preset, "target": 100})
    state = init(rules, seed=5, batch_size=4)
    rng = np.random.default_rng(5)
    for _ in range(600):
        for g in range(state.batch_size):
            assert table_key_one(rules, state.select([g])) == tuple(
                table_keys(rules, state)[g].tolist()
            )
        live = ~state.game_over
        if not live.any():
            break
        actions = np.zeros(state.batch_size, np.int64)
        mask = legal_mask(rules, state)
        actions[live] = sample_legal(mask[live], rng)
        step_inplace(rules, state, actions, mask=mask)

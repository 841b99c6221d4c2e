"""One game (B = 1) through the AEC env matches the same game inside a batch, bit for bit.

The engine serves a lone game and a batch of thousands with the same functions,
and some of them take shortcuts when the batch is small or the table empty. Here
each AEC game runs alongside a 3-game batch whose middle game is a copy of it:
the batch is stepped by the core with the AEC's actions (random legal ones for
its neighbours, which drift to other phases), and at every step every agent's
observation and the acting agent's mask must equal the batch's, to the bit.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from rummy_env.core import Rules, State, init, legal_mask, observe, sample_legal, step_inplace
from rummy_env.core._one_game import OneGameMask, OneGameObserver
from rummy_env.core._one_game.mask import legal_mask_one, supports
from rummy_env.core._one_game.table import layoff_fits_one
from rummy_env.core.table import layoff_fits
from rummy_env.envs.aec import raw_env

PRESETS = sorted(p.stem for p in (Path(__file__).parents[1] / "configs" / "rules").glob("*.yaml"))
STEPS = 260


def batch_around(rules, game: State, seed: int) -> State:
    """A 3-game batch: two other games around a copy of ``game``."""
    others = init(rules, seed, game_ids=np.array([11, 12]))
    return State(
        **{
            f.name: np.concatenate(
                [getattr(others, f.name)[:1], getattr(game, f.name), getattr(others, f.name)[1:]]
            )
            for f in dataclasses.fields(State)
        }
    )


def check_position(env: raw_env, batch: State) -> None:
    """Every agent's AEC observation and mask equal those of the batch's middle game."""
    rules = env.rules
    batch_mask = legal_mask(rules, batch)
    to_act = int(batch.current_player[1])
    assert env.agent_selection == env.possible_agents[to_act]
    for seat, agent in enumerate(env.possible_agents):
        got = env.observe(agent)
        want = observe(rules, batch, np.full(3, seat))[1]
        assert got["observation"].dtype == want.dtype
        assert got["observation"].tobytes() == want.tobytes(), (agent, seat)
        mask = batch_mask[1] if seat == to_act else np.zeros_like(batch_mask[1])
        assert np.array_equal(got["action_mask"], mask.astype(np.int8)), agent
    # The batched observation of a single row picks the same bits as the whole batch.
    alone = observe(rules, batch, np.array([to_act]), np.array([1]))[0]
    assert alone.tobytes() == observe(rules, batch)[1].tobytes()


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("preset", PRESETS)
def test_aec_game_equals_the_batched_engine(preset: str, players: int) -> None:
    assert {"standard", "jokers", "web", "tournament"} <= set(PRESETS)
    env = raw_env(preset=preset, players=players, episode="game")
    rules = env.rules
    rng = np.random.default_rng(players)
    env.reset(seed=len(preset) + players)
    batch = batch_around(rules, env._state, seed=players)
    hands_ended = 0
    for _ in range(STEPS):
        check_position(env, batch)
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        action = int(legal[rng.integers(legal.size)])
        mask = legal_mask(rules, batch)
        actions = sample_legal(mask, rng)
        actions[1] = action
        env.step(action)
        step_inplace(rules, batch, actions, mask=mask)
        hands_ended += int(batch.hand_ended[1])
        for name in (
            "hand",
            "known",
            "pile",
            "stock",
            "meld_by",
            "meld_joker",
            "totals",
            "hand_scores",
            "phase",
            "current_player",
            "owed",
            "taken",
        ):
            assert np.array_equal(getattr(env._state, name)[0], getattr(batch, name)[1]), name
        if not env.agents or any(env.terminations.values()) or any(env.truncations.values()):
            break
    assert hands_ended >= 1  # the deal of a new hand is covered too


@pytest.mark.parametrize(
    "config",
    [{"preset": p} for p in PRESETS] + [{"decks": 2}, {"preset": "jokers", "decks": 2}],
    ids=lambda c: ",".join(map(str, c.values())),
)
def test_the_kept_table_never_goes_stale(config: dict) -> None:
    """The one-game envs' mask and observations, which keep what the table accepts and
    shows between steps, equal those worked out afresh at every step of whole games,
    through new hands and new games (a new state each, as a reset makes); two decks too,
    where copies of a card add up on the table."""
    rules = raw_env(**config, players=3).rules
    masks, observer = OneGameMask(rules), OneGameObserver(rules)
    rng = np.random.default_rng(7)
    for game in range(4):
        state = init(rules, game, 1)
        while not state.game_over[0]:
            want = legal_mask(rules, state)
            assert np.array_equal(masks(state), want)
            for seat in (int(state.current_player[0]), int(rng.integers(3))):
                fresh = observe(rules, state, np.array([seat]))[0]
                assert observer(state, seat).tobytes() == fresh.tobytes()
            step_inplace(rules, state, sample_legal(want, rng), mask=want)


@pytest.mark.parametrize(
    "flags",
    [
        {},
        {"preset": "web"},
        {"discard_required": True},
        {"layoff_requires_meld": True},
        {"keep_taken": True},
        {"top_card_must_meld": True},
        {"top_card_must_meld": True, "dig": False},
        {"wrap": True},
        {"ace_high": False},
        {"decks": 2, "players": 3},
        {"players": 5},
        {"discard_required": True, "layoff_requires_meld": True, "keep_taken": True, "players": 3},
    ],
    ids=lambda flags: ",".join(f"{k}={v}" for k, v in flags.items()) or "standard",
)
def test_the_plain_one_game_mask_equals_the_batched_mask(flags: dict) -> None:
    """``legal_mask_one`` (plain Python, no jokers) offers exactly what ``legal_mask`` does,
    and ``layoff_fits_one`` finds the lay-offs ``layoff_fits`` does, at every step of whole
    random games, for each rule that shapes the mask."""
    rules = Rules.from_dict(flags)
    assert supports(rules)
    rng = np.random.default_rng(3)
    for game in range(3):
        state = init(rules, 40 + game, 1)
        while not state.game_over[0]:
            want = legal_mask(rules, state)
            fits = layoff_fits(rules, state)
            assert np.array_equal(layoff_fits_one(rules, state), fits)
            assert np.array_equal(legal_mask_one(rules, state, fits), want)
            step_inplace(rules, state, sample_legal(want, rng), mask=want)


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("players", [2, 3])
def test_one_game_steps_equal_the_batched_steps(preset: str, players: int) -> None:
    """``step_inplace`` of a lone game (its plain-Python steps) changes every state field
    exactly as the batched code does for the same game beside a copy of itself (and
    ``layoff_fits_one`` finds the batched lay-offs, jokers' melds included), at every
    step of games (up to 1,500 steps each, several hands): draws, takes, discards, melds
    and lay-offs alike."""
    rules = raw_env(preset=preset, players=players).rules
    rng = np.random.default_rng(players)
    fields = [f.name for f in dataclasses.fields(State)]
    for game in range(3):
        alone = init(rules, 60 + game, 1)
        pair = State(**{name: np.concatenate([getattr(alone, name)] * 2) for name in fields})
        for _ in range(1500):
            if alone.game_over[0]:
                break
            mask = legal_mask(rules, alone)
            assert np.array_equal(layoff_fits_one(rules, alone), layoff_fits(rules, alone))
            action = sample_legal(mask, rng)
            step_inplace(rules, alone, action, mask=mask)
            step_inplace(rules, pair, np.repeat(action, 2))
            for name in fields:
                assert np.array_equal(getattr(alone, name)[0], getattr(pair, name)[0]), name


def rule_choices() -> list[tuple[str, object]]:
    """(flag, value) for every choice in ``Rules``' own table of allowed values: each value
    of a listed choice, and for a range its low end and the default. A flag added to the
    table later is walked here without editing this test."""
    from rummy_env.core.rules import _CHOICES

    defaults = Rules()
    cases = []
    for flag, allowed in _CHOICES.items():
        if flag == "players":  # the other axis of the test
            continue
        if isinstance(allowed, tuple):
            values = list(allowed)
        elif isinstance(allowed, range):
            values = sorted({max(allowed.start, 1), getattr(defaults, flag)})
        else:  # described in words: the default and a number
            values = [getattr(defaults, flag), 7]
        cases += [(flag, value) for value in values]
    return cases


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize(
    ("flag", "value"), rule_choices(), ids=[f"{flag}={value}" for flag, value in rule_choices()]
)
def test_every_rule_choice_plays_whole_games_alike_alone_and_in_a_batch(
    flag: str, value, players: int
) -> None:
    """Whole games (to a target of 100 unless the flag is the target) through the one-game
    path (the AEC env) beside the batched engine, for every value of every rule flag."""
    try:
        env = raw_env(
            rules=Rules.from_dict({"target": 100, "players": players, flag: value}), episode="game"
        )
    except ValueError as e:
        pytest.skip(f"not a valid table: {e}")
    rules, rng = env.rules, np.random.default_rng(players)
    env.reset(seed=players)
    batch = batch_around(rules, env._state, seed=players)
    for _ in range(20_000):
        check_position(env, batch)
        if batch.game_over[1]:
            break
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        action = int(legal[rng.integers(legal.size)])
        mask = legal_mask(rules, batch)
        live = ~batch.game_over  # a neighbour that ended stays as it is
        actions = np.zeros(3, np.int64)
        actions[live] = sample_legal(mask[live], rng)
        actions[1] = action
        env.step(action)
        step_inplace(rules, batch, actions, mask=mask)
    assert batch.game_over[1], "the game did not end"

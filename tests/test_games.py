"""``Games``, the engine's driver of a batch in play, answers as the pure functions do.

Whatever a caller asks of it (the mask, the views and observations of some rows, a step
of every game or of some, an opponent's moves chosen from the rows' own states, fresh
games in finished rows, a batch cut down or packed), its answers equal ``legal_mask``,
``player_view``, ``observe`` and ``step`` on the same games: its kept tables and its
one-game path never show.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from rummy_env.core import (
    Games,
    Rules,
    State,
    init,
    legal_mask,
    observe,
    player_view,
    sample_legal,
    step_inplace,
)

QUICK = {"target": 150}  # games end within the test's steps, so rows get new games


def assert_same_games(a: State, b: State) -> None:
    for field in dataclasses.fields(a):
        assert np.array_equal(getattr(a, field.name), getattr(b, field.name)), field.name


def assert_answers_as_the_core(games: Games, rows: np.ndarray) -> None:
    rules, state = games.rules, games.state
    assert np.array_equal(games.mask(), legal_mask(rules, state))
    seats = (state.current_player[rows] + 1) % rules.players
    assert np.array_equal(
        games.view(seats, rows).table_points, player_view(rules, state, seats, rows).table_points
    )
    assert games.observe(seats, rows).tobytes() == observe(rules, state, seats, rows).tobytes()
    assert games.observe().tobytes() == observe(rules, state).tobytes()


@pytest.mark.parametrize("preset", ["standard", "jokers"])
def test_every_way_of_moving_games_matches_the_pure_step(preset: str) -> None:
    """Whole steps, steps of some rows, ``play`` with a chooser, new games in finished
    rows, a snapshot put back: the games equal a copy stepped by ``step_inplace`` alone,
    and every answer on the way equals the core's."""
    rules = Rules.preset_named(preset, **QUICK)
    games = Games(rules, 12, seed=3, sees="observations")
    twin = games.state.copy()
    rng = np.random.default_rng(3)
    replaced = 0
    for k in range(400):
        rows = np.flatnonzero(rng.random(12) < 0.5)
        assert_answers_as_the_core(games, rows)
        actions = sample_legal(legal_mask(rules, twin), rng)
        if rows.size and k % 3 == 0:

            def choose(
                part: State,
                part_mask: np.ndarray,
                rows: np.ndarray = rows,
                actions: np.ndarray = actions,
            ) -> np.ndarray:
                assert_same_games(part, twin.select(rows))
                assert np.array_equal(part_mask, legal_mask(rules, part))
                return actions[rows]

            games.play(rows, choose)
        elif rows.size and k % 3 == 1:
            games.step(actions[rows], rows)
        else:
            rows = np.arange(12)
            games.step(actions)
        part = twin.select(rows)
        step_inplace(rules, part, actions[rows])
        twin.assign(rows, part)
        done = games.finished()
        replaced += games.replace(done).size
        twin.assign(done, init(rules, 3, game_ids=games.slot_game[done]))
        if k == 200:
            games.restore(games.snapshot())
        assert_same_games(games.state, twin)
    assert replaced > 0


def test_a_stream_of_deals_runs_dry_and_packs_its_rows() -> None:
    """Every deal is played once, to its end, and equals that deal played alone."""
    rules = Rules.preset_named("standard", **QUICK)
    deals = np.array([4, 9, 2, 7, 11, 5, 0])
    games = Games(rules, 3, seed=8, deals=deals, sees="mask")
    rng = np.random.default_rng(8)
    totals = {}
    while games.slot_game.size:
        live = ~games.state.game_over
        mask = games.mask() | ~live[:, None]
        games.step(np.where(live, sample_legal(mask, rng), 0))
        done = games.finished()
        for row, g in zip(done.tolist(), games.slot_game[done].tolist()):
            totals[g] = games.state.totals[row].tolist()
        games.replace(done)
        games.compact()
    assert sorted(totals) == list(range(deals.size)) and games.next_game == deals.size


def test_a_search_cuts_its_batch_down_and_keeps_the_tables_right() -> None:
    """``Games.of`` drives games dealt elsewhere; ``keep`` drops rows between steps."""
    rules = Rules.preset_named("jokers", **QUICK)
    state = init(rules, 5, 16)
    games = Games.of(rules, state, auto_deal=False)
    rng = np.random.default_rng(5)
    while games.state.batch_size:
        over = games.state.hand_ended | games.state.game_over
        if over.any():
            games.keep(np.flatnonzero(~over))
            continue
        assert_answers_as_the_core(games, np.arange(0, games.state.batch_size, 2))
        games.step(sample_legal(games.mask(), rng))


@pytest.mark.parametrize("preset", ["standard", "jokers"])
def test_one_game_takes_its_own_path_to_the_same_answers(preset: str) -> None:
    """A lone game (``one_game``) masks, observes and steps as the batched engine does."""
    rules = Rules.preset_named(preset, **QUICK)
    games = Games(rules, 1, seed=6, one_game=True)
    twin = init(rules, 6, game_ids=[0])
    rng = np.random.default_rng(6)
    while not games.state.game_over[0]:
        mask = legal_mask(rules, twin)
        assert np.array_equal(games.mask(), mask)
        for seat in range(rules.players):
            assert (
                games.observe_one(seat).tobytes()
                == observe(rules, twin, np.array([seat]), np.array([0]))[0].tobytes()
            )
        action = sample_legal(mask, rng)
        games.step(action)
        step_inplace(rules, twin, action)
        assert_same_games(games.state, twin)


def test_a_request_it_cannot_serve_is_refused_in_one_line() -> None:
    rules = Rules()
    with pytest.raises(ValueError, match="sees='tables': one of mask, views, observations"):
        Games(rules, 4, sees="tables")
    with pytest.raises(ValueError, match="one_game: one game, not 4"):
        Games(rules, 4, one_game=True)

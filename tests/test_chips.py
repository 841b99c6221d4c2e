"""Chips (the point chip ratio): the settlement, and the ``chips`` reward of every env."""

from __future__ import annotations

import numpy as np
import pytest

import rummy_env
from rummy_env.core import GameStream, Rules, chips, legal_mask, sample_legal, step_inplace
from rummy_env.envs.episode import outcome
from rummy_env.envs.vector import RummySingleAgentVectorEnv, RummyVectorEnv


def test_seed004_example_pcr_4() -> None:
    """Totals 100 / 70 / 60 at PCR 4: the second seat pays 120, the third 160."""
    got = chips(np.array([[100, 70, 60]]), np.array([0]), pcr=4)
    assert got.tolist() == [[280, -120, -160]]


def test_any_seat_may_win_and_no_winner_pays_nothing() -> None:
    totals = np.array([[70, 100, 60], [5, 9, -4], [10, 10, 3]])
    got = chips(totals, np.array([1, -1, 0]), pcr=2)
    assert got.tolist() == [[-60, 140, -80], [0, 0, 0], [14, 0, -14]]
    assert (got.sum(axis=1) == 0).all()


def finished_games(rules: Rules, batch: int, seed: int = 0):
    """A batch of random games played to their end in the core (quick games end fast)."""
    rng = np.random.default_rng(seed)
    state = GameStream(rules, seed, batch).state
    while not state.game_over.all():
        mask = legal_mask(rules, state)
        pick = mask.copy()
        pick[state.game_over, 0] = True  # a finished game ignores its action
        step_inplace(rules, state, sample_legal(pick, rng), mask=mask)
    return state


def test_outcome_pays_chips_over_100_at_game_end() -> None:
    rules = Rules(players=3, game_hands=1, max_hands=5)
    state = finished_games(rules, 16)
    rows = np.arange(16)
    paid = outcome(rules, state, rows, "game", "chips", pcr=4)
    won = state.winner >= 0
    assert won.any()
    want = chips(state.totals, np.where(won, state.winner, -1), 4) / 100
    np.testing.assert_allclose(paid.rewards, want, atol=1e-5)
    np.testing.assert_allclose(paid.rewards.sum(axis=1), 0.0, atol=1e-5)


def test_aec_chips_reward_sums_to_the_settlement() -> None:
    env = rummy_env.env(players=3, game_hands=1, reward="chips", pcr=4)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    total = dict.fromkeys(env.possible_agents, 0.0)
    finals: dict = {}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        total[agent] += reward
        if terminated or truncated:
            finals[agent] = info
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    info = finals["player_0"]
    want = chips(np.array([info["totals"]]), np.array([info["winner"]]), 4)[0] / 100
    assert [total[a] for a in env.possible_agents] == pytest.approx(want.tolist(), abs=1e-4)


def test_vector_chips_scale_with_pcr() -> None:
    """The same seeded games pay pcr times the chips of pcr 1, zero-sum."""
    paid = {}
    for pcr in (1, 3):
        env = RummyVectorEnv(
            Rules(players=2, game_hands=1), num_envs=8, seed=5, reward="chips", pcr=pcr
        )
        obs, mask, seat = env.reset()
        rng = np.random.default_rng(0)
        got = np.zeros((8, 2))
        for _ in range(300):
            obs, mask, seat, rewards, terminated, truncated, info = env.step(
                sample_legal(mask, rng)
            )
            np.testing.assert_allclose(rewards.sum(axis=1), 0.0, atol=1e-5)
            got += rewards
        paid[pcr] = got
    assert np.abs(paid[1]).sum() > 0
    np.testing.assert_allclose(paid[3], 3 * paid[1], atol=1e-4)


@pytest.mark.parametrize("pcr", [0, -2, 1.5, True, "4"])
def test_bad_pcr_is_refused_by_every_env(pcr) -> None:
    makers = [
        lambda: rummy_env.env(reward="chips", pcr=pcr),
        lambda: RummyVectorEnv(num_envs=2, reward="chips", pcr=pcr),
        lambda: RummySingleAgentVectorEnv(num_envs=2, reward="chips", pcr=pcr),
    ]
    for make in makers:
        with pytest.raises(ValueError, match="pcr="):
            make()


def test_match_report_gives_chips_per_game_with_an_interval(tmp_path) -> None:
    from rummy500.agents.random_agent import RandomAgent
    from rummy500.eval.arena import play_match
    from rummy500.eval.report import agent_chips, build_report, markdown, write_report

    rules = Rules(players=3, game_hands=1)
    agents = [RandomAgent(seed=s) for s in range(3)]
    for i, agent in enumerate(agents):
        agent.name = f"random#{i}"
    match = play_match(rules, agents, 12, seed=1, batch_size=8, progress=False)
    per_game = agent_chips(match, 4)
    np.testing.assert_allclose(per_game.sum(axis=1), 0.0)
    report = build_report(match, bootstrap=10, pcr=4)
    row = report["agents"][0]
    assert row["chips_lo"] <= row["chips_per_game"] == pytest.approx(per_game[:, 0].mean())
    assert row["chips_per_game"] <= row["chips_hi"]
    assert "Chips per game at PCR 4" in markdown(report)
    paths = write_report(report, tmp_path)
    assert "chips_per_game" in paths["csv"].read_text().splitlines()[0]
    assert "chips_per_game" not in build_report(match, bootstrap=10)["agents"][0]

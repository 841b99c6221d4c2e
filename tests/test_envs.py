"""The environments: PettingZoo AEC, Gymnasium, the vector envs, examples and benches."""

from __future__ import annotations

import runpy
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

import rummy_env
from rummy_env.core import (
    Decision,
    Rules,
    action_layout,
    legal_mask,
    observation_size,
    sample_legal,
)
from rummy_env.envs.vector import RummySingleAgentVectorEnv, RummyVectorEnv
from rummy_env.tools.bench_envs import bench_aec, bench_vector

PRESETS = ("standard", "web", "jokers")
PLAYERS = (2, 3, 4)
ROOT = Path(__file__).resolve().parents[1]


def random_aec_game(env, seed: int, max_steps: int = 100_000,
                    ends: dict | None = None) -> dict[str, float]:
    """Play one episode with random legal actions; the summed rewards per agent.

    ``ends``, if given, receives each agent's final (terminated, truncated).
    """
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    total = dict.fromkeys(env.possible_agents, 0.0)
    for n, agent in enumerate(env.agent_iter()):
        obs, reward, terminated, truncated, _ = env.last()
        total[agent] += reward
        if terminated or truncated:
            if ends is not None:
                ends[agent] = (terminated, truncated)
            env.step(None)
            continue
        assert n < max_steps
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return total


# ----------------------------------------------------------------------------- PettingZoo
@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("players", PLAYERS)
def test_pettingzoo_api_and_seed(preset: str, players: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # dict observations warn, as in classic envs
        api_test(rummy_env.env(preset=preset, players=players), num_cycles=150)
        seed_test(lambda: rummy_env.env(preset=preset, players=players), num_cycles=100)


@pytest.mark.parametrize("players", PLAYERS)
def test_max_cycles_truncates_every_agent(players: int) -> None:
    """The AEC half of pettingzoo's max_cycles_test, with legal (masked) actions.

    pettingzoo.test.max_cycles_test itself cannot apply to a turn-based card game:
    it needs a ``parallel_env``, samples actions without the mask, and expects
    every agent to act once per cycle (here a seat plays several micro-actions).
    """
    max_cycles = 6
    env = rummy_env.env(players=players, max_cycles=max_cycles)
    env.reset(seed=1)
    counts = dict.fromkeys(env.possible_agents, 0)
    rng = np.random.default_rng(0)
    for agent in env.agent_iter():
        counts[agent] += 1
        obs, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            assert truncated and not terminated and reward == 0
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert max(counts.values()) == max_cycles + 1  # the busiest agent, plus its dead step
    assert not env.agents


def test_mask_in_observation_is_the_core_mask() -> None:
    env = rummy_env.env(preset="web", players=3)
    raw = env.unwrapped
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    for n, agent in enumerate(env.agent_iter(600)):
        core_mask = legal_mask(raw.rules, raw._state)[0]
        seat = int(raw._state.current_player[0])
        assert agent == f"player_{seat}"
        for other in env.agents:
            mask = env.observe(other)["action_mask"]
            assert mask.dtype == np.int8
            expected = core_mask if other == agent else np.zeros_like(core_mask)
            np.testing.assert_array_equal(mask.astype(bool), expected, err_msg=f"step {n}")
        env.step(int(rng.choice(np.flatnonzero(core_mask))))


@pytest.mark.parametrize("reward", ["win", "points", "points_diff"])
def test_aec_rewards(reward: str) -> None:
    env = rummy_env.env(players=3, target=150, reward=reward)
    total = random_aec_game(env, seed=2)
    info = env.unwrapped._final_info()
    if reward == "win":
        assert sum(total.values()) == pytest.approx(0.0, abs=1e-6)
        winner = info["winner"]
        assert winner is not None and total[winner] == 1.0
    elif reward == "points":
        assert [total[a] for a in env.possible_agents] == pytest.approx(
            [t / 100 for t in info["totals"]], abs=1e-4)
    else:
        assert sum(total.values()) == pytest.approx(0.0, abs=1e-4)


def test_hand_episode_ends_with_the_hand() -> None:
    env = rummy_env.env(preset="web", episode="hand", reward="points")
    ends: dict = {}
    total = random_aec_game(env, seed=3, ends=ends)
    assert ends == dict.fromkeys(env.possible_agents, (True, False))
    scores = env.unwrapped._state.hand_scores[0]
    assert env.unwrapped._state.hand_number[0] == 0
    assert [total[a] for a in env.possible_agents] == pytest.approx(scores / 100, abs=1e-5)


def test_hand_at_max_turns_is_a_truncation() -> None:
    env = rummy_env.env(episode="hand", max_turns=3)
    ends: dict = {}
    total = random_aec_game(env, seed=0, ends=ends)
    assert env.unwrapped._state.turn[0] == 3
    assert ends == dict.fromkeys(env.possible_agents, (False, True))
    assert total == dict.fromkeys(env.possible_agents, 0.0)  # "win" pays 0 on truncation
    assert not env.agents


def test_illegal_action_raises_or_penalizes() -> None:
    env = rummy_env.env()
    env.reset(seed=0)
    discard = action_layout(Rules()).parse("discard AS")
    with pytest.raises(ValueError, match="illegal action by player_0: 'discard AS'; legal: .*draw"):
        env.step(discard)
    env = rummy_env.env(illegal_action="penalize")
    env.reset(seed=0)
    offender = env.agent_selection
    env.step(discard)
    assert all(env.terminations.values())
    assert env.rewards[offender] == -1.0
    assert env.infos[offender]["illegal_action"] == "discard AS"


def test_rules_from_keywords_and_yaml(tmp_path: Path) -> None:
    path = tmp_path / "rules.yaml"
    path.write_text("preset: web\nplayers: 3\ntarget: 250\n")
    from_file = rummy_env.raw_env(rules_file=str(path)).rules
    from_flags = rummy_env.raw_env(preset="web", players=3, target=250).rules
    assert from_file == from_flags == Rules.preset_named("web", players=3, target=250)
    assert rummy_env.raw_env(rules=from_file).rules is from_file
    with pytest.raises(ValueError, match="unknown key"):
        rummy_env.raw_env(colour="red")
    with pytest.raises(ValueError, match="reward='score' is not allowed"):
        rummy_env.raw_env(reward="score")


def test_render_shows_the_game() -> None:
    env = rummy_env.env(render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "player_0" in text and "stock: 25 cards" in text and ":1" in text
    assert "totals:" in text


# ----------------------------------------------------------------------------- Gymnasium
@pytest.mark.parametrize("env_id,config", [
    ("Rummy500-v0", {}),
    ("Rummy500Hand-v0", {"preset": "web", "players": 3, "seat": "random"}),
    ("Rummy500-v0", {"preset": "jokers", "players": 4}),
])
def test_gymnasium_check_env(env_id: str, config: dict) -> None:
    env = gymnasium.make(env_id, **config)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env.unwrapped)
    obs, info = env.reset(seed=0)
    assert obs.shape == (observation_size(env.unwrapped.rules),)
    np.testing.assert_array_equal(env.unwrapped.action_masks(), info["action_mask"] == 1)


class FirstLegal:
    """A minimal Agent: the lowest legal action id."""

    name = "first"

    def __init__(self) -> None:
        self.calls = 0

    def act(self, decision: Decision) -> np.ndarray:
        self.calls += 1
        assert decision.view.current_player.tolist() == [0] * decision.size  # its own turn
        return np.argmax(decision.mask, axis=1)


def test_gym_episode_against_agent_and_callable() -> None:
    agent = FirstLegal()

    def last_legal(observation: np.ndarray, mask: np.ndarray) -> int:
        assert observation.ndim == 1 and mask.ndim == 1
        return int(np.flatnonzero(mask)[-1])

    env = gymnasium.make("Rummy500Hand-v0", players=3, seat=1, opponents=[agent, last_legal],
                         reward="points_diff")
    obs, info = env.reset(seed=4)
    rng = np.random.default_rng(0)
    total, done = 0.0, False
    while not done:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(action)
        total += reward
        done = terminated or truncated
    assert agent.calls > 0
    scores = info["hand_scores"]
    assert total == pytest.approx((scores[1] - (scores[0] + scores[2]) / 2) / 100, abs=1e-5)


# ----------------------------------------------------------------------------- vector envs
def test_vector_env_shapes_autoreset_and_zero_sum() -> None:
    rules = Rules(players=3, target=100)
    env = RummyVectorEnv(rules, num_envs=32, seed=0, reward="win")
    obs, mask, seat = env.reset()
    d, a = observation_size(rules), env.num_actions
    assert obs.shape == (32, d) and obs.dtype == np.float32
    assert mask.shape == (32, a) and mask.dtype == bool
    assert seat.shape == (32,) and seat.dtype == np.int64
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(800):
        obs, mask, seat, rewards, terminated, truncated, info = env.step(sample_legal(mask, rng))
        assert rewards.shape == (32, 3) and rewards.dtype == np.float32
        np.testing.assert_allclose(rewards.sum(axis=1), 0.0, atol=1e-6)
        done = np.flatnonzero(terminated | truncated)
        episode = info["episode"]
        np.testing.assert_array_equal(episode["game"], done)
        assert info["final_obs"].shape == (done.size, 3, d)
        for row, winner in zip(done, episode["winner"]):
            if terminated[row]:
                assert rewards[row, winner] == 1.0
        # Same-step autoreset: a finished row already holds a fresh game.
        assert (env.state.hand_number[done] == 0).all() and (env.state.turn[done] == 0).all()
        np.testing.assert_array_equal(mask, legal_mask(rules, env.state))
        np.testing.assert_array_equal(seat, env.state.current_player)
        finished += done.size
    assert finished > 0
    assert env.state.batch_size == 32


def test_vector_env_is_a_function_of_the_seed() -> None:
    runs = []
    for _ in range(2):
        env = RummyVectorEnv(Rules.preset_named("web"), num_envs=8, seed=3, episode="hand",
                             reward="points")
        obs, mask, _ = env.reset()
        rng = np.random.default_rng(1)
        total = np.zeros(2)
        for _ in range(150):
            obs, mask, _, rewards, *_ = env.step(sample_legal(mask, rng))
            total += rewards.sum(axis=0)
        runs.append((obs, total))
    np.testing.assert_array_equal(runs[0][0], runs[1][0])
    np.testing.assert_array_equal(runs[0][1], runs[1][1])


def test_single_agent_vector_env() -> None:
    env = gymnasium.make_vec("Rummy500Hand-v0", num_envs=6, players=3, seat="random")
    assert isinstance(env.unwrapped, RummySingleAgentVectorEnv)
    obs, info = env.reset(seed=0)
    assert obs.shape == (6, env.single_observation_space.shape[0])
    assert env.observation_space.contains(obs)
    unwrapped = env.unwrapped
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(150):
        # Every game waits for its learner, and the mask is the learner's.
        np.testing.assert_array_equal(unwrapped._games.state.current_player, unwrapped.seat)
        np.testing.assert_array_equal(env.action_masks(), legal_mask(unwrapped.rules,
                                                                      unwrapped._games.state))
        obs, reward, terminated, truncated, info = env.step(sample_legal(info["action_mask"],
                                                                         rng))
        assert reward.shape == (6,) and terminated.dtype == bool
        if "_episode" in info:
            rows = np.flatnonzero(info["_episode"])
            np.testing.assert_array_equal(rows, np.flatnonzero(terminated | truncated))
            assert (info["episode"]["l"][rows] > 0).all()
            episodes += rows.size
    assert episodes > 0
    # An illegal action is penalized and the game restarts.
    bad = np.where(env.action_masks()[:, 0], 1, 0)  # draw is legal -> "end" is not
    obs, reward, terminated, truncated, info = env.step(bad)
    assert (reward == -1).all() and terminated.all()


# ----------------------------------------------------------------------------- docs, benches
@pytest.mark.parametrize("name", ["aec_loop.py", "batched_loop.py"])
def test_examples_run(name: str, capsys: pytest.CaptureFixture) -> None:
    runpy.run_path(str(ROOT / "docs" / "examples" / name), run_name="__main__")
    assert capsys.readouterr().out


def test_benches_report_speed() -> None:
    rules = Rules.preset_named("web")
    vector = bench_vector(rules, batch_size=16, seconds=0.2)
    aec = bench_aec(rules, seconds=0.2)
    assert vector["agent_steps_per_s"] > 0 and aec["agent_steps_per_s"] > 0
    assert set(vector["time_share"]) >= {"core_mask", "core_step", "observe"}

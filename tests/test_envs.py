"""The environments: PettingZoo AEC, Gymnasium, the vector envs, examples and benches."""

from __future__ import annotations

import runpy
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

import rummy_env
from rummy500.commands.speed_envs import bench_aec, bench_gym, bench_vector
from rummy_env.core import (
    Decision,
    Rules,
    action_layout,
    legal_mask,
    observation_size,
    sample_legal,
)
from rummy_env.envs.gym_env import TERMINAL_MASK_ACTION
from rummy_env.envs.info import INFO_KEYS
from rummy_env.envs.vector import RummySingleAgentVectorEnv, RummyVectorEnv

PRESETS = ("standard", "web", "jokers")
PLAYERS = (2, 3, 4)
ROOT = Path(__file__).resolve().parents[1]


def random_aec_game(
    env, seed: int, max_steps: int = 100_000, ends: dict | None = None, finals: dict | None = None
) -> dict[str, float]:
    """Play one episode with random legal actions; the summed rewards per agent.

    ``ends``, if given, receives each agent's final (terminated, truncated);
    ``finals`` each agent's final info.
    """
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    total = dict.fromkeys(env.possible_agents, 0.0)
    for n, agent in enumerate(env.agent_iter()):
        obs, reward, terminated, truncated, info = env.last()
        total[agent] += reward
        if terminated or truncated:
            if ends is not None:
                ends[agent] = (terminated, truncated)
            if finals is not None:
                finals[agent] = info
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


def _standard_stack(**config):
    """``raw_env`` in the two PettingZoo wrappers ``env()`` stands in for."""
    from pettingzoo.utils import wrappers

    return wrappers.OrderEnforcingWrapper(
        wrappers.AssertOutOfBoundsWrapper(rummy_env.raw_env(**config))
    )


def _outcome(call, *args) -> tuple:
    """What ``call(*args)`` gives: ("ok", its value) or (the error's type, its message)."""
    try:
        return "ok", call(*args)
    except (AttributeError, AssertionError, ValueError, RuntimeError) as error:
        return type(error).__name__, str(error)


def test_env_wrapper_checks_as_pettingzoos_standard_wrappers() -> None:
    """``env()``'s one wrapper refuses what PettingZoo's two did, with the same errors,
    and plays the same game."""
    ours, theirs = rummy_env.env(), _standard_stack()
    for read in ("agents", "agent_selection", "terminations", "infos"):
        assert _outcome(getattr, ours, read) == _outcome(getattr, theirs, read), read
    assert _outcome(ours.last)[0] == _outcome(theirs.last)[0] == "AttributeError"
    for env in (ours, theirs):
        with pytest.raises(Exception, match="reset"):
            env.step(0)
        env.reset(seed=3)
    for bad in (10_000, -1, 2.5, None):
        assert _outcome(ours.step, bad) == _outcome(theirs.step, bad), bad
    rng = np.random.default_rng(3)
    for agent in ours.agent_iter():
        assert agent == theirs.agent_selection
        mine, other = ours.last(), theirs.last()
        np.testing.assert_array_equal(mine[0]["observation"], other[0]["observation"])
        np.testing.assert_array_equal(mine[0]["action_mask"], other[0]["action_mask"])
        assert mine[1:4] == other[1:4]
        assert mine[4].keys() == other[4].keys()
        for key in mine[4]:
            np.testing.assert_array_equal(mine[4][key], other[4][key])
        action = (
            None if mine[2] or mine[3] else int(rng.choice(np.flatnonzero(mine[0]["action_mask"])))
        )
        ours.step(action)
        theirs.step(action)
    assert ours.agents == theirs.agents == []
    with pytest.raises(AssertionError, match="step"):  # the order check of agent_iter
        ours.reset(seed=0)
        loop = iter(ours.agent_iter())
        next(loop)
        next(loop)
    assert str(ours) == str(theirs) == "rummy500_v1"


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
    finals: dict = {}
    total = random_aec_game(env, seed=2, finals=finals)
    info = finals["player_0"]
    if reward == "win":
        assert sum(total.values()) == pytest.approx(0.0, abs=1e-6)
        winner = info["winner"]
        assert winner == info["game_winner"] >= 0 and total[f"player_{winner}"] == 1.0
    elif reward == "points":
        assert [total[a] for a in env.possible_agents] == pytest.approx(
            [t / 100 for t in info["totals"]], abs=1e-4
        )
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
    assert env.infos[offender]["illegal_action"] == discard
    assert all(env.infos[a]["illegal_action"] == -1 for a in env.agents if a != offender)


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


@pytest.mark.parametrize("preset,players", [("standard", 2), ("web", 3), ("jokers", 4)])
def test_parallel_api(preset: str, players: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parallel_api_test(rummy_env.parallel_env(preset=preset, players=players), num_cycles=400)
        # The seed test samples actions without the mask: a penalized illegal action ends it.
        parallel_seed_test(
            lambda: rummy_env.parallel_env(
                preset=preset, players=players, illegal_action="penalize"
            )
        )


def test_parallel_env_plays_only_the_seat_to_play() -> None:
    env = rummy_env.parallel_env(preset="web", players=3, episode="hand", reward="win")
    observations, infos = env.reset(seed=2)
    rng = np.random.default_rng(2)
    total = dict.fromkeys(env.possible_agents, 0.0)
    while env.agents:
        to_play = env.current_agent
        for agent, obs in observations.items():
            assert obs["action_mask"].any() == (agent == to_play)
        legal = np.flatnonzero(observations[to_play]["action_mask"])
        actions = {
            to_play: int(rng.choice(legal)),
            "player_1" if to_play != "player_1" else "player_2": 10_000,
        }  # another agent's action is ignored
        observations, rewards, terminations, truncations, infos = env.step(actions)
        for agent, reward in rewards.items():
            total[agent] += reward
    assert_fixed_info(infos["player_0"], 3)
    winner = infos["player_0"]["winner"]
    assert winner == -1 or total[f"player_{winner}"] == 1.0
    with pytest.raises(RuntimeError, match=r"call reset\(\)"):
        env.step({})


# ----------------------------------------------------------------------------- Gymnasium
@pytest.mark.parametrize(
    "env_id,config",
    [
        ("Rummy500-v1", {}),
        ("Rummy500Hand-v1", {"preset": "web", "players": 3, "seat": "random"}),
        ("Rummy500-v1", {"preset": "jokers", "players": 4}),
    ],
)
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

    env = gymnasium.make(
        "Rummy500Hand-v1", players=3, seat=1, opponents=[agent, last_legal], reward="points_diff"
    )
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
        env = RummyVectorEnv(
            Rules.preset_named("web"), num_envs=8, seed=3, episode="hand", reward="points"
        )
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
    env = gymnasium.make_vec("Rummy500Hand-v1", num_envs=6, players=3, seat="random")
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
        np.testing.assert_array_equal(
            env.action_masks(), legal_mask(unwrapped.rules, unwrapped._games.state)
        )
        obs, reward, terminated, truncated, info = env.step(sample_legal(info["action_mask"], rng))
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


def test_single_agent_vector_env_with_next_step_autoreset() -> None:
    """A finished game's row returns its last view and a one-entry mask; the next step
    ignores that row's action (even an illegal one) and deals it a fresh game."""
    env = RummySingleAgentVectorEnv(4, autoreset="next_step", episode="hand", seat="random", seed=2)
    assert env.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP
    obs, info = env.reset(seed=2)
    rng = np.random.default_rng(2)
    waiting = np.zeros(4, bool)
    finished = 0
    for _ in range(400):
        actions = sample_legal(info["action_mask"], rng)
        actions[waiting] = 954  # ignored: these rows only get their fresh game
        obs, reward, terminated, truncated, info = env.step(actions)
        assert (reward[waiting] == 0).all() and not (terminated | truncated)[waiting].any()
        waiting = terminated | truncated
        finished += int(waiting.sum())
        for row in np.flatnonzero(waiting):
            np.testing.assert_array_equal(obs[row], info["final_obs"][row])
            assert np.flatnonzero(info["action_mask"][row]).tolist() == [TERMINAL_MASK_ACTION]
        live = ~waiting
        np.testing.assert_array_equal(env._games.state.current_player[live], env.seat[live])
    assert finished > 0
    with pytest.raises(ValueError, match="autoreset"):
        RummySingleAgentVectorEnv(2, autoreset="later")


# ----------------------------------------------------------------------------- info and masks
def assert_fixed_info(info: dict, players: int) -> None:
    """The info keys and types every single-game env gives at every step."""
    assert set(INFO_KEYS) <= set(info)
    for key in INFO_KEYS:
        value = info[key]
        if key in ("totals", "hand_scores"):
            assert value.dtype == np.int64 and value.shape == (players,), key
        else:
            assert type(value) is int, key


def test_aec_info_has_fixed_numeric_keys_at_every_step() -> None:
    env = rummy_env.env(preset="web", players=3, target=100, max_hands=2)
    env.reset(seed=6)
    rng = np.random.default_rng(6)
    for agent in env.possible_agents:
        assert_fixed_info(env.infos[agent], 3)
    for _ in env.agent_iter():
        obs, _, terminated, truncated, info = env.last()
        assert_fixed_info(info, 3)
        if terminated or truncated:
            assert info["winner"] == (info["game_winner"] if terminated else -1)
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


@pytest.mark.parametrize("episode", ["game", "hand"])
def test_aec_info_equals_a_fresh_one_at_every_step(episode: str) -> None:
    """The hand fields the AEC env keeps between hand ends equal ``game_info`` worked out
    afresh from the state at every step, over several hands and games."""
    from rummy_env.envs.info import game_info

    env = rummy_env.env(preset="standard", target=150, episode=episode)
    rng = np.random.default_rng(11)
    hands_seen = set()
    for game in range(3):
        env.reset(seed=game)
        for agent in env.agent_iter():
            raw = env.unwrapped
            fresh = game_info(raw._state, winner=raw._winner, length=raw._game_steps)
            info = env.infos[agent]
            assert list(info) == list(fresh)
            for key in fresh:
                np.testing.assert_array_equal(info[key], fresh[key], err_msg=key)
            hands_seen.add((game, info["hands"]))
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
            else:
                env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert len(hands_seen) > 3 if episode == "game" else len(hands_seen) == 3
    with pytest.raises(ValueError, match="read-only"):
        info["totals"][0] = 1  # shared between steps: not to be changed in place


@pytest.mark.parametrize("seed", range(4))
def test_hand_episode_info_names_the_hand_winner(seed: int) -> None:
    """With ``episode="hand"`` the winner is the seat the win reward pays, not the game's."""
    env = rummy_env.env(preset="web", episode="hand", reward="win")
    ends: dict = {}
    finals: dict = {}
    total = random_aec_game(env, seed=seed, ends=ends, finals=finals)
    info = finals["player_0"]
    paid = [seat for seat, agent in enumerate(env.possible_agents) if total[agent] == 1.0]
    assert [info["winner"]] == paid == [info["hand_winner"]]
    assert info["game_winner"] == -1
    scores = info["hand_scores"]
    assert scores[info["winner"]] == scores.max()


def test_gym_info_and_terminal_mask() -> None:
    env = gymnasium.make("Rummy500Hand-v1", preset="web", players=3)
    obs, info = env.reset(seed=1)
    assert_fixed_info(info, 3)
    rng = np.random.default_rng(1)
    done = False
    while not done:
        obs, reward, terminated, truncated, info = env.step(
            int(rng.choice(np.flatnonzero(info["action_mask"])))
        )
        assert_fixed_info(info, 3)
        done = terminated or truncated
    assert info["winner"] == info["hand_winner"] and (reward == 1.0) == (info["winner"] == 0)
    # A finished episode's mask: one meaningless entry, so a masked sampler still works.
    assert np.flatnonzero(info["action_mask"]).tolist() == [TERMINAL_MASK_ACTION]
    assert np.flatnonzero(env.unwrapped.action_masks()).tolist() == [TERMINAL_MASK_ACTION]


@pytest.mark.parametrize("vectorization_mode", ["sync", "async"])
def test_gymnasium_vector_wrappers_never_give_an_empty_mask(vectorization_mode: str) -> None:
    """Next-step autoreset returns the terminal step's mask: it must stay samplable."""
    envs = gymnasium.make_vec(
        "Rummy500Hand-v1",
        num_envs=2,
        vectorization_mode=vectorization_mode,
        preset="web",
        max_turns=4,
    )
    obs, info = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(60):
        masks = info["action_mask"].astype(bool)
        assert masks.any(axis=1).all()
        obs, reward, terminated, truncated, info = envs.step(sample_legal(masks, rng))
        episodes += int((terminated | truncated).sum())
    envs.close()
    assert episodes > 0


def test_action_masks_before_reset_is_a_clear_error() -> None:
    for env in (gymnasium.make("Rummy500-v1").unwrapped, RummySingleAgentVectorEnv(num_envs=2)):
        with pytest.raises(RuntimeError, match=r"action_masks: call reset\(\) first"):
            env.action_masks()


def test_vector_env_info_adds_hand_and_game_winners() -> None:
    env = RummyVectorEnv(Rules.preset_named("web"), num_envs=16, seed=0, episode="hand")
    obs, mask, _ = env.reset()
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(300):
        obs, mask, _, rewards, terminated, _, info = env.step(sample_legal(mask, rng))
        episode = info["episode"]
        assert {"game", "winner", "length", "hand_winner", "game_winner"} <= set(episode)
        won = terminated[episode["game"]]
        np.testing.assert_array_equal(episode["winner"][won], episode["hand_winner"][won])
        checked += int(won.sum())
    assert checked > 0


# ----------------------------------------------------------------------------- bad input
NOT_ACTION_IDS = [2.9, 0.7, "0", True, np.bool_(False), [1], np.array([1]), float("nan")]


@pytest.mark.parametrize("action", NOT_ACTION_IDS + [None])
def test_aec_refuses_what_is_not_an_action_id(action) -> None:
    env = rummy_env.raw_env()
    env.reset(seed=0)
    before = env._state.copy()
    match = "must act" if action is None else "is not an action id"
    with pytest.raises(ValueError, match=match) as error:
        env.step(action)
    assert "\n" not in str(error.value)
    np.testing.assert_array_equal(env._state.hand, before.hand)
    assert env.agent_selection == "player_0"
    wrapped = rummy_env.env()  # PettingZoo's bounds check may refuse it first
    wrapped.reset(seed=0)
    with pytest.raises((ValueError, AssertionError)):
        wrapped.step(action)


@pytest.mark.parametrize("action", NOT_ACTION_IDS + [None])
def test_gym_refuses_what_is_not_an_action_id(action) -> None:
    env = gymnasium.make("Rummy500-v1", illegal_action="raise").unwrapped
    env.reset(seed=0)
    with pytest.raises(ValueError, match="is not an action id: expected an integer$"):
        env.step(action)


@pytest.mark.parametrize("action", [np.int64(0), np.int8(0), np.array(0), np.uint16(0), 0.0])
def test_integer_like_actions_are_played(action) -> None:
    env = rummy_env.raw_env()
    env.reset(seed=0)
    env.step(action)  # draw
    assert env._state.stock_size[0] == 52 - 2 * 13 - 1 - 1
    gym_env = gymnasium.make("Rummy500-v1", illegal_action="raise").unwrapped
    gym_env.reset(seed=0)
    gym_env.step(action)


@pytest.mark.parametrize("shape", [(1, 4), (4, 1), (3,), (5,), ()])
def test_vector_envs_refuse_actions_of_the_wrong_shape(shape: tuple) -> None:
    self_play = RummyVectorEnv(num_envs=4)
    self_play.reset()
    single = RummySingleAgentVectorEnv(num_envs=4, illegal_action="raise")
    single.reset(seed=0)
    for env in (self_play, single):
        with pytest.raises(ValueError, match=r"expected shape \(4,\)"):
            env.step(np.zeros(shape, np.int64))
    for bad in (np.full(4, 0.5), np.array(["0"] * 4), np.zeros(4, bool)):
        with pytest.raises(ValueError, match="expected integer action ids"):
            self_play.step(bad)


@pytest.mark.parametrize("seed", ["x", 1.5, -1, True, [1], 2**63, 2**64])
def test_seeds_outside_the_one_range_are_refused(seed) -> None:
    makers = (
        rummy_env.env,
        lambda: gymnasium.make("Rummy500-v1").unwrapped,
        lambda: RummyVectorEnv(num_envs=2),
        lambda: RummySingleAgentVectorEnv(num_envs=2),
        rummy_env.parallel_env,
    )
    for make in makers:
        with pytest.raises(ValueError, match=r"expected an integer in 0\.\.2\*\*63-1"):
            make().reset(seed=seed)
    with pytest.raises(ValueError, match="expected an integer"):
        RummyVectorEnv(num_envs=2, seed=seed)


def test_a_vector_env_made_without_a_seed_draws_one() -> None:
    first, second = RummyVectorEnv(num_envs=2, seed=None), RummyVectorEnv(num_envs=2, seed=None)
    assert not np.array_equal(first.reset()[0], second.reset()[0])  # two fresh deals


def test_aec_step_after_every_agent_left_is_a_clear_error() -> None:
    env = rummy_env.raw_env(episode="hand", max_turns=3)
    random_aec_game(env, seed=0)
    assert not env.agents
    with pytest.raises(RuntimeError, match=r"every agent has left; call reset\(\)"):
        env.step(0)
    with pytest.raises(RuntimeError, match=r"call reset\(\)"):
        env.step(None)


@pytest.mark.parametrize("bad_id", [10_000, -1, 1])  # 1 ("end") is not legal before drawing
def test_gym_opponent_with_a_bad_id_is_named(bad_id: int) -> None:
    def stubborn(observation: np.ndarray, mask: np.ndarray) -> int:
        return bad_id

    env = gymnasium.make("Rummy500-v1", opponents=stubborn).unwrapped
    env.reset(seed=0)
    with pytest.raises(ValueError, match=f"by opponent 'stubborn' \\(id {bad_id}\\)"):
        for _ in range(50):  # the learner plays until the opponent must act
            env.step(int(np.flatnonzero(env.action_masks())[0]))


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
    gym = bench_gym(rules, seconds=0.2)
    # The opponent's moves are agent-steps too: more of them than the learner's.
    assert gym["agent_steps_per_s"] > gym["env_steps_per_s"] > 0


def test_a_gymnasium_env_pickles_and_copies_mid_game_as_an_independent_twin() -> None:
    """Multiprocessing vector envs pickle their envs; a deep copy must not share the
    opponents' generator with its original."""
    import copy
    import pickle

    env = gymnasium.make("Rummy500-v1").unwrapped
    _, info = env.reset(seed=3)
    for _ in range(6):
        _, _, _, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    move = int(np.flatnonzero(info["action_mask"])[0])
    for make_twin in (lambda e: pickle.loads(pickle.dumps(e)), copy.deepcopy):
        reference = pickle.loads(pickle.dumps(env))
        twin = make_twin(env)
        twins_move = twin.step(move)[0]  # the twin draws first ...
        mine = env.step(move)[0]  # ... and the original must not feel it
        assert np.array_equal(mine, reference.step(move)[0])
        assert np.array_equal(mine, twins_move)  # the twin plays the same game
        _, info = env.reset(seed=3)
        for _ in range(6):
            _, _, _, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))


def test_the_vector_and_aec_envs_pickle_mid_game() -> None:
    import pickle

    vec = RummyVectorEnv(num_envs=3, seed=1)
    _, mask, _ = vec.reset()
    rng = np.random.default_rng(0)
    vec.step(sample_legal(mask, rng))
    copy_of = pickle.loads(pickle.dumps(vec))
    actions = sample_legal(vec.mask, rng)
    assert np.array_equal(vec.step(actions)[0], copy_of.step(actions)[0])
    aec = rummy_env.env()
    aec.reset(seed=2)
    restored = pickle.loads(pickle.dumps(aec))
    assert restored.agent_selection == aec.agent_selection

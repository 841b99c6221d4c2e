"""The env an RLlib env runner steps (train/rllib_env.py): league blocks on the batched
engine, flat observations with the mask, next-step autoreset. Needs no ray."""

from __future__ import annotations

import numpy as np
import pytest

from rummy500.train.league import SELF, fixed_tables
from rummy500.train.rllib_env import LeagueVectorEnv
from rummy_env.core import Rules, sample_legal
from rummy_env.envs.options import TERMINAL_MASK_ACTION

pytestmark = pytest.mark.slow


def test_fixed_tables_split_the_games_by_share() -> None:
    assert fixed_tables(0.2, 1, 10).tolist() == [SELF] * 2 + [0] * 8
    assert fixed_tables(0.5, 2, 5).tolist() == [SELF] * 3 + [0, 1]
    assert fixed_tables(1.0, 3, 4).tolist() == [SELF] * 4  # no share left for the members
    assert fixed_tables(0.0, 3, 256).size == 256
    with pytest.raises(ValueError, match="fewer than the 2 sides"):
        fixed_tables(0.5, 1, 1)
    with pytest.raises(ValueError, match="self_play above 0"):
        fixed_tables(0.0, 0, 4)


class Recorder:
    """An agent that plays the first legal action and counts the decisions it was given."""

    name = "recorder"

    def __init__(self) -> None:
        self.decisions = 0

    def act(self, decision) -> np.ndarray:
        self.decisions += decision.size
        return decision.mask.argmax(axis=1)


def test_members_play_their_own_games_and_rows_carry_the_mask() -> None:
    rules = Rules(target=100)
    env = LeagueVectorEnv(6, rules, self_play=0.5, opponents=["random"], seed=4)
    recorder = Recorder()
    env.members[0].opponent = recorder  # the random block's games: rows 3..5
    obs, _ = env.reset(seed=4)
    width = env.observation_size
    assert obs.shape == (6, width + env.single_action_space.n)
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(400):
        mask = obs[:, width:] > 0.5
        assert mask.any(axis=1).all()  # finished rows offer TERMINAL_MASK_ACTION alone
        obs, reward, terminated, truncated, _ = env.step(sample_legal(mask, rng))
        done = terminated | truncated
        finished += int(done.sum())
        for row in np.flatnonzero(done):
            assert np.flatnonzero(obs[row, width:]).tolist() == [TERMINAL_MASK_ACTION]
    assert finished > 0
    assert recorder.decisions > 0
    assert env.moves > 400 * 6  # learners' and members' decisions


def test_the_self_member_plays_the_weights_it_is_given() -> None:
    import torch

    rules = Rules()
    env = LeagueVectorEnv(2, rules, self_play=1.0, opponents=[], hidden=(8,), seed=1)
    weights = {k: torch.zeros_like(v) for k, v in env._snapshot.state_dict().items()}
    env.set_snapshot(weights)
    assert all(float(w.abs().sum()) == 0 for w in env._snapshot.state_dict().values())

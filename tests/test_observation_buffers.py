"""Where the vector env writes observations: a new array at every step, or the caller's own
(``out=``); nothing a caller keeps is written again behind its back."""

import numpy as np
import pytest

from rummy_env.core import Rules, sample_legal
from rummy_env.envs.vector import RummyVectorEnv


def test_the_vector_env_never_overwrites_observations_a_trainer_keeps():
    env = RummyVectorEnv(Rules(), num_envs=16, seed=3)
    obs, mask, _ = env.reset()
    rng = np.random.default_rng(0)
    kept = [(obs, obs.copy())]
    for _ in range(12):
        obs, mask, *_ = env.step(sample_legal(mask, rng))
        kept.append((obs, obs.copy()))
    assert all(np.array_equal(a, copy) for a, copy in kept)
    assert len({id(a) for a, _ in kept}) == len(kept)


def test_out_receives_the_same_observations_the_env_would_return():
    mine, theirs = RummyVectorEnv(num_envs=8, seed=5), RummyVectorEnv(num_envs=8, seed=5)
    buffer = np.empty((8, mine.observation_size), np.float32)
    obs, mask, _ = mine.reset(out=buffer)
    assert obs is buffer and np.array_equal(obs, theirs.reset()[0])
    rng = np.random.default_rng(1)
    for _ in range(20):
        actions = sample_legal(mask, rng)
        obs, mask, *_ = mine.step(actions, out=buffer)
        assert obs is buffer and np.array_equal(buffer, theirs.step(actions)[0])


def test_a_compact_env_takes_no_out():
    env = RummyVectorEnv(num_envs=2, seed=1, compact=True)
    with pytest.raises(ValueError, match="compact"):
        env.reset(out=np.empty((2, env.observation_size), np.float32))

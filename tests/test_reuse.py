"""Reused output arrays: nothing a caller still holds is ever written again."""

import weakref

import numpy as np
import torch

from rummy_env.core import Rules, sample_legal
from rummy_env.envs.reuse import ArrayPool
from rummy_env.envs.vector import RummyVectorEnv


def test_a_held_array_is_never_handed_out_again():
    pool = ArrayPool((4, 3), np.float32)
    held = [pool.take() for _ in range(6)]
    assert len({id(a) for a in held}) == 6


def test_views_and_tensors_hold_their_array():
    pool = ArrayPool((4, 3), np.float32)
    a = pool.take()
    view, tensor = a[1:], torch.from_numpy(a)
    a_id = id(a)
    del a
    assert id(pool.take()) != a_id  # the view holds it
    del view
    assert id(pool.take()) != a_id  # the tensor holds it
    del tensor
    assert id(pool.take()) == a_id  # nobody does: taken again


def test_the_vector_env_never_overwrites_observations_a_trainer_keeps():
    env = RummyVectorEnv(Rules(), num_envs=16, seed=3)
    obs, mask, _ = env.reset()
    rng = np.random.default_rng(0)
    kept = [(obs, obs.copy())]
    for _ in range(12):
        obs, mask, *_ = env.step(sample_legal(mask, rng))
        kept.append((obs, obs.copy()))
    assert all(np.array_equal(a, copy) for a, copy in kept)


def test_the_vector_env_reuses_observations_a_trainer_drops():
    env = RummyVectorEnv(Rules(), num_envs=16, seed=3)
    obs, mask, _ = env.reset()
    first = weakref.ref(obs)  # alive later only if the env kept it to write again
    rng = np.random.default_rng(0)
    again = False
    for _ in range(6):
        obs, mask, *_ = env.step(sample_legal(mask, rng))
        again |= obs is first()
    assert again

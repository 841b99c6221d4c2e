"""Compact observations widen to the float32 observations, bit for bit, in numpy and torch.

The trainer takes the batched env's observations compact (uint8 codes and float32
numbers), stores them so and widens them in torch; a network sees the same bits as
from ``observe`` only if every widening step rounds as the float encoder does. Each
preset, at 2 and 4 players, runs a compact env beside a float32 one on the same
seed and actions, and every step's observations, masks and seats must agree.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from rummy500.agents.torch_policy import TorchAgent, build_policy
from rummy500.agents.widen import observation_tensor
from rummy_env.core import CompactObservation, Rules, sample_legal
from rummy_env.envs.vector import RummyVectorEnv

PRESETS = sorted(p.stem for p in (Path(__file__).parents[1] / "configs" / "rules").glob("*.yaml"))
STEPS = 150


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("preset", PRESETS)
def test_compact_env_widens_to_the_float_env(preset: str, players: int) -> None:
    rules = Rules.preset_named(preset).replace(players=players)
    wide = RummyVectorEnv(rules, num_envs=48, seed=5)
    compact = RummyVectorEnv(rules, num_envs=48, seed=5, compact=True)
    rng = np.random.default_rng(1)
    want, mask, seat = wide.reset()
    got, got_mask, got_seat = compact.reset()
    for _ in range(STEPS):
        assert isinstance(got, CompactObservation)
        assert got.codes.dtype == np.uint8 and got.numbers.dtype == np.float32
        assert same_bits(got.widen(rules), want)
        assert same_bits(observation_tensor(rules, got).numpy(), want)
        assert same_bits(got_mask, mask) and same_bits(got_seat, seat)
        actions = sample_legal(mask, rng)
        want, mask, seat, rewards, *_, info = wide.step(actions)
        got, got_mask, got_seat, got_rewards, *_, got_info = compact.step(actions)
        assert same_bits(got_rewards, rewards)
        assert same_bits(got_info["final_obs"], info["final_obs"])


def test_compact_observations_are_a_quarter_of_the_bytes() -> None:
    rules = Rules()
    obs, *_ = RummyVectorEnv(rules, num_envs=64, seed=0, compact=True).reset()
    wide, *_ = RummyVectorEnv(rules, num_envs=64, seed=0).reset()
    assert obs.codes.nbytes + obs.numbers.nbytes < wide.nbytes / 3


def test_a_network_plays_the_same_from_compact_observations() -> None:
    rules = Rules()
    torch.manual_seed(0)
    env_size = RummyVectorEnv(rules, num_envs=1)
    policy = build_policy(
        "mlp", rules, env_size.observation_size, env_size.num_actions, hidden=[32]
    )
    agent = TorchAgent(policy, rules, seed=3)
    compact = RummyVectorEnv(rules, num_envs=32, seed=2, compact=True)
    wide = RummyVectorEnv(rules, num_envs=32, seed=2)
    obs, *_ = compact.reset()
    wide_obs, *_ = wide.reset()
    rows = np.arange(0, 32, 3)
    from_compact = agent.probabilities(compact.decision(rows, obs.take(rows)))
    from_float = agent.probabilities(wide.decision(rows, wide_obs[rows]))
    assert same_bits(from_compact, from_float)


def test_widen_refuses_a_buffer_of_another_shape() -> None:
    rules = Rules()
    obs, *_ = RummyVectorEnv(rules, num_envs=4, seed=0, compact=True).reset()
    with pytest.raises(ValueError, match="C-contiguous float32"):
        obs.widen(rules, out=np.empty((3, obs.codes.shape[1]), np.float32))


def test_compact_must_be_a_bool() -> None:
    with pytest.raises(ValueError, match="compact='yes' must be True or False"):
        RummyVectorEnv(Rules(), num_envs=2, compact="yes")


def test_bench_measures_the_compact_env(capsys: pytest.CaptureFixture) -> None:
    from rummy500.commands.speed import main

    assert (
        main(["--what", "vector", "--compact", "--batch", "16", "--seconds", "0.2", "--json"]) == 0
    )
    line = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert line["observations"] == "compact" and line["agent_steps_per_s"] > 0

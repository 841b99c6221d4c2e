"""The oracle critic (train/oracle_critic.py): it sees the hidden cards, the policy never
does, and a run trained with it plays through the agent protocol like any other."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from rummy500.agents.registry import make_agent
from rummy500.agents.torch_policy import MLPPolicy
from rummy500.eval.agent_speed import midgame_states
from rummy500.eval.arena import play_match
from rummy500.train.config import load_config
from rummy500.train.oracle_critic import OracleCritic, hidden_cards, hidden_size
from rummy500.train.ppo import train
from rummy_env.core import N_CARD_IDS, Rules, observation_size, observe
from tests.test_agents import redeal_hidden

pytestmark = pytest.mark.slow


def test_hidden_cards_lay_out_every_hand_and_the_stock_from_the_seat() -> None:
    rules = Rules(players=3)
    state = midgame_states(rules, 16, seed=4, players=("random", "casual"))
    rows = np.arange(16)
    seats = state.current_player.astype(np.int64)
    view = hidden_cards(rules, state, seats, rows)
    assert view.shape == (16, hidden_size(rules)) and view.dtype == np.uint8
    k = N_CARD_IDS
    for g in range(16):
        me = seats[g]
        for j in range(3):  # the acting seat first, then in playing order
            np.testing.assert_array_equal(view[g, j * k : (j + 1) * k], state.hand[g, (me + j) % 3])
        size = int(state.stock_size[g])
        stock = np.bincount(state.stock[g, :size], minlength=k)
        np.testing.assert_array_equal(view[g, 3 * k : 4 * k], stock)
        assert np.flatnonzero(view[g, 4 * k :]).tolist() == [state.stock[g, size - 1]]


def test_the_critic_sees_what_the_seat_cannot_and_the_policy_does_not() -> None:
    """Redealt hidden cards leave the policy's input (the seat's observation) identical
    and change the critic's."""
    rules = Rules()
    state = midgame_states(rules, 64, seed=11, players=("random", "casual"))
    other = redeal_hidden(rules, state, np.random.default_rng(5))
    seats, rows = state.current_player.astype(np.int64), np.arange(64)
    np.testing.assert_array_equal(observe(rules, state, seats), observe(rules, other, seats))
    mine, theirs = (hidden_cards(rules, s, seats, rows) for s in (state, other))
    assert not np.array_equal(mine, theirs)
    critic = OracleCritic(observe(rules, state, seats).shape[1], hidden_size(rules))
    obs = torch.as_tensor(observe(rules, state, seats))
    with torch.no_grad():
        assert not torch.equal(
            critic(obs, torch.as_tensor(mine)), critic(obs, torch.as_tensor(theirs))
        )


def tiny_run(knob: str, total_steps: int, run_dir: Path) -> list[str]:
    """Overrides of the quickstart for a run of a few seconds with ``knob`` set: small
    batches, a small network, games to 100, no evaluation."""
    return [
        knob,
        f"total_steps={total_steps}",
        "num_envs=16",
        "num_steps=64",
        "eval_every=0",
        "snapshot_every=0",
        "torch_threads=1",
        "progress=false",
        "rules.target=100",
        f"run_dir={run_dir}",
        "arch_kwargs={hidden: [32]}",
    ]


def test_a_run_with_the_oracle_critic_plays_and_resumes_without_hidden_input(
    tmp_path: Path,
) -> None:
    cfg = load_config("quickstart", tiny_run("critic=oracle", 4096, tmp_path))
    result = train(cfg)
    payload = torch.load(result.run_dir / "last.pt", weights_only=False)
    assert payload["extra"]["critic"] is not None
    rules = cfg.game_rules
    # The policy saved for play is the plain network on the seat's observation alone.
    plain = MLPPolicy(
        observation_size(rules), payload["state_dict"]["actor.weight"].shape[0], (32,)
    )
    plain.load_state_dict(payload["state_dict"])
    agent = make_agent(f"ckpt:{result.run_dir / 'last.pt'}", rules)
    match = play_match(rules, [agent, make_agent("random", rules)], games=2, progress=False)
    assert match.n_games == 2
    more = load_config("quickstart", tiny_run("critic=oracle", 6144, tmp_path))
    resumed = train(more, resume=result.run_dir)
    assert resumed.global_step > result.global_step

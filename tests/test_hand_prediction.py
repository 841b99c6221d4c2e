"""The auxiliary hand prediction (train/hand_prediction.py): its target is what the other
seats hold, it teaches the trunk something the seat's observation supports, and a run
trained with it saves, plays and resumes like any other."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from torch.nn import functional

from rummy500.agents.registry import make_agent
from rummy500.agents.torch_policy import MLPPolicy
from rummy500.eval.agent_speed import midgame_states
from rummy500.eval.arena import play_match
from rummy500.train.config import load_config
from rummy500.train.hand_prediction import HandPredictor, held_by_others
from rummy500.train.oracle_critic import hidden_cards
from rummy500.train.ppo import start_run, train
from rummy_env.core import Rules, observe
from tests.test_oracle_critic import tiny_run

pytestmark = pytest.mark.slow


def test_the_target_is_every_card_another_seat_holds() -> None:
    rules = Rules(players=3)
    state = midgame_states(rules, 32, seed=3, players=("random", "casual"))
    seats, rows = state.current_player.astype(np.int64), np.arange(32)
    target = held_by_others(rules, torch.as_tensor(hidden_cards(rules, state, seats, rows)))
    for g in range(32):
        others = [s for s in range(3) if s != seats[g]]
        held = state.hand[g, others].sum(axis=0) > 0
        np.testing.assert_array_equal(target[g].numpy(), held.astype(np.float32))


def test_the_trunk_learns_to_predict_the_hands_better_than_the_card_frequencies() -> None:
    """Trained on positions of seeded games, the trunk and head predict held-out positions'
    hidden hands with a lower loss than the best guess that ignores the observation (each
    card's frequency in the training positions). Much of a hidden hand cannot be known, so
    the margin is modest: a tenth (the seat's unseen cards alone, at their mean rate, gain
    about 8%)."""
    rules = Rules()
    torch.manual_seed(0)
    batches = []
    for seed, n in ((21, 4096), (22, 1024)):
        state = midgame_states(rules, n, seed=seed, players=("casual", "sharp"))
        seats, rows = state.current_player.astype(np.int64), np.arange(n)
        batches.append(
            (
                torch.as_tensor(observe(rules, state, seats)),
                torch.as_tensor(hidden_cards(rules, state, seats, rows)),
            )
        )
    (obs, deal), (test_obs, test_deal) = batches
    policy = MLPPolicy(obs.shape[1], 8, (64,))
    hands = HandPredictor(policy.trunk_out)
    optimizer = torch.optim.Adam([*policy.parameters(), *hands.parameters()], lr=3e-3)
    for _ in range(200):
        optimizer.zero_grad()
        hands.loss(rules, policy.features(obs), deal).backward()
        optimizer.step()
    frequency = held_by_others(rules, deal).mean(dim=0).clamp(1e-4, 1 - 1e-4)
    test_target = held_by_others(rules, test_deal)
    blind = functional.binary_cross_entropy(frequency.expand_as(test_target), test_target)
    with torch.no_grad():
        learned = hands.loss(rules, policy.features(test_obs), test_deal)
    assert learned < 0.9 * blind, (float(learned), float(blind))


def test_a_run_with_the_hand_target_logs_it_saves_a_plain_policy_and_resumes(
    tmp_path: Path,
) -> None:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    cfg = load_config("quickstart", tiny_run("hand_coef=0.5", 4096, tmp_path))
    result = train(cfg)
    payload = torch.load(result.run_dir / "last.pt", weights_only=False)
    saved_head = payload["extra"]["hands"]
    assert saved_head is not None
    assert not any(k.startswith("hands") for k in payload["state_dict"])
    agent = make_agent(f"ckpt:{result.run_dir / 'last.pt'}", cfg.game_rules)
    match = play_match(cfg.game_rules, [agent, make_agent("random", cfg.game_rules)], games=2)
    assert match.n_games == 2
    events = EventAccumulator(str(result.run_dir))
    events.Reload()
    losses = [e.value for e in events.Scalars("losses/hand_loss")]
    assert losses and all(0.0 < v < 1.0 for v in losses)
    more = load_config("quickstart", tiny_run("hand_coef=0.5", 6144, tmp_path))
    run = start_run(more, resume=result.run_dir)
    try:
        assert run.hands is not None
        assert torch.equal(run.hands.head.weight, saved_head["head.weight"])
    finally:
        run.lock.close()
    resumed = train(more, resume=result.run_dir)
    assert resumed.global_step > result.global_step

"""Kickstarting (train/kickstart.py): the teacher's weight decays as configured, a run
with a teacher fits its policy toward the teacher's choices on its own decisions, and
the saved policy plays and resumes like any other."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from rummy500.agents.registry import make_agent
from rummy500.agents.torch_policy import TorchAgent
from rummy500.eval.agent_speed import midgame_states
from rummy500.train.config import ConfigError, load_config
from rummy500.train.kickstart import teacher_weight
from rummy500.train.ppo import start_run, train
from rummy_env.core import Decision, Rules, legal_mask, observe, player_view
from tests.test_oracle_critic import tiny_run

pytestmark = pytest.mark.slow


def test_the_weight_falls_linearly_from_its_start_to_zero_at_the_share_given() -> None:
    assert teacher_weight(2.0, 0.5, 0, 1000) == 2.0
    assert teacher_weight(2.0, 0.5, 250, 1000) == 1.0
    assert teacher_weight(2.0, 0.5, 500, 1000) == 0.0
    assert teacher_weight(2.0, 0.5, 900, 1000) == 0.0
    assert teacher_weight(2.0, 0.0, 0, 1000) == 0.0


@pytest.mark.parametrize(
    ("knob", "reason"),
    [
        ("teacher=nobody", "config: teacher: unknown agent 'nobody'"),
        ("teacher=oracle", "config: teacher: oracle: sees hidden cards"),
        ("teacher_until=1.5", "config: teacher_until=1.5 is not allowed"),
        ("teacher_coef=-1", "config: teacher_coef=-1.0 is not allowed"),
    ],
)
def test_a_bad_teacher_is_refused_in_one_line_before_any_work(knob: str, reason: str) -> None:
    with pytest.raises(ConfigError) as refused:
        load_config("quickstart", [knob])
    assert str(refused.value).startswith(reason)
    assert "\n" not in str(refused.value)


def agreement_with_sharp(checkpoint: Path, rules: Rules) -> float:
    """Share of 512 held-out positions where the checkpoint's greedy choice is Sharp's."""
    state = midgame_states(rules, 512, seed=77, players=("casual", "sharp"))
    seats = state.current_player.astype(np.int64)
    decision = Decision(
        rules, legal_mask(rules, state), player_view(rules, state, seats), observe(rules, state)
    )
    learner = make_agent(f"ckpt:{checkpoint}", rules)
    assert isinstance(learner, TorchAgent)
    return float(np.mean(learner.act(decision) == make_agent("sharp", rules).act(decision)))


def test_a_teacher_pulls_the_policy_toward_its_choices_and_the_run_resumes(
    tmp_path: Path,
) -> None:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    taught = ["teacher=sharp", "teacher_coef=5", "teacher_until=1", "ent_coef=0"]
    plain = load_config("quickstart", tiny_run("ent_coef=0", 8192, tmp_path / "plain"))
    cfg = load_config("quickstart", [*tiny_run(taught[0], 8192, tmp_path / "taught"), *taught])
    without, with_teacher = train(plain), train(cfg)
    rules = cfg.game_rules
    alone = agreement_with_sharp(without.run_dir / "last.pt", rules)
    kickstarted = agreement_with_sharp(with_teacher.run_dir / "last.pt", rules)
    assert kickstarted > alone + 0.1, (kickstarted, alone)

    payload = torch.load(with_teacher.run_dir / "last.pt", weights_only=False)
    assert set(payload["state_dict"]) == set(
        torch.load(without.run_dir / "last.pt", weights_only=False)["state_dict"]
    )
    events = EventAccumulator(str(with_teacher.run_dir))
    events.Reload()
    losses = [e.value for e in events.Scalars("losses/teacher_loss")]
    assert len(losses) >= 3 and losses[-1] < losses[0], losses

    more = load_config("quickstart", [*tiny_run(taught[0], 12288, tmp_path / "taught"), *taught])
    run = start_run(more, resume=with_teacher.run_dir)
    try:
        assert run.teacher is not None and 0 < run.teacher_weight < 5
    finally:
        run.lock.close()
    resumed = train(more, resume=with_teacher.run_dir)
    assert resumed.global_step > with_teacher.global_step

"""Ray RLlib backend: a short local run (only where the ``rllib`` extra is installed)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="the rllib extra is not installed")

from rummy500.agents.registry import make_agent  # noqa: E402
from rummy500.eval.arena import play_match  # noqa: E402
from rummy500.train.rllib_backend import load_rllib_config, rllib_env, train_rllib  # noqa: E402
from rummy_env.core import Rules


def test_rllib_trains_masked_and_exports_a_playable_checkpoint(tmp_path: Path) -> None:
    rules = {"preset": "standard", "target": 100}
    cfg = load_rllib_config(None, {
        "iterations": 2, "train_batch_size": 512, "minibatch_size": 128, "num_epochs": 1,
        "num_env_runners": 0, "num_envs_per_env_runner": 2, "eval_every": 2,
        "eval_games": 2, "eval_opponents": ["random"], "run_dir": str(tmp_path),
        "rules": rules, "snapshot_share": 0.5, "snapshot_every": 1})
    # The env raises on any illegal action, so finishing the run means the masked
    # module never sampled one.
    out = train_rllib(cfg)
    assert out["global_step"] >= 1024
    run = out["run_dir"]
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(run))
    events.Reload()
    assert {"charts/SPS", "eval/vs_random/win_rate"} <= set(events.Tags()["scalars"])

    game_rules = Rules.from_dict(rules)
    agent = make_agent(f"ckpt:{out['checkpoint']}", game_rules)
    result = play_match(game_rules, [agent, make_agent("random", game_rules)], games=4,
                        progress=False)
    assert result.n_games == 4 and (result.winner >= 0).all()


def test_the_wrapped_env_offers_masks_as_rllib_expects() -> None:
    env = rllib_env({"rules": Rules(), "reward": "win", "episode": "hand"})
    obs, _ = env.reset(seed=3)
    (agent, first), = obs.items()
    assert set(first) == {"observations", "action_mask"}
    assert first["action_mask"].dtype == np.float32 and first["action_mask"].sum() >= 1

"""Training on Ray RLlib: the project's PettingZoo env through RLlib's own wrapper.

    pip install -e ".[rllib]"
    rummy500 train --backend rllib --config configs/train/rllib_selfplay.yaml

RLlib's ``PettingZooEnv`` wraps the AEC env (``rummy_env.raw_env``); a thin
PettingZoo wrapper renames the observation keys to the ones RLlib's action
masking convention reads (``observations``, ``action_mask``). ``RummyRLModule``
holds the project's own ``MLPPolicy``, so its weights export 1:1 into a project
checkpoint that ``rummy500 eval`` plays as ``ckpt:PATH``; illegal actions get
the minimum logit, so they are never sampled. One shared ``learner`` policy
plays every seat (self-play); with ``snapshot_share > 0`` the policy mapping
sends that share of seats to a frozen ``snapshot`` policy, refreshed from the
learner every ``snapshot_every`` iterations. Heuristic opponents are evaluated
with the project's arena and logged under the same ``eval/vs_*`` names as the
built-in trainer. Env runners and learners come from the config.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from rummy_env.core import Rules
from rummy_env.envs.options import REWARDS

from .config import (
    AT_LEAST_0,
    AT_LEAST_1,
    POSITIVE,
    SHARE,
    check_agent_names,
    check_rules,
    load_config,
)
from .config_checks import Range, check_fields
from .run_folder import create_run_dir, save_checkpoint

RLLIB_RANGES: dict[str, Range] = {
    "seed": AT_LEAST_0, "iterations": AT_LEAST_1, "num_env_runners": AT_LEAST_0,
    "num_envs_per_env_runner": AT_LEAST_1, "num_learners": AT_LEAST_0,
    "num_gpus_per_learner": AT_LEAST_0, "train_batch_size": AT_LEAST_1,
    "minibatch_size": AT_LEAST_1, "num_epochs": AT_LEAST_1, "lr": POSITIVE, "gamma": SHARE,
    "entropy_coeff": AT_LEAST_0, "snapshot_share": SHARE, "snapshot_every": AT_LEAST_1,
    "eval_every": AT_LEAST_0, "eval_games": AT_LEAST_1, "hidden": AT_LEAST_1,
}
"""Allowed range of each numeric ``RLlibConfig`` field."""


@dataclass
class RLlibConfig:
    """Settings of an RLlib run, loaded like ``TrainConfig`` (YAML plus key=value)."""

    exp_name: str = "rllib_selfplay"
    """Name of the experiment; runs are named ``rummy500__{exp_name}__{seed}__{time}``."""
    seed: int = 1
    """Seeds RLlib, the deals and the evaluation."""
    rules: dict[str, Any] = field(default_factory=lambda: {"preset": "standard", "players": 2})
    """Rules of the games (a preset and/or flags, as in configs/rules)."""
    reward: str = "points_diff"
    """Reward per seat: ``points_diff``, ``points`` or ``win`` (rummy_env/envs/episode.py)."""
    iterations: int = 50
    """RLlib training iterations (``algo.train()`` calls)."""
    hidden: list[int] = field(default_factory=lambda: [256, 128])
    """Hidden layer sizes of the masked MLP (the project's ``mlp`` network)."""
    num_env_runners: int = 1
    """RLlib env-runner processes collecting games."""
    num_envs_per_env_runner: int = 4
    """PettingZoo envs each env runner steps."""
    num_learners: int = 0
    """Learner processes (0: learn in the driver)."""
    num_gpus_per_learner: float = 0.0
    """GPUs each learner uses."""
    train_batch_size: int = 4000
    """Env steps per training iteration."""
    minibatch_size: int = 1000
    """Samples per SGD minibatch."""
    num_epochs: int = 2
    """Passes over each training batch."""
    lr: float = 3e-4
    """Adam step size."""
    gamma: float = 0.995
    """Discount per step."""
    entropy_coeff: float = 0.01
    """Weight of the entropy bonus."""
    snapshot_share: float = 0.0
    """Share of seats the frozen snapshot plays (0: pure self-play)."""
    snapshot_every: int = 10
    """Copy the learner into the frozen snapshot policy every this many iterations."""
    eval_every: int = 10
    """Evaluate through the arena every this many iterations (0: never)."""
    eval_games: int = 100
    """Games against each evaluation opponent."""
    eval_opponents: list[str] = field(default_factory=lambda: ["random", "casual", "sharp"])
    """Agents the learner is evaluated against (agents/registry.py names)."""
    run_dir: str = "runs"
    """Folder of the runs (TensorBoard events and checkpoints)."""
    address: str = ""
    """Ray cluster address (``ray start --head`` prints it); empty: a local Ray."""

    def __post_init__(self) -> None:
        check_fields(self, RLLIB_RANGES, {"reward": tuple(REWARDS)})
        check_rules(self.rules)
        check_agent_names(self.eval_opponents)

    @property
    def game_rules(self) -> Rules:
        """The ``rules`` mapping as a validated ``Rules``."""
        return Rules.from_dict(self.rules)


def load_rllib_config(path: str | Path | None,
                      overrides: list[str] | dict[str, Any] | None = None) -> RLlibConfig:
    """An ``RLlibConfig`` read like the built-in trainer's
    (``rummy500.train.config.load_config``)."""
    return load_config(path, overrides, cls=RLlibConfig)


def rllib_env(env_config: dict[str, Any]):
    """RLlib's PettingZoo wrapper around the project's AEC env (observation keys renamed)."""
    import gymnasium as gym
    from pettingzoo.utils import BaseWrapper
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    from rummy_env.envs.aec import raw_env

    class MaskKeys(BaseWrapper):
        """``{"observation", "action_mask"}`` -> ``{"observations", "action_mask"}`` (float)."""

        def observation_space(self, agent):
            inner = self.env.observation_space(agent)
            n = inner["action_mask"].shape[0]
            return gym.spaces.Dict({
                "observations": inner["observation"],
                "action_mask": gym.spaces.Box(0.0, 1.0, (n,), np.float32),
            })

        def observe(self, agent):
            obs = self.env.observe(agent)
            return {"observations": obs["observation"],
                    "action_mask": obs["action_mask"].astype(np.float32)}

    return PettingZooEnv(MaskKeys(raw_env(**env_config)))


def rummy_rl_module_class():
    """The RLModule class (built lazily: ray is an optional extra)."""
    import torch
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
    from ray.rllib.core.rl_module.torch import TorchRLModule

    from rummy500.agents.torch_policy import MLPPolicy

    class RummyRLModule(TorchRLModule, ValueFunctionAPI):
        """The project's MLPPolicy inside RLlib, with the env's action mask on its logits."""

        def setup(self):
            obs_space = self.observation_space["observations"]
            self.net = MLPPolicy(int(obs_space.shape[0]), int(self.action_space.n),
                                 tuple(self.model_config.get("hidden", (256, 128))))

        def _logits(self, batch):
            obs = batch[Columns.OBS]
            hidden = self.net.features(obs["observations"])
            logits = self.net.actor(hidden)
            legal = obs["action_mask"] > 0.5
            return logits.masked_fill(~legal, torch.finfo(logits.dtype).min), hidden

        def _forward(self, batch, **kwargs):
            logits, _ = self._logits(batch)
            return {Columns.ACTION_DIST_INPUTS: logits}

        def _forward_train(self, batch, **kwargs):
            logits, hidden = self._logits(batch)
            return {Columns.ACTION_DIST_INPUTS: logits, Columns.EMBEDDINGS: hidden}

        def compute_values(self, batch, embeddings=None):
            if embeddings is None:
                embeddings = self.net.features(batch[Columns.OBS]["observations"])
            return self.net.critic(embeddings).squeeze(-1)

    return RummyRLModule


def build_algorithm(cfg: RLlibConfig):
    """The RLlib PPO algorithm for ``cfg`` (ray must be initialised)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    register_env("rummy500", rllib_env)
    module = rummy_rl_module_class()
    env_config = {"rules": cfg.game_rules, "reward": cfg.reward, "episode": "game"}
    share = cfg.snapshot_share

    players = cfg.game_rules.players

    def policy_mapping(agent_id, episode, **kwargs):
        """Every episode keeps one learner seat; each other seat is the snapshot with
        probability ``snapshot_share`` (decided per episode and seat)."""
        if share <= 0:
            return "learner"
        episode_key = hash(getattr(episode, "id_", id(episode)))
        seat = int(str(agent_id).rsplit("_", 1)[-1])
        if seat == episode_key % players:
            return "learner"
        return "snapshot" if hash((episode_key, seat)) % 1000 < 1000 * share else "learner"

    specs = {name: RLModuleSpec(module_class=module, model_config={"hidden": cfg.hidden})
             for name in ("learner", "snapshot")}
    config = (
        PPOConfig()
        .environment("rummy500", env_config=env_config, disable_env_checking=True)
        .framework("torch")
        .multi_agent(policies={"learner", "snapshot"}, policy_mapping_fn=policy_mapping,
                     policies_to_train=["learner"])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .env_runners(num_env_runners=cfg.num_env_runners,
                     num_envs_per_env_runner=cfg.num_envs_per_env_runner)
        .learners(num_learners=cfg.num_learners, num_gpus_per_learner=cfg.num_gpus_per_learner)
        .training(train_batch_size_per_learner=cfg.train_batch_size,
                  minibatch_size=cfg.minibatch_size, num_epochs=cfg.num_epochs, lr=cfg.lr,
                  gamma=cfg.gamma, entropy_coeff=cfg.entropy_coeff)
        .debugging(seed=cfg.seed)
    )
    return config.build_algo()


def export_checkpoint(algo, cfg: RLlibConfig, path: Path, global_step: int) -> Path:
    """The learner's weights as a project checkpoint (``ckpt:PATH`` in ``rummy500 eval``)."""
    net = algo.get_module("learner").net
    return save_checkpoint(path, net, arch="mlp", arch_kwargs={"hidden": list(cfg.hidden)},
                           rules=cfg.game_rules, config={"backend": "rllib", **vars(cfg)},
                           global_step=global_step)


def train_rllib(cfg: RLlibConfig) -> dict[str, Any]:
    """Run ``cfg.iterations`` RLlib iterations; TensorBoard scalars and checkpoints like the
    built-in trainer. Returns a summary."""
    import ray
    from torch.utils.tensorboard import SummaryWriter

    from .evaluation import evaluate

    rules = cfg.game_rules
    run_dir = create_run_dir(cfg.run_dir, cfg.exp_name, cfg.seed)
    ray.init(address=cfg.address or None, ignore_reinit_error=True, include_dashboard=False,
             log_to_driver=False)
    writer = SummaryWriter(str(run_dir))
    algo = build_algorithm(cfg)
    global_step, start, last_eval = 0, time.time(), {}
    try:
        for it in range(1, cfg.iterations + 1):
            result = algo.train()
            steps = result.get("num_env_steps_sampled_lifetime")
            if steps is None:
                steps = result.get("env_runners", {}).get("num_env_steps_sampled_lifetime", 0)
            global_step = int(steps)
            sps = global_step / max(1e-9, time.time() - start)
            writer.add_scalar("charts/SPS", sps, global_step)
            ret = result.get("env_runners", {}).get("episode_return_mean")
            if ret is not None and np.isfinite(ret):
                writer.add_scalar("charts/episodic_return", float(ret), global_step)
            learner = result.get("learners", {}).get("learner", {})
            for ours, theirs in (("policy_loss", "policy_loss"), ("value_loss", "vf_loss"),
                                 ("entropy", "entropy"), ("approx_kl", "mean_kl_loss")):
                if theirs in learner:
                    writer.add_scalar(f"losses/{ours}", float(learner[theirs]), global_step)
            if cfg.snapshot_share > 0 and it % cfg.snapshot_every == 0:
                weights = algo.get_module("learner").get_state()
                algo.env_runner_group.foreach_env_runner(
                    lambda runner, w=weights: runner.module["snapshot"].set_state(w),
                    local_env_runner=True)
            if cfg.eval_every and (it % cfg.eval_every == 0 or it == cfg.iterations):
                net = algo.get_module("learner").net
                last_eval = evaluate(rules, net, cfg.eval_opponents, cfg.eval_games,
                                     seed=cfg.seed + it)
                for name, stats in last_eval.items():
                    writer.add_scalar(f"eval/vs_{name}/win_rate", stats["win_rate"], global_step)
                    writer.add_scalar(f"eval/vs_{name}/points_per_hand",
                                      stats["points_per_hand"], global_step)
        path = export_checkpoint(algo, cfg, run_dir / "last.pt", global_step)
    finally:
        writer.close()
        algo.stop()
    return {"run_dir": run_dir, "checkpoint": path, "global_step": global_step,
            "steps_per_second": global_step / max(1e-9, time.time() - start),
            "last_eval": last_eval}

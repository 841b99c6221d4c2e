"""Training on Ray RLlib, its env runners stepping the batched engine.

    pip install -e ".[rllib]"
    rummy500 train --backend rllib --config rllib_selfplay

The config (``RLlibConfig``, train/config.py) speaks the built-in trainer's
names. Each env runner holds ``num_envs`` games in one ``LeagueVectorEnv``
(train/rllib_env.py): the learner's seat in every game, the league's members
playing the others inside the env, batched, as the built-in trainer seats its
games. In a share ``self_play`` of them the learner meets a frozen copy of
itself, refreshed every ``snapshot_every`` iterations. ``RummyRLModule`` holds
the project's own ``MLPPolicy``, so its weights export 1:1 into a project
checkpoint that ``rummy500 eval`` plays as ``ckpt:PATH``; illegal actions get
the minimum logit, so they are never sampled. Heuristic opponents are evaluated
with the project's arena and logged under the same ``eval/vs_*`` names as the
built-in trainer, and ``time/*`` splits each iteration into sampling, learning
and the weights' transfer. RLlib's own checkpoint (``rllib_NNNNNN/`` in the run
folder, written at every evaluation and at the end) lets ``--resume RUN``
continue a run.
"""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from rummy_env.core import Rules, observation_size

from .config import RLlibConfig, load_config
from .config_checks import ConfigError
from .rllib_env import LeagueVectorEnv
from .run_folder import create_run_dir, save_checkpoint

CONFIG_FILE = "rllib_config.json"
"""The run's config, in its folder, for ``--resume``."""
PROGRESS_FILE = "rllib_progress.json"
"""The last iteration saved and the folder of its RLlib checkpoint (``rllib_NNNNNN/``)."""


def load_rllib_config(
    path: str | Path | None, overrides: list[str] | dict[str, Any] | None = None
) -> RLlibConfig:
    """An ``RLlibConfig`` read like the built-in trainer's
    (``rummy500.train.config.load_config``)."""
    return load_config(path, overrides, cls=RLlibConfig)


def resumed_rllib_config(
    run_dir: str | Path, overrides: list[str] | dict[str, Any] | None = None
) -> RLlibConfig:
    """The config a run was started with, changed by ``overrides`` (``iterations=``,
    ``max_minutes=``...); a one-line ConfigError when the folder holds no RLlib checkpoint."""
    run = Path(run_dir)
    missing = [name for name in (CONFIG_FILE, PROGRESS_FILE) if not (run / name).is_file()]
    if missing:
        raise ConfigError(
            f"--resume {run_dir}: no RLlib checkpoint there (missing "
            f"{', '.join(missing)}); an RLlib run writes it at its first "
            "evaluation"
        )
    resume_point(run)
    saved = json.loads((run / CONFIG_FILE).read_text())
    return load_config(None, overrides, base=saved, cls=RLlibConfig)


def resume_point(run: Path) -> tuple[int, Path]:
    """(last iteration saved, its RLlib checkpoint folder) of a run, as its progress file
    names them; a one-line ConfigError, before Ray starts, when the file is damaged or the
    folder it names is gone."""
    try:
        progress = json.loads((run / PROGRESS_FILE).read_text())
        iteration, folder = int(progress["iteration"]), run / str(progress["checkpoint"])
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ConfigError(f"--resume {run}: {PROGRESS_FILE} is damaged ({e})") from None
    if not folder.is_dir():
        raise ConfigError(
            f"--resume {run}: the RLlib checkpoint {folder} that "
            f"{PROGRESS_FILE} names is missing; the run cannot go on (its "
            "last.pt still plays as ckpt:)"
        )
    return iteration, folder


def league_env(env_config: dict[str, Any]) -> LeagueVectorEnv:
    """RLlib's env creator: the vector env of one env runner (``num_envs`` set by RLlib)."""
    seed = int(env_config["seed"]) + 1000 * int(getattr(env_config, "worker_index", 0))
    return LeagueVectorEnv(
        int(env_config["num_envs"]),
        Rules.from_dict(env_config["rules"]),
        self_play=float(env_config["self_play"]),
        opponents=list(env_config["opponents"]),
        reward=env_config["reward"],
        hidden=tuple(env_config["hidden"]),
        seed=seed,
    )


def legal_categorical_class():
    """RLlib's action distribution over the legal actions only: the project's
    ``MaskedCategorical`` (agents/distributions.py) behind RLlib's ``Distribution`` API.
    RLlib's own categorical samples with ``multinomial`` and normalizes all 955 masked
    logits with ``logsumexp``, which on CPU cost more than the network."""
    import torch
    from ray.rllib.core.distribution.distribution import Distribution

    from rummy500.agents.distributions import MaskedCategorical

    class LegalCategorical(Distribution):
        """Masked logits in (illegal ones at the dtype's minimum), a masked categorical out."""

        def __init__(self, logits: torch.Tensor) -> None:
            self.logits = logits
            self._dist: MaskedCategorical | None = None

        @property
        def dist(self) -> MaskedCategorical:
            """Built on first use: RLlib builds distributions it may never sample from."""
            if self._dist is None:
                self._dist = MaskedCategorical(
                    self.logits, self.logits > torch.finfo(self.logits.dtype).min
                )
            return self._dist

        @classmethod
        def from_logits(cls, logits, **kwargs):
            return cls(logits)

        @staticmethod
        def required_input_dim(space, **kwargs) -> int:
            return int(space.n)

        def sample(self, *, sample_shape=(), **kwargs):
            return self.dist.sample(tuple(sample_shape))

        def rsample(self, *, sample_shape=(), **kwargs):
            raise NotImplementedError("a categorical has no reparameterized sample")

        def logp(self, value, **kwargs):
            return self.dist.log_prob(value)

        def entropy(self, **kwargs):
            return self.dist.entropy()

        def kl(self, other, **kwargs):
            """Over this distribution's legal actions. ``other`` may mark more legal (RLlib
            pads each episode with a step whose stored logits are all zeros)."""
            legal = self.dist.legal
            theirs = torch.log_softmax(other.logits.float(), dim=-1).gather(-1, legal.index)
            gap = torch.where(legal.valid, self.dist.legal_log_probs - theirs, 0.0)
            return (self.dist.legal_probs * gap).sum(dim=-1)

        def to_deterministic(self):
            return GreedyLegal(self.dist)

    class GreedyLegal(LegalCategorical):
        """The likeliest legal action, always."""

        def __init__(self, dist: MaskedCategorical) -> None:
            self.logits, self._dist = None, dist

        def sample(self, *, sample_shape=(), **kwargs):
            return self.dist.mode()

    return LegalCategorical


def rummy_rl_module_class():
    """The RLModule class (built lazily: ray is an optional extra)."""
    import torch
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
    from ray.rllib.core.rl_module.torch import TorchRLModule

    from rummy500.agents.torch_policy import MLPPolicy

    distribution = legal_categorical_class()

    class RummyRLModule(TorchRLModule, ValueFunctionAPI):
        """The project's MLPPolicy inside RLlib, with the env's action mask on its logits."""

        def get_inference_action_dist_cls(self):
            return distribution

        def get_exploration_action_dist_cls(self):
            return distribution

        def get_train_action_dist_cls(self):
            return distribution

        def setup(self):
            self.obs_dim = int(self.model_config["obs_dim"])
            self.net = MLPPolicy(
                self.obs_dim,
                int(self.action_space.n),
                tuple(self.model_config.get("hidden", (256, 128))),
            )

        def _split(self, batch):
            obs = batch[Columns.OBS]
            return obs[:, : self.obs_dim], obs[:, self.obs_dim :] > 0.5

        def _logits(self, batch):
            seat_view, legal = self._split(batch)
            hidden = self.net.features(seat_view)
            logits = self.net.actor(hidden)
            return logits.masked_fill(~legal, torch.finfo(logits.dtype).min), hidden

        def _forward(self, batch, **kwargs):
            logits, _ = self._logits(batch)
            return {Columns.ACTION_DIST_INPUTS: logits}

        def _forward_train(self, batch, **kwargs):
            logits, hidden = self._logits(batch)
            return {Columns.ACTION_DIST_INPUTS: logits, Columns.EMBEDDINGS: hidden}

        def compute_values(self, batch, embeddings=None):
            if embeddings is None:
                embeddings = self.net.features(self._split(batch)[0])
            return self.net.critic(embeddings).squeeze(-1)

    return RummyRLModule


def seat_view_size(cfg: RLlibConfig) -> int:
    """Length of a seat's observation, the first part of the env's (the mask follows)."""
    return observation_size(cfg.game_rules)


def build_algorithm(cfg: RLlibConfig):
    """The RLlib PPO algorithm for ``cfg`` (ray must be initialised)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    register_env("rummy500_league", league_env)
    env_config = {
        "rules": cfg.rules,
        "reward": cfg.reward,
        "self_play": cfg.self_play,
        "opponents": cfg.opponents,
        "hidden": cfg.hidden,
        "seed": cfg.seed,
    }
    config = (
        PPOConfig()
        .environment("rummy500_league", env_config=env_config, disable_env_checking=True)
        .framework("torch")
        .rl_module(
            rl_module_spec=RLModuleSpec(
                module_class=rummy_rl_module_class(),
                model_config={"hidden": cfg.hidden, "obs_dim": seat_view_size(cfg)},
            )
        )
        .env_runners(
            num_env_runners=cfg.num_env_runners,
            num_envs_per_env_runner=cfg.num_envs,
            gym_env_vectorize_mode="vector_entry_point",
            rollout_fragment_length="auto",
        )
        .learners(num_learners=cfg.num_learners, num_gpus_per_learner=cfg.num_gpus_per_learner)
        .training(
            train_batch_size_per_learner=cfg.train_batch_size,
            minibatch_size=cfg.train_batch_size // cfg.num_minibatches,
            num_epochs=cfg.update_epochs,
            lr=cfg.learning_rate,
            gamma=cfg.gamma,
            lambda_=cfg.gae_lambda,
            entropy_coeff=cfg.ent_coef,
            use_kl_loss=False,
        )  # clipped PPO alone, as the built-in trainer
        .debugging(seed=cfg.seed)
    )
    return config.build_algo()


def learner_net(algo):
    """The project network inside the algorithm's learner module."""
    return algo.get_module().net


def refresh_snapshots(algo) -> None:
    """Copy the learner's weights into every env runner's frozen copy of the learner."""
    weights = {k: v.detach().cpu() for k, v in learner_net(algo).state_dict().items()}

    def load(runner, w=weights):
        if runner.env is not None:  # the driver's runner has none when others sample
            runner.env.unwrapped.set_snapshot(w)

    algo.env_runner_group.foreach_env_runner(load, local_env_runner=True)


def count_moves(algo) -> int:
    """Decisions every seat made in every env runner (learners' and league members')."""
    counts = algo.env_runner_group.foreach_env_runner(
        lambda runner: runner.env.unwrapped.moves if runner.env is not None else 0,
        local_env_runner=True,
    )
    return int(sum(counts))


def export_checkpoint(algo, cfg: RLlibConfig, path: Path, global_step: int) -> Path:
    """The learner's weights as a project checkpoint (``ckpt:PATH`` in ``rummy500 eval``)."""
    return save_checkpoint(
        path,
        learner_net(algo),
        arch=cfg.arch,
        arch_kwargs=cfg.arch_kwargs,
        rules=cfg.game_rules,
        config={"backend": cfg.backend, **asdict(cfg)},
        global_step=global_step,
    )


def iteration_times(result: dict[str, Any]) -> dict[str, float]:
    """Seconds of the iteration's stages by RLlib's own timers (moving averages): sampling,
    learning and sending the new weights to the env runners."""
    timers = result.get("timers", {})
    names = {
        "sample": ("env_runner_sampling_timer",),
        "learn": ("learner_update_timer",),
        "sync": ("synch_weights", "synch_env_connectors"),
    }
    return {stage: float(sum(timers.get(k, 0.0) for k in keys)) for stage, keys in names.items()}


def log_iteration(
    writer: Any,
    result: dict[str, Any],
    step: int,
    rates: dict[str, float],
    stages: dict[str, float],
) -> None:
    """One iteration's scalars: speeds, return, losses and the time of each stage (also
    summed into ``stages``)."""
    writer.add_scalar("charts/SPS", rates["steps"], step)
    writer.add_scalar("charts/moves_per_second", rates["moves"], step)
    episode_return = result.get("env_runners", {}).get("episode_return_mean")
    if episode_return is not None and np.isfinite(episode_return):
        writer.add_scalar("charts/episodic_return", float(episode_return), step)
    learner = result.get("learners", {}).get("default_policy", {})
    for ours, theirs in (
        ("policy_loss", "policy_loss"),
        ("value_loss", "vf_loss"),
        ("entropy", "entropy"),
    ):
        if theirs in learner:
            writer.add_scalar(f"losses/{ours}", float(learner[theirs]), step)
    for stage, seconds in iteration_times(result).items():
        writer.add_scalar(f"time/{stage}_seconds", seconds, step)
        stages[stage] = stages.get(stage, 0.0) + seconds


def save_run(algo, cfg: RLlibConfig, run_dir: Path, iteration: int, step: int) -> Path:
    """``last.pt`` and RLlib's checkpoint of ``iteration`` in a folder of its own; the
    progress file names it only once it is complete (written through a temporary file),
    and older ones go after. A run killed while saving resumes from the previous one."""
    folder = f"rllib_{iteration:06d}"
    algo.save_to_path(str((run_dir / folder).resolve()))
    path = export_checkpoint(algo, cfg, run_dir / "last.pt", step)
    progress = run_dir / PROGRESS_FILE
    tmp = progress.with_name(progress.name + ".tmp")
    tmp.write_text(json.dumps({"iteration": iteration, "checkpoint": folder}))
    tmp.replace(progress)
    for old in run_dir.glob("rllib_[0-9]*"):
        if old.name != folder:
            shutil.rmtree(old, ignore_errors=True)
    return path


def train_rllib(cfg: RLlibConfig, resume: str | Path | None = None) -> dict[str, Any]:
    """Run RLlib iterations (``cfg.iterations``, or up to ``cfg.max_minutes``); TensorBoard
    scalars and checkpoints like the built-in trainer. ``resume``: a run folder whose
    RLlib checkpoint is continued. Returns a summary."""
    import ray
    from torch.utils.tensorboard import SummaryWriter

    from .config_agents import check_agents_start, check_eval_opponents_start
    from .evaluation import evaluate

    # ------------------------------------------------------------------ set-up
    check_agents_start("opponents", cfg.opponents, cfg.game_rules, cfg.seed)
    check_eval_opponents_start(cfg.eval_opponents, cfg.opponents, cfg.game_rules, cfg.seed)
    if resume is None:
        run_dir = create_run_dir(cfg.run_dir, cfg.exp_name, cfg.seed)
        (run_dir / CONFIG_FILE).write_text(json.dumps(asdict(cfg), indent=1))
    else:
        run_dir = Path(resume)
    ray.init(
        address=cfg.address or None,
        ignore_reinit_error=True,
        include_dashboard=False,
        log_to_driver=False,
    )
    algo = build_algorithm(cfg)
    first = 1
    if resume is not None:
        iteration, folder = resume_point(run_dir)
        algo.restore_from_path(str(folder.resolve()))
        first = iteration + 1
    refresh_snapshots(algo)
    writer = SummaryWriter(str(run_dir))
    start, moves_before = time.time(), count_moves(algo)
    step, sampled, moves, stages, last_eval, path, it = 0, 0, 0, {}, {}, None, first - 1
    try:
        for it in range(first, cfg.iterations + 1):
            # -------------------------------------------------- sample and learn
            result = algo.train()
            step = int(result.get("num_env_steps_sampled_lifetime", 0))
            sampled += int(result.get("env_runners", {}).get("num_env_steps_sampled", 0))
            moves = count_moves(algo) - moves_before
            elapsed = max(1e-9, time.time() - start)
            log_iteration(
                writer, result, step, {"steps": sampled / elapsed, "moves": moves / elapsed}, stages
            )
            if it % cfg.snapshot_every == 0:
                refresh_snapshots(algo)
            # -------------------------------------------------- evaluate and save
            last = it == cfg.iterations or bool(cfg.max_minutes and elapsed >= 60 * cfg.max_minutes)
            if last or (cfg.eval_every and it % cfg.eval_every == 0):
                if cfg.eval_every:
                    last_eval = evaluate(
                        cfg.game_rules,
                        learner_net(algo),
                        cfg.eval_opponents,
                        cfg.eval_games,
                        seed=cfg.seed + it,
                    )
                for name, stats in last_eval.items():
                    writer.add_scalar(f"eval/vs_{name}/win_rate", stats["win_rate"], step)
                    writer.add_scalar(
                        f"eval/vs_{name}/points_per_hand", stats["points_per_hand"], step
                    )
                path = save_run(algo, cfg, run_dir, it, step)
            if last:
                break
    finally:
        writer.close()
        algo.stop()
    elapsed = max(1e-9, time.time() - start)
    iterations = max(1, it - first + 1)
    return {
        "run_dir": run_dir,
        "checkpoint": path,
        "global_step": step,
        "steps_per_second": sampled / elapsed,
        "moves_per_second": moves / elapsed,
        "seconds_per_iteration": {k: v / iterations for k, v in stages.items()},
        "last_eval": last_eval,
    }

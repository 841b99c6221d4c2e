"""Training configuration: a dataclass with a docstring per field, loaded from YAML.

``load_config(path, overrides)`` reads ``configs/train/NAME.yaml`` and then
``key=value`` overrides; an unknown key is an error naming the known ones.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from agents.registry import check_spec
from rummy_env.config import parse_overrides
from rummy_env.core import Rules
from rummy_env.envs.options import REWARDS


@dataclass
class TrainConfig:
    exp_name: str = "ppo_selfplay"
    """Name of the experiment; runs are named ``rummy500__{exp_name}__{seed}__{time}``."""
    seed: int = 1
    """Seeds the deals, the league draws and torch."""
    rules: dict[str, Any] = field(default_factory=lambda: {"preset": "standard", "players": 2})
    """Rules of the games (a preset and/or flags, as in configs/rules)."""
    total_steps: int = 1_000_000
    """Agent-steps to train for (every seat's micro-actions count)."""
    max_minutes: float = 0.0
    """Stop after this many minutes of wall time (0: no limit)."""
    num_envs: int = 256
    """Games stepped together."""
    num_steps: int = 64
    """Steps of the whole batch per rollout."""
    reward: str = "points_diff"
    """Reward per seat: ``points_diff`` (hand score minus the others' mean, /100),
    ``points`` or ``win`` (see rummy_env/envs/episode.py)."""
    arch: str = "mlp"
    """Network: ``mlp`` or ``cards`` (card embeddings with self-attention)."""
    arch_kwargs: dict[str, Any] = field(default_factory=dict)
    """Keyword arguments of the network, e.g. {hidden: [256, 256]}."""
    learning_rate: float = 3e-4
    """Adam step size at the start of training."""
    anneal_lr: bool = True
    """Decay the learning rate linearly to 0 over ``total_steps``."""
    gamma: float = 0.995
    """Discount per decision of the same seat."""
    gae_lambda: float = 0.95
    """GAE's lambda: bias (0) against variance (1) of the advantages."""
    num_minibatches: int = 4
    """Minibatches each epoch splits the learner's samples into (equal sizes)."""
    update_epochs: int = 4
    """Passes over the rollout per update."""
    clip_coef: float = 0.2
    """PPO's clip range of the probability ratio (and of the value change)."""
    clip_vloss: bool = True
    """Clip the value loss around the rollout's values, as PPO's reference code does."""
    ent_coef: float = 0.01
    """Weight of the entropy bonus."""
    vf_coef: float = 0.5
    """Weight of the value loss."""
    max_grad_norm: float = 0.5
    """Global gradient norm clip."""
    norm_adv: bool = True
    """Normalize advantages within each minibatch."""
    target_kl: float = 0.0
    """Stop an update's epochs early when the approximate KL passes this (0: never)."""
    self_play: float = 0.5
    """Share of games in which every seat is the current learner."""
    opponents: list[str] = field(default_factory=lambda: ["random", "casual", "sharp"])
    """Heuristic league members (agents/registry.py names)."""
    snapshot_every: int = 25
    """Add a frozen copy of the learner to the league every this many updates (0: never)."""
    max_snapshots: int = 5
    """Snapshots kept in the league; the oldest leaves first."""
    eval_every: int = 10
    """Evaluate against each of ``eval_opponents`` every this many updates (0: never)."""
    eval_games: int = 100
    """Games against each evaluation opponent (duplicate deals)."""
    eval_opponents: list[str] = field(default_factory=lambda: ["random", "casual", "sharp"])
    """Agents the learner is evaluated against (agents/registry.py names)."""
    checkpoint_every: int = 10
    """Write ``last.pt`` every this many updates (and at the end)."""
    keep_checkpoints: int = 3
    """Numbered checkpoints kept besides ``last.pt`` and ``best.pt``."""
    device: str = "auto"
    """``auto`` (CUDA when available), ``cpu`` or ``cuda``."""
    torch_threads: int = 0
    """torch intra-op threads (0: torch's default)."""
    run_dir: str = "runs"
    """Folder of the runs (TensorBoard events and checkpoints)."""
    progress: bool = True
    """Show a progress bar."""

    def __post_init__(self) -> None:
        Rules.from_dict(self.rules)  # fail early, naming the bad key
        if self.reward not in REWARDS:
            raise ValueError(f"config: reward={self.reward!r}; allowed: {', '.join(REWARDS)}")
        if self.device not in ("auto", "cpu", "cuda"):
            raise ValueError(f"config: device={self.device!r}; allowed: auto, cpu, cuda")
        for spec in [*self.opponents, *self.eval_opponents]:
            try:
                check_spec(spec)
            except ValueError as e:
                raise ValueError(f"config: opponents: {e}") from None
        for name in ("num_envs", "num_steps", "num_minibatches", "update_epochs", "total_steps"):
            if getattr(self, name) < 1:
                raise ValueError(f"config: {name} must be >= 1")

    @property
    def game_rules(self) -> Rules:
        """The ``rules`` mapping as a validated ``Rules``."""
        return Rules.from_dict(self.rules)

    @property
    def batch_per_update(self) -> int:
        """Agent-steps one rollout collects (``num_envs * num_steps``)."""
        return self.num_envs * self.num_steps

    @property
    def num_updates(self) -> int:
        """Updates of the run: ``total_steps`` in whole rollouts (at least one)."""
        return max(1, self.total_steps // self.batch_per_update)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def load_config(path: str | Path | None, overrides: list[str] | dict[str, Any] | None = None,
                base: dict[str, Any] | None = None, cls: type = TrainConfig):
    """A ``cls`` config (``TrainConfig`` or the RLlib backend's) from a YAML file (or the
    defaults), then overrides: ``key=value`` texts or a dict; ``rules.FLAG`` sets one flag."""
    data: dict[str, Any] = dict(base or {})
    if path is not None:
        loaded = yaml.safe_load(Path(path).read_text()) or {}
        if not isinstance(loaded, dict):
            raise ValueError(f"config: {path} must hold a mapping")
        data.update(loaded)
    if not isinstance(overrides, dict):
        overrides = parse_overrides(overrides or [])
    for key, value in overrides.items():
        if key.startswith("rules."):
            data.setdefault("rules", {})
            data["rules"] = {**data["rules"], key[len("rules."):]: value}
        else:
            data[key] = value
    known = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(f"config: unknown key(s) {unknown}; known keys: {sorted(known)}")
    return cls(**data)

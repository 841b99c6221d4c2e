"""Training configuration: one vocabulary, a dataclass per backend with a docstring per field.

``TrainConfig`` is the built-in trainer's (train/ppo.py), ``RLlibConfig`` the RLlib
backend's (train/rllib_backend.py); a setting both have carries the same name and
meaning (``learning_rate``, ``gae_lambda``, ``update_epochs``, ``ent_coef``, the
league's ``self_play`` and ``opponents``...). ``load_config(recipe, overrides)``
reads a recipe (a YAML file, or the name of one that ships in
``rummy500.configs``: ``quickstart``, ``selfplay``, ``rllib_selfplay``...) and then
``key=value`` overrides. Every value is checked when the config is made (types
from the annotations, ranges and choices from ``RANGES`` and ``CHOICES``, the
rules, agent names and the network's arguments); a key of the other backend, an
unknown key, a bad value or a file that is not valid YAML is a one-line
``ConfigError``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import yaml

from rummy500.agents.registry import check_spec
from rummy500.configs import TRAIN_RECIPES
from rummy_env.config import load_yaml, parse_overrides, read_config_text
from rummy_env.core import Rules
from rummy_env.envs.options import REWARDS

from .config_checks import ConfigError, Range, check_fields, check_network
from .league import fixed_tables
from .precision import PRECISIONS

AT_LEAST_0, AT_LEAST_1, POSITIVE, SHARE = Range(0), Range(1), Range(0, low_open=True), Range(0, 1)

RANGES: dict[str, Range] = {
    "seed": AT_LEAST_0,
    "total_steps": AT_LEAST_1,
    "max_minutes": AT_LEAST_0,
    "num_envs": AT_LEAST_1,
    "num_steps": AT_LEAST_1,
    "learning_rate": POSITIVE,
    "gamma": SHARE,
    "gae_lambda": SHARE,
    "num_minibatches": AT_LEAST_1,
    "update_epochs": AT_LEAST_1,
    "clip_coef": POSITIVE,
    "ent_coef": AT_LEAST_0,
    "vf_coef": AT_LEAST_0,
    "hand_coef": AT_LEAST_0,
    "teacher_coef": AT_LEAST_0,
    "teacher_until": SHARE,
    "max_grad_norm": POSITIVE,
    "target_kl": AT_LEAST_0,
    "self_play": SHARE,
    "snapshot_every": AT_LEAST_0,
    "max_snapshots": AT_LEAST_1,
    "eval_every": AT_LEAST_0,
    "eval_games": AT_LEAST_1,
    "eval_workers": AT_LEAST_1,
    "checkpoint_every": AT_LEAST_1,
    "keep_checkpoints": AT_LEAST_0,
    "torch_threads": AT_LEAST_0,
}
"""Allowed range of each numeric ``TrainConfig`` field."""

CHOICES: dict[str, tuple[str, ...]] = {
    "reward": tuple(REWARDS),
    "device": ("auto", "cpu", "cuda"),
    "precision": PRECISIONS,
    "init_rules": ("same", "any"),
    "critic": ("shared", "oracle"),
}
"""Allowed values of the ``TrainConfig`` fields that take a name (``arch`` and
``arch_kwargs`` are checked by building the network)."""


@dataclass
class TrainConfig:
    """Settings of a run of the built-in trainer (``rummy500 train``)."""

    backend: ClassVar[str] = "builtin"
    """The ``rummy500 train --backend`` that reads this config."""

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
    """Network: ``mlp`` or ``cards`` (the MLP beside filters over the cards shared by
    every suit and rank: agents/torch_policy.py)."""
    arch_kwargs: dict[str, Any] = field(default_factory=dict)
    """Keyword arguments of the network, e.g. {hidden: [256, 256]}."""
    init_from: str = ""
    """Start the network from these weights instead of at random: a checkpoint's path,
    ``champion`` (the one shipped for the rules; ``champion@N``: release N) or
    ``champion@N/NAME`` (a shipped checkpoint by name, e.g. ``champion@1/standard_2p``);
    same rules and network (see train/warm_start.py). Empty: a fresh network."""
    init_rules: str = "same"
    """``any``: ``init_from`` may be a checkpoint trained for other rules, its network
    the same shape (same seats): a transfer to a variant."""
    critic: str = "shared"
    """Where the value estimate comes from: ``shared`` (the policy network's own value
    head) or ``oracle`` (a separate network that also sees every hand and the stock,
    for training only: train/oracle_critic.py)."""
    hand_coef: float = 0.0
    """Weight of the auxiliary loss of predicting which cards the other seats hold from
    the policy's trunk (train/hand_prediction.py); 0: no such target."""
    teacher: str = ""
    """An agent (a name ``rummy500 eval`` takes, e.g. ``sharp``) whose choice at each of
    the learner's own decisions the policy is also fitted to, with weight
    ``teacher_coef`` decaying to 0 (train/kickstart.py); empty: no teacher."""
    teacher_coef: float = 1.0
    """Weight of the teacher's cross-entropy at the start of training."""
    teacher_until: float = 0.5
    """Share of ``total_steps`` over which the teacher's weight decays linearly to 0."""
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
    """Heuristic league members (agents/registry.py names; one name: a list of one)."""
    mixed_tables: bool = False
    """At three or more players, each seat beside the learner draws its own league member
    (False: one member holds them all)."""
    snapshot_every: int = 25
    """Add a frozen copy of the learner to the league every this many updates (0: never)."""
    max_snapshots: int = 5
    """Snapshots kept in the league; the oldest leaves first."""
    eval_every: int = 10
    """Evaluate against each of ``eval_opponents`` every this many updates (0: only the
    closing evaluation, which every run ends with)."""
    eval_games: int = 100
    """Games against each evaluation opponent (duplicate deals)."""
    eval_opponents: list[str] = field(default_factory=lambda: ["random", "casual", "sharp"])
    """Agents the learner is evaluated against (agents/registry.py names); an empty list:
    no evaluation at all, not even the closing one."""
    eval_workers: int = 1
    """Worker processes that play the evaluation matches, each with a copy of the learner
    (1: in the training process; the matches are short, and every evaluation would pay
    the workers' start again); the results are the same at any number."""
    checkpoint_every: int = 10
    """Write ``last.pt`` every this many updates (and at the end)."""
    keep_checkpoints: int = 3
    """Numbered checkpoints (``step_*.pt``) kept besides ``last.pt`` and ``best.pt`` (0: none
    are written)."""
    device: str = "auto"
    """``auto`` (CUDA when available), ``cpu`` or ``cuda``."""
    precision: str = "float32"
    """Number format of the network's passes: ``float32``, ``bfloat16`` (autocast matrix
    products; weights, optimizer and losses stay float32) or ``auto`` (bfloat16 where the
    device does it natively; see train/precision.py)."""
    torch_threads: int = 0
    """torch intra-op threads (0: torch's default)."""
    run_dir: str = "runs"
    """Folder of the runs (TensorBoard events and checkpoints)."""
    progress: bool = True
    """Show a progress bar."""

    def __post_init__(self) -> None:
        check_fields(self, RANGES, CHOICES)
        check_rules(self.rules)
        check_agent_names("opponents", [*self.opponents, *self.eval_opponents])
        check_agent_names("teacher", [self.teacher] if self.teacher else [])
        check_network(self.arch, self.arch_kwargs, self.game_rules)

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
        """Updates of the run: ``total_steps`` in whole rollouts, rounded down (at least one;
        ``rummy500 train`` says so when this changes the budget)."""
        return max(1, self.total_steps // self.batch_per_update)

    @property
    def planned_steps(self) -> int:
        """Agent-steps of the whole run: ``num_updates`` rollouts."""
        return self.num_updates * self.batch_per_update

    def to_dict(self) -> dict[str, Any]:
        """The config as plain data (stored in checkpoints)."""
        return dataclasses.asdict(self)


RLLIB_RANGES: dict[str, Range] = {
    **{
        key: RANGES[key]
        for key in (
            "seed",
            "max_minutes",
            "num_envs",
            "learning_rate",
            "gamma",
            "gae_lambda",
            "num_minibatches",
            "update_epochs",
            "ent_coef",
            "self_play",
            "eval_every",
            "eval_games",
        )
    },
    "iterations": AT_LEAST_1,
    "snapshot_every": AT_LEAST_1,
    "num_env_runners": AT_LEAST_0,
    "num_learners": AT_LEAST_0,
    "num_gpus_per_learner": AT_LEAST_0,
    "train_batch_size": AT_LEAST_1,
}
"""Allowed range of each numeric ``RLlibConfig`` field (the built-in trainer's where shared)."""


@dataclass
class RLlibConfig:
    """Settings of a run on Ray RLlib (``rummy500 train --backend rllib``): the built-in
    trainer's names where the setting is the same, RLlib's own for how the run spreads
    over processes."""

    backend: ClassVar[str] = "rllib"
    """The ``rummy500 train --backend`` that reads this config."""

    exp_name: str = "rllib_selfplay"
    """Name of the experiment; runs are named ``rummy500__{exp_name}__{seed}__{time}``."""
    seed: int = 1
    """Seeds RLlib, the deals and the evaluation."""
    rules: dict[str, Any] = field(default_factory=lambda: {"preset": "standard", "players": 2})
    """Rules of the games (a preset and/or flags, as in configs/rules)."""
    reward: str = "points_diff"
    """Reward per seat: ``points_diff``, ``points`` or ``win`` (rummy_env/envs/episode.py)."""
    iterations: int = 100
    """RLlib training iterations (``algo.train()`` calls) of ``train_batch_size`` steps."""
    max_minutes: float = 0.0
    """Stop after the iteration that passes this many minutes (0: run every iteration)."""
    arch: str = "mlp"
    """Network: ``mlp`` (the one the RLlib module holds)."""
    arch_kwargs: dict[str, Any] = field(default_factory=lambda: {"hidden": [256, 128]})
    """Keyword arguments of the network, e.g. {hidden: [256, 128]}."""
    self_play: float = 0.2
    """Share of each env runner's games in which the learner meets a frozen copy of itself,
    refreshed every ``snapshot_every`` iterations."""
    opponents: list[str] = field(default_factory=lambda: ["sharp"])
    """League members (agents/registry.py names) sharing the other games evenly, each in a
    fixed block of every env runner's games (train/league.py)."""
    snapshot_every: int = 1
    """Copy the learner into its frozen copy every this many iterations."""
    num_env_runners: int = 2
    """RLlib env-runner processes collecting games (0: sample in the driver)."""
    num_envs: int = 256
    """Games each env runner steps together on the batched engine."""
    num_learners: int = 0
    """Learner processes (0: learn in the driver)."""
    num_gpus_per_learner: float = 0.0
    """GPUs each learner uses."""
    train_batch_size: int = 32768
    """Env steps (learner decisions) per training iteration."""
    num_minibatches: int = 4
    """Minibatches each epoch splits the training batch into (equal sizes)."""
    update_epochs: int = 2
    """Passes over each training batch."""
    learning_rate: float = 1e-3
    """Adam step size."""
    gamma: float = 0.995
    """Discount per step."""
    gae_lambda: float = 0.95
    """GAE's lambda: bias (0) against variance (1) of the advantages."""
    ent_coef: float = 0.01
    """Weight of the entropy bonus."""
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
        check_fields(self, RLLIB_RANGES, {"reward": tuple(REWARDS), "arch": ("mlp",)})
        check_rules(self.rules)
        check_agent_names("opponents", [*self.opponents, *self.eval_opponents])
        check_network(self.arch, self.arch_kwargs, self.game_rules)
        if self.num_minibatches > self.train_batch_size:
            raise ConfigError(
                f"config: num_minibatches={self.num_minibatches} is more than "
                f"train_batch_size={self.train_batch_size} samples"
            )
        try:
            fixed_tables(self.self_play, len(self.opponents), self.num_envs)
        except ValueError as e:
            raise ConfigError(f"config: {e}") from None

    @property
    def game_rules(self) -> Rules:
        """The ``rules`` mapping as a validated ``Rules``."""
        return Rules.from_dict(self.rules)

    @property
    def hidden(self) -> tuple[int, ...]:
        """Hidden layer sizes of the network."""
        return tuple(self.arch_kwargs.get("hidden", (256, 128)))


BACKENDS: dict[str, type] = {"builtin": TrainConfig, "rllib": RLlibConfig}
"""The config of each ``rummy500 train --backend``."""


def check_rules(rules: dict[str, Any]) -> None:
    """Refuse rules ``Rules.from_dict`` refuses, with its message."""
    try:
        Rules.from_dict(rules)
    except ValueError as e:
        raise ConfigError(f"config: {e}") from None


def check_agent_names(key: str, specs: list[str]) -> None:
    """Refuse agent names the registry does not know, with its message and the config
    ``key`` that named them."""
    for spec in specs:
        try:
            check_spec(spec)
        except ValueError as e:
            raise ConfigError(f"config: {key}: {e}") from None


def recipe_names() -> list[str]:
    """Names of the training recipes that ship with the package, sorted."""
    return sorted(path.stem for path in TRAIN_RECIPES.glob("*.yaml"))


def recipe_path(recipe: str | Path) -> Path:
    """The file ``recipe`` names: a path as given when it is a file, else (a bare name such
    as ``quickstart``) the packaged recipe; a ConfigError naming the packaged ones otherwise."""
    path = Path(recipe)
    if path.is_file():
        return path
    packaged = TRAIN_RECIPES / f"{path.name.removesuffix('.yaml')}.yaml"
    if len(path.parts) == 1 and packaged.is_file():
        return packaged
    if path.exists():
        raise ConfigError(f"config: cannot read {recipe}: it is not a file")
    hint = f"; the packaged one is --config {packaged.stem}" if packaged.is_file() else ""
    raise ConfigError(
        f"config: cannot read {recipe}: no such file{hint} "
        f"(packaged recipes: {', '.join(recipe_names())})"
    )


def read_yaml_mapping(path: str | Path) -> dict[str, Any]:
    """The mapping a YAML config file holds; a ConfigError naming the file (and line)."""
    try:
        loaded = load_yaml(read_config_text(path), f"config: {path}") or {}
    except OSError as e:
        raise ConfigError(f"config: cannot read {path}: {e.strerror or e}") from None
    except ValueError as e:
        raise ConfigError(str(e) if str(e).startswith("config") else f"config: {e}") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise ConfigError(f"config: {path}{where} is not valid YAML: {problem}") from None
    if not isinstance(loaded, dict):
        raise ConfigError(f"config: {path} must hold a mapping of config keys")
    return loaded


def parse_override_texts(pairs: list[str]) -> dict[str, Any]:
    """``key=value`` texts as a dict (values read as YAML); a ConfigError naming a bad one."""
    out: dict[str, Any] = {}
    for pair in pairs:
        try:
            out.update(parse_overrides([pair]))
        except yaml.YAMLError as e:
            raise ConfigError(
                f"config: override {pair!r} is not valid YAML: {getattr(e, 'problem', None) or e}"
            ) from None
        except ValueError as e:
            raise ConfigError(f"config: {e}") from None
    return out


def config_data(
    path: str | Path | None,
    overrides: list[str] | dict[str, Any] | None = None,
    base: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The raw settings: ``base``, then the YAML file, then overrides (``key=value`` texts or
    a dict; ``rules.FLAG`` sets one flag of the rules)."""
    data: dict[str, Any] = dict(base or {})
    if path is not None:
        data.update(read_yaml_mapping(recipe_path(path)))
    if not isinstance(overrides, dict):
        overrides = parse_override_texts(overrides or [])
    for key, value in overrides.items():
        if key.startswith("rules.") and isinstance(data.get("rules", {}), dict):
            data["rules"] = {**data.get("rules", {}), key[len("rules.") :]: value}
        else:
            data[key] = value
    return data


def load_config(
    path: str | Path | None,
    overrides: list[str] | dict[str, Any] | None = None,
    base: dict[str, Any] | None = None,
    cls: type = TrainConfig,
):
    """A checked ``cls`` config (``TrainConfig`` or ``RLlibConfig``) from ``config_data``;
    a key of the other backend, or an unknown key, is a ConfigError naming it."""
    data = config_data(path, overrides, base)
    check_keys(data, cls)
    return cls(**data)


def check_keys(data: dict[str, Any], cls: type) -> None:
    """Refuse, in one line, the first key ``cls`` has no field for: by name where another
    backend uses it, else listing the known keys."""
    known = {f.name for f in dataclasses.fields(cls)}
    for key in sorted(set(data) - known):
        users = [
            name
            for name, other in BACKENDS.items()
            if key in {f.name for f in dataclasses.fields(other)}
        ]
        if users:
            raise ConfigError(
                f"config: {key} is a setting of the {users[0]} backend; "
                f"--backend {cls.backend} does not use it"
            )
    unknown = sorted(set(data) - known)
    if unknown:
        raise ConfigError(f"config: unknown key(s) {unknown}; known keys: {sorted(known)}")

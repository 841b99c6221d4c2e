"""``sb3:PATH``: a MaskablePPO model (sb3-contrib) trained on this project's Gymnasium env.

The model plays each decision from the seat's flat observation (``encode`` of its
view, exactly what ``Rummy500-v1`` gives) with the legal mask applied, its most
likely move (``sb3[sample]:PATH`` samples instead). A model saved for other rules
or another observation version takes other sizes: it is refused, naming what differs
(the archive keeps the bounds of its observations only pickled, so a model of the
same sizes but other bounds is not told apart). A model whose archive carries the rules
it was trained under (``stamp_rules``, agents/sb3_rules.py) is refused under other
rules, naming the flags that differ; an unstamped one is checked by its sizes only,
which tell another observation version or seat count but not rules that share them
(``web`` and ``standard`` do).

An archive is a file from outside, so loading it runs nothing it carries. Stable-
Baselines3's own ``load`` unpickles the spaces, the policy class and the schedules
stored in the archive, and pickles can run any code; this loader reads only two
members, each bounded in size (``MAX_DATA``, ``MAX_WEIGHTS``: a small archive cannot
inflate to gigabytes): the ``data`` settings as plain JSON (its pickled entries are
never decoded) and the weights ``policy.pth`` with ``torch.load(weights_only=True)``,
which accepts tensors and plain containers only. The policy is rebuilt as the
``MlpPolicy`` of MaskablePPO for the env's spaces under these rules, with the
archive's ``policy_kwargs`` when they are plain JSON (``net_arch``); a model of
another policy class, or whose settings are pickled (an ``activation_fn``), is
refused in one line.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from rummy500.agents.sb3_rules import rules_mismatch
from rummy_env.core import (
    Decision,
    Rules,
    action_layout,
    encode,
    obs_layout,
    observation_bounds,
)

MAX_DATA = 1 << 20
"""Largest ``data`` member read from an archive, in bytes."""
MAX_WEIGHTS = 256 << 20
"""Largest ``policy.pth`` member read from an archive, in bytes."""


def is_sb3_archive(path: str | Path) -> bool:
    """Whether ``path`` is a Stable-Baselines3 model archive (a zip with its version file)."""
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
    except (OSError, zipfile.BadZipFile):
        return False
    return "_stable_baselines3_version" in names or {"data", "policy.pth"} <= names


def size_mismatch(rules: Rules, shape: tuple[int, ...] | None, n: int | None) -> str | None:
    """What differs between a model's observation shape and action count and the env's for
    ``rules``, or None (None too where the archive does not say)."""
    size, actions = obs_layout(rules).size, action_layout(rules).size
    if shape is None or (shape, n) == ((size,), actions):
        return None
    return (
        f"the model takes observations of shape {shape} and {n} actions; these rules "
        f"give ({size},) and {actions}: it was trained for other rules or another "
        "observation version"
    )


def bounded_member(archive: zipfile.ZipFile, name: str, limit: int) -> bytes:
    """The bytes of member ``name``, read no further than ``limit`` (ValueError beyond)."""
    try:
        with archive.open(name) as member:
            data = member.read(limit + 1)
    except KeyError:
        raise ValueError(f"it has no {name!r} member") from None
    if len(data) > limit:
        raise ValueError(f"its {name!r} member is over {limit:,} bytes")
    return data


def stored_sizes(data: dict[str, Any]) -> tuple[tuple[int, ...] | None, int | None]:
    """(observation shape, action count) as the ``data`` settings write them in plain text
    beside their pickles (None where absent)."""

    def ints(value: Any) -> list[int] | None:  # a number, a list of them, or their text
        if isinstance(value, int) and not isinstance(value, bool):
            return [value]
        if isinstance(value, list) and all(type(x) is int for x in value):
            return value
        return [int(x) for x in re.findall(r"\d+", value)] if isinstance(value, str) else None

    shape = ints((data.get("observation_space") or {}).get("_shape"))
    n = ints((data.get("action_space") or {}).get("n"))
    return (tuple(shape) if shape is not None else None), (n[0] if n else None)


def plain_kwargs(data: dict[str, Any]) -> dict[str, Any]:
    """The archive's ``policy_kwargs`` when they are plain JSON; ValueError otherwise."""
    kwargs = data.get("policy_kwargs") or {}
    if not isinstance(kwargs, dict) or ":serialized:" in json.dumps(kwargs):
        raise ValueError(
            "its policy_kwargs are pickled (a class such as an activation_fn), "
            "which this loader does not run; only plain settings such as "
            "net_arch are read"
        )
    return kwargs


def load_policy(path: str, rules: Rules) -> Any:
    """The MaskablePPO ``MlpPolicy`` of the archive at ``path``, rebuilt for ``rules`` from
    its plain settings and weights alone (module docstring); ValueError naming the problem."""
    import torch

    # gymnasium's spaces as the policy's module has them (this layer names sb3 only)
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy, spaces

    with zipfile.ZipFile(path) as archive:
        data = json.loads(bounded_member(archive, "data", MAX_DATA))
        weights = bounded_member(archive, "policy.pth", MAX_WEIGHTS)
    if not isinstance(data, dict):
        raise ValueError("its data member is no JSON object")
    low, high = observation_bounds(rules)  # the spaces of Rummy500-v1 under these rules
    observation_space = spaces.Box(low, high, (obs_layout(rules).size,), np.float32)
    action_space = spaces.Discrete(action_layout(rules).size)
    problem = size_mismatch(rules, *stored_sizes(data))
    if problem:
        raise ValueError(problem)
    policy = MaskableActorCriticPolicy(
        observation_space, action_space, lr_schedule=lambda _: 0.0, **plain_kwargs(data)
    )
    state = torch.load(io.BytesIO(weights), map_location="cpu", weights_only=True)
    if not isinstance(state, dict):
        raise ValueError("its policy.pth holds no weights")
    policy.load_state_dict(state)
    policy.set_training_mode(False)
    return policy


class SB3Agent:
    """A MaskablePPO policy as an agent: greedy by default, sampling with ``sample``."""

    def __init__(self, path: str, rules: Rules, seed: int = 0, sample: bool = False) -> None:
        try:
            import sb3_contrib  # noqa: F401 - its policy class rebuilds the model
            import torch
        except ImportError as e:
            raise NotImplementedError(
                f"sb3:{path}: needs sb3-contrib (pip install sb3-contrib) ({e})"
            ) from None
        if not Path(path).is_file():
            raise ValueError(f"sb3:{path}: no such file")
        if not is_sb3_archive(path):
            raise ValueError(
                f"sb3:{path}: not a Stable-Baselines3 model archive (a .zip written by model.save)"
            )
        problem = rules_mismatch(path, rules)  # the stamp of agents/sb3_rules.py, if any
        if problem:
            raise ValueError(f"sb3:{path}: {problem}")
        try:
            self.policy = load_policy(path, rules)
        except Exception as e:  # a damaged archive, another algorithm, a policy of its own
            raise ValueError(
                f"sb3:{path}: cannot load it as a MaskablePPO MlpPolicy model "
                f"({type(e).__name__}: {str(e).splitlines()[0][:200]})"
            ) from None
        self.rules, self.sample = rules, sample
        self.name = f"sb3:{path}"
        self.generator = torch.Generator().manual_seed(seed)

    def act(self, decision: Decision) -> np.ndarray:
        import torch

        obs = torch.as_tensor(encode(self.rules, decision.view), dtype=torch.float32)
        with torch.no_grad():
            distribution = self.policy.get_distribution(obs, action_masks=np.array(decision.mask))
            probs = distribution.distribution.probs
            actions = (
                torch.multinomial(probs, 1, generator=self.generator)[:, 0]
                if self.sample
                else probs.argmax(dim=1)
            )
        return actions.numpy().astype(np.int64)

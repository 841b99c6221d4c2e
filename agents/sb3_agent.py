"""``sb3:PATH``: a MaskablePPO model (sb3-contrib) trained on this project's Gymnasium env.

The model plays each decision from the seat's flat observation (``encode`` of its
view, exactly what ``Rummy500-v1`` gives) with the legal mask applied, its most
likely move (``sb3[sample]:PATH`` samples instead). A model whose archive carries the
rules it was trained under (``stamp_rules``, agents/sb3_rules.py) is refused under
other rules, naming the flags that differ; an unstamped one is checked by its spaces
only, which tells another observation version or seat count but not rules that share
the spaces (``web`` and ``standard`` do).
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np

from rummy500.agents.sb3_rules import rules_mismatch
from rummy_env.core import Decision, Rules, action_layout, encode, obs_layout, observation_bounds


def is_sb3_archive(path: str | Path) -> bool:
    """Whether ``path`` is a Stable-Baselines3 model archive (a zip with its version file)."""
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
    except (OSError, zipfile.BadZipFile):
        return False
    return "_stable_baselines3_version" in names or {"data", "policy.pth"} <= names


def space_mismatch(rules: Rules, observation_space, action_space) -> str | None:
    """What differs between a model's spaces and the env's for ``rules``, or None."""
    size, actions = obs_layout(rules).size, action_layout(rules).size
    shape = tuple(getattr(observation_space, "shape", ()) or ())
    n = getattr(action_space, "n", None)
    if shape != (size,) or n != actions:
        return (f"the model takes observations of shape {shape} and {n} actions; these rules "
                f"give ({size},) and {actions}: it was trained for other rules or another "
                "observation version")
    low, high = observation_bounds(rules)
    differs = ~(np.isclose(observation_space.low, low) & np.isclose(observation_space.high, high))
    if differs.any():
        first = int(np.flatnonzero(differs)[0])
        block = next((name for name, s in obs_layout(rules).slices.items()
                      if s.start <= first < s.stop), "?")
        return (f"the model's observation bounds differ from these rules' at {differs.sum()} "
                f"features (first: {block!r}): it was trained for other rules or another "
                "observation version")
    return None


class SB3Agent:
    """A MaskablePPO policy as an agent: greedy by default, sampling with ``sample``."""

    def __init__(self, path: str, rules: Rules, seed: int = 0, sample: bool = False) -> None:
        try:
            from sb3_contrib import MaskablePPO
        except ImportError as e:
            raise NotImplementedError(f"sb3:{path}: needs sb3-contrib (pip install "
                                      f"sb3-contrib) ({e})") from None
        if not Path(path).is_file():
            raise ValueError(f"sb3:{path}: no such file")
        if not is_sb3_archive(path):
            raise ValueError(f"sb3:{path}: not a Stable-Baselines3 model archive (a .zip "
                             "written by model.save)")
        problem = rules_mismatch(path, rules)  # the stamp of agents/sb3_rules.py, if any
        if problem:
            raise ValueError(f"sb3:{path}: {problem}")
        try:
            self.model = MaskablePPO.load(path, device="cpu")
        except Exception as e:  # an archive of another algorithm or version
            raise ValueError(f"sb3:{path}: cannot load it as a MaskablePPO model "
                             f"({type(e).__name__}: {str(e).splitlines()[0][:160]})") from None
        problem = space_mismatch(rules, self.model.observation_space, self.model.action_space)
        if problem:
            raise ValueError(f"sb3:{path}: {problem}")
        self.rules, self.sample = rules, sample
        self.name = f"sb3:{path}"
        self.model.set_random_seed(seed)

    def act(self, decision: Decision) -> np.ndarray:
        obs = encode(self.rules, decision.view)
        actions, _ = self.model.predict(obs, action_masks=decision.mask,
                                        deterministic=not self.sample)
        return np.asarray(actions, np.int64).reshape(-1)

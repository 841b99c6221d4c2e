"""Other RL libraries train on the envs unmodified: each example of docs/examples runs.

Each example is run in a subprocess, as a user would run it; an example whose
library is missing is skipped with the reason (``pip install -e ".[clients]"``
installs those that share one environment). AgileRL pins ``pettingzoo<1.27``
and ``tensordict==0.13``, so it cannot share the project's environment: its
example runs when ``AGILERL_PYTHON`` names an interpreter that has AgileRL.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import rummy_env

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "docs" / "examples"
TIMEOUT_S = 600  # generous: the examples take well under a minute on an idle 2-core machine

CLIENT_EXAMPLES = [
    ("sb3_maskable_ppo.py", "sb3_contrib", "MaskablePPO: "),
    ("cleanrl_style_ppo.py", "torch", "CleanRL-style PPO: "),
    ("tianshou_dqn.py", "tianshou", "Tianshou DQN: "),
    ("torchrl_reinforce.py", "torchrl", "TorchRL REINFORCE: "),
]


def run_example(python: str, name: str) -> str:
    """Run docs/examples/``name`` with ``python``; its stdout (fails on a non-zero exit)."""
    done = subprocess.run(
        [python, str(EXAMPLES / name)], capture_output=True, text=True, cwd=ROOT, timeout=TIMEOUT_S
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.mark.parametrize(
    "name,module,banner", CLIENT_EXAMPLES, ids=[name for name, _, _ in CLIENT_EXAMPLES]
)
def test_client_example_trains_with_masks(name: str, module: str, banner: str) -> None:
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed (pip install -e '.[clients]')")
    out = run_example(sys.executable, name)
    assert banner in out and "no illegal action" in out


def test_agilerl_example() -> None:
    python = os.environ.get("AGILERL_PYTHON")
    if not python:
        pytest.skip(
            "AgileRL pins pettingzoo<1.27 and tensordict==0.13, so it needs its own "
            "environment: set AGILERL_PYTHON to its interpreter"
        )
    out = run_example(python, "agilerl_dqn_selfplay.py")
    assert "AgileRL DQN self-play: " in out and "no illegal action" in out


def test_supersuit_parallel_wrappers_take_the_parallel_env() -> None:
    """A SuperSuit parallel wrapper on rummy_env.parallel_env (black_death_v3 needs Box
    observations, and is not needed: every agent's episode ends at once)."""
    if importlib.util.find_spec("supersuit") is None:
        pytest.skip("supersuit is not installed (pip install -e '.[clients]')")
    import supersuit

    env = supersuit.clip_reward_v0(rummy_env.parallel_env(preset="web", episode="hand"))
    observations, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(2000):
            actions = {
                agent: int(rng.choice(np.flatnonzero(obs["action_mask"])))
                if obs["action_mask"].any()
                else 0
                for agent, obs in observations.items()
            }
            observations, rewards, terminations, truncations, infos = env.step(actions)
            if not env.agents:
                break
    assert not env.agents
    assert all(terminations[a] or truncations[a] for a in terminations)

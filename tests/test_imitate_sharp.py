"""scripts/imitate_sharp.py: a network fitted to Sharp's real choices, a checkpoint PPO
and the arena read."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from script_support import run_script

pytestmark = pytest.mark.slow


def imitate(*args: object) -> subprocess.CompletedProcess:
    return run_script("imitate_sharp.py", *args)


def test_the_fit_learns_sharps_choices_and_plays_as_a_checkpoint(tmp_path: Path) -> None:
    out = tmp_path / "bc.pt"
    done = imitate("--decisions", 6000, "--epochs", 3, "--hidden", 64, "--seed", 3, "--out", out)
    assert done.returncode == 0, done.stderr[-2000:]
    agreement = [float(a) for a in re.findall(r"agreement with Sharp ([0-9.]+)", done.stdout)]
    assert len(agreement) == 3
    assert agreement[-1] > 0.5  # a fresh network picks one of several legal actions at random

    from rummy500.agents.registry import make_agent
    from rummy500.eval.arena import match_games, play_games
    from rummy_env.core import Rules

    rules = Rules.preset_named("standard", players=2)
    fitted = make_agent(f"ckpt:{out}", rules, 0)
    lineups, deals = match_games(2, 2, 2, duplicate=True)
    players = [fitted, make_agent("random", rules, 1)]
    result = play_games(rules, players, lineups, deals, 0, progress=False)
    assert (result.winner >= 0).all() and not result.truncated.any()


@pytest.mark.parametrize(
    "args, reason",
    [
        (["--decisions", 10], "--decisions must be at least 1000"),
        (["--seed", -1], "seed -1 is not allowed"),
        (["--players", 9], "players"),
    ],
)
def test_bad_input_gets_one_line_before_any_play(
    tmp_path: Path, args: list[object], reason: str
) -> None:
    done = imitate(*args, "--out", tmp_path / "bc.pt")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert reason in done.stderr.strip().splitlines()[-1]
    assert not (tmp_path / "bc.pt").exists()

"""scripts/champion3.py: release 3's stages run in order, each from the one before, and a
chain run again skips the stages it has."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from script_support import ROOT, run_script

pytestmark = pytest.mark.slow


def chain(*args: object) -> subprocess.CompletedProcess:
    return run_script("champion3.py", *args)


def test_every_stage_trains_from_the_one_before_and_a_rerun_skips_them(tmp_path: Path) -> None:
    import torch

    sys.path.insert(0, str(ROOT / "scripts"))
    from champion3 import STAGES

    done = chain("--out", tmp_path, "--scale", 0.0001)
    assert done.returncode == 0, done.stderr[-2000:]
    names = [s.name for s in STAGES]
    stages = [tmp_path / f"{n}.pt" for n in names]
    assert all(p.exists() for p in stages)
    # Each stage started from the one before: its config names that stage's file.
    for before, stage in zip(stages, STAGES[1:]):
        config = torch.load(tmp_path / f"{stage.name}.pt", weights_only=True)["config"]
        assert config["init_from"] == str(before)
        assert config["seed"] == stage.seed and config["torch_threads"] == 1
    first = torch.load(stages[0], weights_only=True)["config"]
    assert first["init_from"] == "champion@2"

    from rummy500.agents.registry import make_agent
    from rummy500.eval.arena import match_games, play_games
    from rummy_env.core import Rules

    rules = Rules.preset_named("standard", players=2)
    last = make_agent(f"ckpt:{stages[-1]}", rules, 0)
    lineups, deals = match_games(2, 2, 2, duplicate=True)
    result = play_games(
        rules, [last, make_agent("sharp", rules, 1)], lineups, deals, 0, progress=False
    )
    assert (result.winner >= 0).all()

    again = chain("--out", tmp_path, "--scale", 0.0001)
    assert again.returncode == 0, again.stderr[-2000:]
    assert again.stdout.count("skipped") == len(STAGES)


@pytest.mark.parametrize("scale", [0.0, 1.5])
def test_a_scale_outside_its_range_gets_one_line(tmp_path: Path, scale: float) -> None:
    done = chain("--out", tmp_path, "--scale", scale)
    assert done.returncode == 2
    assert f"--scale {scale} must be above 0 and at most 1" in done.stderr
    assert "Traceback" not in done.stderr
    assert not list(tmp_path.iterdir())


def test_an_out_folder_that_cannot_be_made_gets_one_line(tmp_path: Path) -> None:
    (tmp_path / "a_file").write_text("")
    under_a_file = chain("--out", tmp_path / "a_file" / "chain", "--scale", 0.0001)
    assert under_a_file.returncode == 1
    assert under_a_file.stderr.strip().splitlines() == [
        f"champion3: cannot write {tmp_path / 'a_file' / 'chain'}: Not a directory"
    ]
    a_file = chain("--out", tmp_path / "a_file", "--scale", 0.0001)
    assert a_file.returncode == 2
    assert "is a file, not a folder" in a_file.stderr and "Traceback" not in a_file.stderr

"""scripts/fixed_budget_curves.py over real ``rummy500 eval --out`` reports."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from script_support import ROOT, run_script

pytestmark = pytest.mark.slow


def play(out: Path, seed: int, duplicate: bool = True) -> dict:
    """A small real match of Casual against random, its report written to ``out``."""
    cmd = [sys.executable, "-m", "rummy500.cli", "eval", "--agents", "casual", "random"]
    cmd += ["--games", "4", "--seed", str(seed), "--workers", "1", "--no-progress"]
    cmd += ["--set", "target=100", "--out", str(out)] + (["--duplicate"] if duplicate else [])
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads((out / "report.json").read_text())["agents"][0]


def curves(*args: object) -> subprocess.CompletedProcess:
    return run_script("fixed_budget_curves.py", *args, timeout=300)


def test_the_table_and_the_plot_hold_every_reports_win_rate(tmp_path: Path) -> None:
    evals = tmp_path / "evals"
    played = {
        folder: play(evals / folder, seed)
        for seed, folder in enumerate(["mlp_seed1_1000", "mlp_seed1_2000", "cards_seed1_2000"])
    }
    (evals / "notes").mkdir()  # a folder of another name is left alone
    done = curves(evals, "--png", tmp_path / "curves.png")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "| network | seed | 1,000 agent-steps | 2,000 agent-steps |"
    cards_row = next(line for line in lines if line.startswith("| `cards` | 1 |"))
    assert cards_row.split(" | ")[2] == "-"  # no report at 1,000 steps
    for folder, row in played.items():
        cell = (
            f"{100 * row['win_rate']:.1f}% "
            f"({100 * row['duplicate']['win_lo']:.1f}-{100 * row['duplicate']['win_hi']:.1f}%)"
        )
        arch = folder.split("_")[0]
        assert cell in next(line for line in lines if line.startswith(f"| `{arch}` |"))
    assert (tmp_path / "curves.png").stat().st_size > 10_000


def test_bad_input_is_refused_in_one_line(tmp_path: Path) -> None:
    play(tmp_path / "plain" / "mlp_seed1_1000", 0, duplicate=False)
    (tmp_path / "empty").mkdir()
    for folder, words in (
        (tmp_path / "nowhere", "is not a folder"),
        (tmp_path / "empty", "no ARCH_seedS_STEPS/report.json"),
        (tmp_path / "plain", "not a duplicate match"),
    ):
        done = curves(folder)
        assert done.returncode == 2
        assert words in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert "Traceback" not in done.stderr

"""The benchmark protocol: its fit, and the ten-line "write an agent and benchmark it"
example run as a user would."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rummy500.eval.benchmark import TWO_SEATS, fit_rating, rating_interval

PINNED = TWO_SEATS.pinned

pytestmark = pytest.mark.slow

EXAMPLE = Path(__file__).resolve().parents[1] / "docs" / "examples" / "write_an_agent.py"


def test_the_protocol_is_pinned() -> None:
    assert list(PINNED) == ["random", "casual", "sharp", "champion@1", "expert@1"]
    assert list(PINNED.values()) == sorted(PINNED.values())  # the ladder's order
    assert TWO_SEATS.levels["full"].games == 400 and TWO_SEATS.levels["quick"].games == 20


def test_the_fit_puts_an_agent_where_its_results_say() -> None:
    pinned = np.array(list(PINNED.values()))
    games = np.full(pinned.size, 400.0)
    for true in (pinned[1], pinned[2] + 30, pinned[4] + 100):
        expected = games / (1 + 10 ** ((pinned - true) / 400))
        assert abs(fit_rating(expected, games, pinned) - true) < 15
    # Stronger results, higher rating.
    assert fit_rating(games * 0.6, games, pinned) > fit_rating(games * 0.5, games, pinned)


def test_a_clean_sweep_keeps_its_far_side_open() -> None:
    pinned = np.array(list(PINNED.values()))
    won = [np.where(np.arange(pinned.size) == k, 2.0, 0.0) * np.ones((10, 1)) for k in range(5)]
    deals = [(w, w.copy()) for w in won]  # one match a reference, won every game
    rating, lo, hi = rating_interval(deals, pinned)
    assert lo < rating < hi and hi - lo > 200


def test_the_write_an_agent_example_runs() -> None:
    done = subprocess.run(
        [sys.executable, str(EXAMPLE)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=EXAMPLE.parent,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "first-legal: rummy500-bench/2 (quick, 100 duplicate games): rating" in done.stdout
    assert 12 <= len([line for line in EXAMPLE.read_text().splitlines() if line.strip()]) <= 14

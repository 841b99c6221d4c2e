"""Expert iteration (``rummy500.train.distill``): labels that are the expert's own choices, a fit
that moves the network toward them, and a command line that refuses bad input in one line.

Tiny budgets and one game: these check the contract, never strength.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from rummy500.agents.champion import make_champion
from rummy500.agents.registry import make_agent
from rummy500.eval.arena import match_games, play_games
from rummy500.train.distill import LabellingExpert, Labels, agreement, fit
from rummy_env.core import Rules

pytestmark = pytest.mark.slow

pytest.importorskip("torch")

TINY = "expert:worlds=2,candidates=3,horizon=6"
RULES = Rules()


@pytest.fixture(scope="module")
def one_game() -> tuple[LabellingExpert, object]:
    """One game of a tiny expert, labelling every decision, against Sharp; and the
    result of the same game played by the expert unwrapped."""
    lineups, deals = match_games(2, 2, 1, duplicate=False)
    labeller = LabellingExpert(make_agent(TINY, RULES, 5), keep=1.0, seed=5)
    labelled = play_games(
        RULES, [labeller, make_agent("sharp", RULES, 6)], lineups, deals, 9, progress=False
    )
    plain = play_games(
        RULES,
        [make_agent(TINY, RULES, 5), make_agent("sharp", RULES, 6)],
        lineups,
        deals,
        9,
        progress=False,
    )
    return labeller, (labelled, plain)


def test_labelling_does_not_change_the_experts_play(one_game):
    labeller, (labelled, plain) = one_game
    np.testing.assert_array_equal(labelled.totals, plain.totals)
    labels = labeller.labels()
    assert labels.size == labelled.decisions[0]  # keep=1: every decision of the expert
    assert labels.mask[np.arange(labels.size), labels.action].all()
    # Unsearched decisions play the guide's choice; only searched ones may change it.
    assert not labels.changed[~labels.searched].any()
    assert labels.searched.any()


def test_labels_survive_a_save_and_load(one_game, tmp_path: Path):
    labels = one_game[0].labels()
    labels.save(tmp_path / "labels.npz")
    again = Labels.load(tmp_path / "labels.npz")
    for name in ("obs", "mask", "action", "proposed", "searched", "candidates", "gains"):
        np.testing.assert_array_equal(getattr(again, name), getattr(labels, name))


def test_searched_labels_keep_every_candidates_gain(one_game):
    labels = one_game[0].labels()
    searched = np.flatnonzero(labels.searched)
    for i in searched:
        weighed = labels.candidates[i] >= 0
        assert weighed.sum() >= 2 and labels.mask[i, labels.candidates[i, weighed]].all()
        assert np.isfinite(labels.gains[i, weighed]).all()
        assert labels.gains[i, 0] == 0.0  # the guide's choice is the yardstick
        assert labels.action[i] in labels.candidates[i, weighed]
    hard, soft = labels.targets(0.0), labels.targets(5.0)
    np.testing.assert_allclose(hard.sum(axis=1), 1.0, rtol=1e-6)
    np.testing.assert_allclose(soft.sum(axis=1), 1.0, rtol=1e-6)
    unsearched = ~labels.searched
    np.testing.assert_array_equal(soft[unsearched], hard[unsearched])
    best = labels.gains[searched].argmax(axis=1)
    assert (soft[searched].argmax(axis=1) == best).all()  # soft targets favour the best mean
    assert (soft[searched].max(axis=1) < 1.0).any()  # and give the others their share


def test_soft_targets_move_the_network_toward_the_searchs_values(one_game):
    labels = one_game[0].labels()
    searched = np.flatnonzero(labels.searched)
    targets = labels.targets(5.0)[searched]
    policy = make_champion(RULES).policy
    from rummy500.train.distill import candidate_log_probs

    def cross_entropy() -> float:
        import torch

        with torch.no_grad():
            log_probs = candidate_log_probs(policy, labels, searched)
        return float(-(torch.as_tensor(targets) * log_probs).sum(dim=-1).mean())

    before = cross_entropy()
    fit(policy, labels, epochs=20, lr=3e-3, seed=0, held_out=0.0, temperature=5.0)
    assert cross_entropy() < 0.8 * before


def test_labels_written_before_gains_were_kept_still_load(one_game, tmp_path: Path):
    labels = one_game[0].labels()
    old = {
        name: getattr(labels, name) for name in ("obs", "mask", "action", "proposed", "searched")
    }
    np.savez_compressed(tmp_path / "old.npz", **old)
    again = Labels.load(tmp_path / "old.npz")
    np.testing.assert_array_equal(again.candidates[:, 0], labels.action)
    np.testing.assert_array_equal(again.targets(5.0), again.targets(0.0))


def test_fitting_moves_the_network_to_the_experts_choices(one_game):
    labels = one_game[0].labels()
    changed = np.flatnonzero(labels.changed)
    assert changed.size, "the tiny expert changed none of the champion's choices"
    policy = make_champion(RULES).policy
    before = agreement(policy, labels, changed)
    assert before == 0.0  # the champion's greedy choice is what the expert overrode
    fit(policy, labels, epochs=30, lr=3e-3, seed=0, held_out=0.0)
    assert agreement(policy, labels, changed) > 0.5


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "rummy500.train.distill", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    "args, reason",
    [
        (["--games", "0"], "--games and --lr must be positive"),
        (["--players", "3"], "champion: trained only for other rules"),
        (["--labels", "missing.npz"], "--labels missing.npz does not exist"),
        (["--expert", "sharp", "--games", "1"], "'sharp' is not an expert"),
    ],
)
def test_bad_input_is_refused_in_one_line(args, reason, tmp_path: Path):
    result = run_cli("--out", str(tmp_path / "out"), *args)
    assert result.returncode == 2
    assert reason in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out" / "distilled.pt").exists()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_collection_keeps_its_labels(sig, tmp_path: Path):
    """Ctrl-C or SIGTERM while playing: one line naming where the labels are, and they
    load (even where the shell started the program with SIGINT ignored)."""
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "rummy500.train.distill",
            "--out",
            str(out),
            "--games",
            "1000",
            "--expert",
            TINY,
            "--opponents",
            "sharp",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    deadline = time.monotonic() + 120
    while not out.exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)
    time.sleep(8)  # some games under way
    proc.send_signal(sig)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 128 + sig, stderr
    assert len(stderr.strip().splitlines()) == 1 and "labels.npz" in stderr
    assert Labels.load(out / "labels.npz").size > 0

"""Ray RLlib backend: short local runs on the batched env runner (only where the ``rllib``
extra is installed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

pytest.importorskip("ray.rllib", reason="the rllib extra is not installed")

from rummy500.agents.registry import make_agent  # noqa: E402
from rummy500.eval.arena import play_match  # noqa: E402
from rummy500.train.rllib_backend import load_rllib_config, train_rllib  # noqa: E402
from rummy_env.core import Rules  # noqa: E402

RULES = {"preset": "standard", "target": 100}


def short_run(tmp_path: Path, **more) -> dict:
    """A small config: two iterations sampled in the driver, then an evaluation."""
    return {
        "iterations": 2,
        "train_batch_size": 512,
        "num_minibatches": 2,
        "update_epochs": 1,
        "num_env_runners": 0,
        "num_envs": 8,
        "eval_every": 2,
        "eval_games": 2,
        "eval_opponents": ["random"],
        "run_dir": str(tmp_path),
        "rules": RULES,
        "self_play": 0.5,
        "opponents": ["random"],
        **more,
    }


@pytest.fixture(scope="module")
def first_run(tmp_path_factory: pytest.TempPathFactory):
    """One short run shared by the tests below (Ray starts once for the file and is shut
    down after it, so its processes do not outlive the file)."""
    import ray

    out = train_rllib(load_rllib_config(None, short_run(tmp_path_factory.mktemp("rllib"))))
    yield out
    ray.shutdown()


def test_rllib_trains_on_the_batched_runner_and_exports_a_playable_checkpoint(
    first_run: dict,
) -> None:
    # The env penalizes an illegal action by ending the game; the learner's masked
    # distribution (LegalCategorical) must never sample one, so no game ends that way.
    out = first_run
    assert out["global_step"] >= 1024
    assert out["moves_per_second"] > out["steps_per_second"] > 0  # members' moves count too
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(out["run_dir"]))
    events.Reload()
    assert {
        "charts/SPS",
        "charts/moves_per_second",
        "eval/vs_random/win_rate",
        "time/sample_seconds",
        "time/learn_seconds",
    } <= set(events.Tags()["scalars"])

    rules = Rules.from_dict(RULES)
    agent = make_agent(f"ckpt:{out['checkpoint']}", rules)
    result = play_match(rules, [agent, make_agent("random", rules)], games=4, progress=False)
    assert result.n_games == 4 and (result.winner >= 0).all()


def test_a_run_resumes_from_its_rllib_checkpoint(first_run: dict, tmp_path: Path) -> None:
    run = first_run["run_dir"]
    progress = json.loads((run / "rllib_progress.json").read_text())
    assert progress == {"iteration": 2, "checkpoint": "rllib_000002"}
    # A save cut short leaves a folder the progress file does not name: it is ignored.
    (run / "rllib_000003").mkdir()
    again = train_rllib(load_rllib_config(None, short_run(tmp_path, iterations=3)), resume=run)
    assert again["run_dir"] == run
    assert again["global_step"] > first_run["global_step"]  # counted on from the first run
    progress = json.loads((run / "rllib_progress.json").read_text())
    assert progress == {"iteration": 3, "checkpoint": "rllib_000003"}
    assert sorted(p.name for p in run.glob("rllib_0*")) == ["rllib_000003"]


def test_the_cli_refuses_a_resume_without_an_rllib_checkpoint(tmp_path: Path) -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "rummy500.cli",
            "train",
            "--backend",
            "rllib",
            "--resume",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "no RLlib checkpoint there" in done.stderr


def test_the_cli_refuses_a_resume_whose_rllib_checkpoint_folder_is_gone(tmp_path: Path) -> None:
    """The progress file names a folder deleted since: one line, before Ray starts."""
    import subprocess
    import sys

    from rummy500.train.rllib_backend import CONFIG_FILE, PROGRESS_FILE

    (tmp_path / CONFIG_FILE).write_text("{}")
    (tmp_path / PROGRESS_FILE).write_text('{"iteration": 2, "checkpoint": "rllib_000002"}')
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "rummy500.cli",
            "train",
            "--backend",
            "rllib",
            "--resume",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "rllib_000002" in done.stderr
    assert "is missing" in done.stderr

"""``rummy500 train`` errors and interruptions, through the real program (subprocesses).

A bad setting or a refused resume: exit code 2, one line on stderr naming the
key or value, no traceback, nothing on disk created or changed. A resume goes
on as the same run. SIGINT/SIGTERM save ``last.pt`` and print how to resume.
Independent commands run side by side to keep the file fast.
"""

from __future__ import annotations

import hashlib
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from rummy500.agents.checkpoint import read_checkpoint
from rummy500.train.config import load_config
from rummy500.train.config_checks import ConfigError
from rummy500.train.plots import resume_times
from rummy500.train.rllib_backend import load_rllib_config

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
TINY = [
    "num_envs=4",
    "num_steps=8",
    "eval_every=0",
    "eval_games=2",
    "arch_kwargs={hidden: [16]}",
    "opponents=[random, casual]",
    "self_play=0.3",
    "snapshot_every=1",
    "max_snapshots=2",
    "checkpoint_every=1",
    "progress=false",
    "torch_threads=1",
]
"""The smallest run that still exercises the league, snapshots and checkpoints (32 steps an
update; the closing evaluation plays two games against each evaluation opponent)."""


def cli(*args: str) -> list[str]:
    """The command line of ``rummy500 train ARGS``."""
    return [sys.executable, "-m", "rummy500.cli", "train", *args]


def run_train(*args: str, timeout: int = 300) -> subprocess.CompletedProcess:
    """``rummy500 train ARGS`` run to its end from the repository root, output captured."""
    return subprocess.run(cli(*args), cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def run_side_by_side(commands: list[list[str]]) -> list[subprocess.CompletedProcess]:
    """Run the commands at the same time; their results in order."""
    procs = [
        subprocess.Popen(c, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for c in commands
    ]
    results = []
    for command, proc in zip(commands, procs):
        out, err = proc.communicate(timeout=300)
        results.append(subprocess.CompletedProcess(command, proc.returncode, out, err))
    return results


def files_of(folder: Path) -> dict[str, str]:
    """{relative path: sha256} of every file under ``folder``."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def assert_one_line_refusal(done: subprocess.CompletedProcess, *words: str) -> None:
    """Exit code 2, one stderr line naming ``words``, no traceback."""
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rummy500 train: error:"), done.stderr
    for word in words:
        assert word in lines[0], (word, lines[0])


# ----------------------------------------------------------------------------- settings
EXITS = f"cmd:{sys.executable} -c 'import sys; sys.exit(3)'"
"""An outside agent whose process ends before it answers."""

BAD_SETTINGS: dict[str, tuple] = {
    "num_envs text": (["num_envs=many"], "num_envs"),
    "num_envs float": (["num_envs=1.5"], "num_envs"),
    "num_envs bool": (["num_envs=true"], "num_envs"),
    "learning_rate negative": (["learning_rate=-1"], "learning_rate"),
    "learning_rate text": (["learning_rate=abc"], "learning_rate"),
    "arch": (["arch=foo"], "foo"),
    "arch_kwargs key": (["arch_kwargs={nope: 1}"], "nope"),
    "torch_threads": (["torch_threads=-1"], "torch_threads"),
    "checkpoint_every": (["checkpoint_every=0"], "checkpoint_every"),
    "keep_checkpoints": (["keep_checkpoints=-1"], "keep_checkpoints"),
    "eval_every": (["eval_every=-1"], "eval_every"),
    "self_play": (["self_play=2"], "self_play"),
    "gamma": (["gamma=5"], "gamma"),
    "rules text": (["rules=standard"], "rules"),
    "rules flag": (["rules.players=9"], "players"),
    "unknown key": (["learning_rat=0.1"], "learning_rat"),
    "opponent name": (["opponents=nobody"], "nobody"),
    "opponent that does not start": ([f"opponents=[{EXITS}]"], "opponents", "exit code 3"),
    "teacher name": (["teacher=nobody"], "teacher", "nobody"),
    "teacher that does not start": ([f"teacher={EXITS}"], "teacher", "exit code 3"),
    "evaluation opponent that does not start": (
        [f"eval_opponents=[{EXITS}]"],
        "eval_opponents",
        "exit code 3",
    ),
    "rllib opponent that does not start": (
        ["--backend", "rllib", "--config", "rllib_selfplay", f"opponents=[{EXITS}]"],
        "opponents",
        "exit code 3",
    ),
    "override yaml": (["num_envs=["], "num_envs=["),
    "config file yaml": (["--config", "BAD_YAML"], "line 2"),
    "config file missing": (["--config", "no_such.yaml"], "no_such.yaml"),
    "init_from missing": (["init_from=no_such.pt"], "no_such.pt"),
    "init_from network": (["init_from=champion", "arch_kwargs={hidden: [16]}"], "arch_kwargs"),
    "init_from rules": (["init_from=champion", "rules.players=3"], "players=2"),
    "init_rules": (["init_rules=sometimes"], "init_rules"),
    "precision": (["precision=half"], "precision"),
    "init_rules any, other seats": (
        [
            "init_from=agents/champions/v1/standard_2p.pt",
            "init_rules=any",
            "arch_kwargs={hidden: [256, 128]}",
            "rules.players=3",
        ],
        "observation entries",
    ),
}
if not torch.cuda.is_available():
    BAD_SETTINGS["no cuda"] = (["--device", "cuda"], "cuda")


@pytest.fixture(scope="module")
def bad_setting_results(tmp_path_factory) -> dict[str, tuple[subprocess.CompletedProcess, Path]]:
    """Every bad setting run once, side by side, each with its own (unused) run folder."""
    tmp = tmp_path_factory.mktemp("bad")
    bad_yaml = tmp / "bad.yaml"
    bad_yaml.write_text("num_envs: 4\n  total_steps: [\n")
    commands, runs = [], []
    for i, (args, *_) in enumerate(BAD_SETTINGS.values()):
        runs.append(tmp / f"runs{i}")
        args = [str(bad_yaml) if a == "BAD_YAML" else a for a in args]
        commands.append(cli(*args, f"run_dir={runs[-1]}"))
    results = run_side_by_side(commands)
    return dict(zip(BAD_SETTINGS, zip(results, runs)))


@pytest.mark.parametrize("case", list(BAD_SETTINGS))
def test_bad_setting_is_refused_in_one_line_before_any_work(case, bad_setting_results) -> None:
    done, runs = bad_setting_results[case]
    assert_one_line_refusal(done, *BAD_SETTINGS[case][1:])
    assert not runs.exists(), "a refused run must not create its run folder"


def test_an_evaluation_opponent_that_fails_stops_in_one_line_and_the_run_resumes(
    tmp_path: Path,
) -> None:
    """An evaluation opponent that starts but fails in play stops the run in one line, with
    the update it had finished saved, and a resume with another opponent goes on from
    there."""
    fails_in_play = tmp_path / "fails_in_play.py"
    fails_in_play.write_text(  # answers the protocol's hello, ends at its first decision
        "import sys\nsys.stdin.readline()\nprint('{}', flush=True)\nsys.stdin.readline()\n"
        "sys.exit(4)\n"
    )
    runs = tmp_path / "runs"
    done = run_train(
        *TINY,
        "total_steps=96",
        "eval_every=2",
        f"eval_opponents=[cmd:{sys.executable} {fails_in_play}]",
        f"run_dir={runs}",
    )
    assert done.returncode == 1, done.stderr[-2000:]
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "exit code 4" in lines[0] and "evaluation" in lines[0], lines
    (run,) = runs.iterdir()
    assert read_checkpoint(run / "last.pt")["global_step"] == 64
    resumed = run_train("--resume", str(run), "eval_opponents=[random]")
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert read_checkpoint(run / "last.pt")["global_step"] == 96


def test_a_run_folder_that_cannot_be_made_is_refused_before_any_work(tmp_path: Path) -> None:
    a_file = tmp_path / "a_file"
    a_file.write_text("keep me")
    for run_dir, words in (
        (a_file, "exists and is not a folder"),
        (a_file / "runs", "a_file is a file, not a folder"),
    ):
        done = run_train(*TINY, f"run_dir={run_dir}")
        assert_one_line_refusal(done, "run_dir", words)
    assert a_file.read_text() == "keep me"


def test_settings_shorthands_and_rllib_share_the_checks() -> None:
    assert load_config(None, ["opponents=random"]).opponents == ["random"]
    assert load_config(None, ["learning_rate=3e-4", "max_minutes=2"]).max_minutes == 2.0
    assert load_config(None, ["keep_checkpoints=0"]).keep_checkpoints == 0
    with pytest.raises(ConfigError, match="learning_rate=-1"):
        load_rllib_config(None, ["learning_rate=-1"])
    with pytest.raises(ConfigError, match="hidden"):
        load_rllib_config(None, ["arch_kwargs={hidden: [0]}"])


def test_a_key_the_backend_does_not_use_is_refused_by_name() -> None:
    rllib = load_rllib_config("rllib_selfplay")
    builtin = load_config("selfplay")
    for key in (
        "learning_rate",
        "gae_lambda",
        "update_epochs",
        "ent_coef",
        "self_play",
        "opponents",
        "eval_opponents",
        "arch_kwargs",
    ):  # one vocabulary
        assert getattr(rllib, key) == getattr(builtin, key), key
    with pytest.raises(
        ConfigError,
        match=r"^config: precision is a setting of the builtin "
        r"backend; --backend rllib does not use it$",
    ):
        load_rllib_config(None, ["precision=auto"])
    with pytest.raises(ConfigError, match="num_env_runners is a setting of the rllib backend"):
        load_config(None, ["num_env_runners=2"])
    done = run_train("--config", "rllib_selfplay", timeout=120)
    assert_one_line_refusal(done, "iterations", "--backend builtin does not use it")


def test_a_warm_start_begins_at_the_champions_weights(tmp_path: Path) -> None:
    from rummy500.agents.champion import champion_checkpoint
    from rummy_env.core import Rules

    done = run_train(
        *TINY,
        "init_from=champion",
        "arch_kwargs={hidden: [256, 128]}",
        "total_steps=32",
        f"run_dir={tmp_path}",
    )
    assert done.returncode == 0, done.stderr[-3000:]
    (run,) = tmp_path.iterdir()
    trained = read_checkpoint(run / "last.pt")["state_dict"]
    _, champion = champion_checkpoint(Rules.from_dict({"players": 2}))
    moved = max(float((trained[k] - v).abs().max()) for k, v in champion["state_dict"].items())
    assert 0 < moved < 0.01  # one update of 8 Adam steps at 3e-4 from the champion's weights


def test_init_rules_any_transfers_the_champion_to_a_variant(tmp_path: Path) -> None:
    """The standard champion's weights start a ``web`` run (refused without init_rules)."""
    from rummy500.agents.champion import champion_checkpoint
    from rummy_env.core import Rules

    start = [
        "init_from=agents/champions/v1/standard_2p.pt",
        "arch_kwargs={hidden: [256, 128]}",
        "rules={preset: web, players: 2}",
        "total_steps=32",
        f"run_dir={tmp_path}",
    ]
    refused = run_train(*TINY, *start)
    assert_one_line_refusal(refused, "other rules")
    done = run_train(*TINY, *start, "init_rules=any")
    assert done.returncode == 0, done.stderr[-3000:]
    (run,) = tmp_path.iterdir()
    trained = read_checkpoint(run / "last.pt")
    assert Rules.from_dict(trained["rules"]) == Rules.preset_named("web")
    _, champion = champion_checkpoint(Rules.from_dict({"players": 2}), 1)
    moved = max(
        float((trained["state_dict"][k] - v).abs().max()) for k, v in champion["state_dict"].items()
    )
    assert 0 < moved < 0.01


# ----------------------------------------------------------------------------- resume
@pytest.fixture(scope="module")
def finished_run(tmp_path_factory) -> Path:
    """A finished run of 4 updates (128 agent-steps) keeping every numbered checkpoint."""
    root = tmp_path_factory.mktemp("runs")
    done = run_train(*TINY, "total_steps=128", "keep_checkpoints=4", f"run_dir={root}")
    assert done.returncode == 0, done.stderr[-3000:]
    (run,) = root.iterdir()
    return run


def test_resume_refusals_change_nothing(finished_run: Path, tmp_path: Path) -> None:
    damaged = tmp_path / "damaged"
    shutil.copytree(finished_run, damaged)
    data = (damaged / "last.pt").read_bytes()
    (damaged / "last.pt").write_bytes(data[: len(data) // 2])
    (damaged / "step_000000000128.pt").write_bytes(b"cut")
    other_obs = tmp_path / "other_obs"  # trained on another observation encoding
    shutil.copytree(finished_run, other_obs)
    payload = torch.load(other_obs / "last.pt", weights_only=True)
    torch.save({**payload, "obs_version": -1}, other_obs / "last.pt")
    before = {run: files_of(run) for run in (finished_run, damaged, other_obs)}
    quickstart = str(ROOT / "configs/train/quickstart.yaml")
    cases = [
        (["--resume", str(finished_run), "rules={preset: web}"], ["rules", "different run"]),
        (
            [
                "--resume",
                str(finished_run),
                "rules.players=3",
                "num_envs=8",
                "seed=2",
                "total_steps=256",
            ],
            ["rules", "num_envs", "seed"],
        ),
        (
            ["--resume", str(finished_run), "--config", quickstart, "total_steps=256"],
            ["arch_kwargs", "without --config"],
        ),
        (["--resume", str(finished_run)], ["finished", "total_steps=256"]),
        (
            ["--resume", str(damaged), "total_steps=256"],
            ["last.pt is damaged", "step_000000000096.pt", "cp "],
        ),
        (
            ["--resume", str(other_obs), "total_steps=256"],
            ["observation version -1", "start a new one"],
        ),
    ]
    results = run_side_by_side([cli(*args) for args, _ in cases])
    for (_, words), done in zip(cases, results):
        assert_one_line_refusal(done, *words)
    assert {run: files_of(run) for run in before} == before


def test_a_run_saved_before_a_setting_existed_resumes_with_its_default() -> None:
    from rummy500.train.resume import check_same_run

    cfg = load_config(None, TINY)
    stored = cfg.to_dict()
    del stored["init_from"]  # a run written before warm starts existed
    check_same_run(stored, cfg, Path("run"))
    with pytest.raises(ConfigError, match="init_from"):
        check_same_run(stored, load_config(None, [*TINY, "init_from=best.pt"]), Path("run"))


def test_resume_continues_the_same_run(finished_run: Path, tmp_path: Path) -> None:
    """From the checkpoint after update 2, with no config given, a resume ends at step 128
    with the very weights and league of the run that never stopped; a leftover *.tmp of a
    killed save is removed."""
    resumed = tmp_path / "resumed"
    resumed.mkdir()
    shutil.copy(finished_run / "step_000000000064.pt", resumed / "last.pt")
    for events in finished_run.glob("events.out.tfevents.*"):
        shutil.copy(events, resumed / events.name)
    (resumed / "last.ptkilled.tmp").write_bytes(b"half a checkpoint")
    done = run_train("--resume", str(resumed))
    assert done.returncode == 0, done.stderr[-3000:]
    assert not list(resumed.glob("*.tmp"))
    assert resume_times(resumed).size == 1  # the curves' clock finds the resume
    ours, theirs = read_checkpoint(resumed / "last.pt"), read_checkpoint(finished_run / "last.pt")
    assert ours["global_step"] == theirs["global_step"] == 128
    for key, value in theirs["state_dict"].items():
        assert torch.equal(value, ours["state_dict"][key]), key
    league = [(m["name"], m["win_rate"]) for m in ours["extra"]["run_state"]["league"]]
    assert league == [(m["name"], m["win_rate"]) for m in theirs["extra"]["run_state"]["league"]]


def test_a_checkpoint_with_one_member_a_game_resumes_the_same_run(
    finished_run: Path, tmp_path: Path
) -> None:
    """A checkpoint written when each game held one league member (int [B], before tables
    were seated seat by seat) resumes to the very weights of the run that never stopped."""
    resumed = tmp_path / "resumed"
    resumed.mkdir()
    payload = read_checkpoint(finished_run / "step_000000000064.pt")
    seating = payload["extra"]["run_state"]["seating"]
    seating["member"] = seating["member"].max(dim=1).values  # SELF is -1, members >= 0
    torch.save(payload, resumed / "last.pt")
    done = run_train("--resume", str(resumed))
    assert done.returncode == 0, done.stderr[-3000:]
    ours, theirs = read_checkpoint(resumed / "last.pt"), read_checkpoint(finished_run / "last.pt")
    for key, value in theirs["state_dict"].items():
        assert torch.equal(value, ours["state_dict"][key]), key


def test_four_players_train_at_mixed_tables_and_the_suggested_eval_runs(tmp_path: Path) -> None:
    done = run_train(
        *TINY,
        "rules.players=4",
        "rules.target=150",
        "mixed_tables=true",
        "self_play=0",
        "snapshot_every=0",
        "total_steps=96",
        f"run_dir={tmp_path}",
    )
    assert done.returncode == 0, done.stderr[-3000:]
    (run,) = tmp_path.iterdir()
    state = read_checkpoint(run / "last.pt")["extra"]["run_state"]
    tables = state["seating"]["member"]
    assert tables.shape == (4, 4) and ((tables == -1).sum(dim=1) == 1).all()
    assert [m["name"] for m in state["league"]] == ["random", "casual"]
    # The command printed to play the result names the run's rules and fills every seat.
    (suggested,) = [
        line.split() for line in done.stdout.splitlines() if line.startswith("  rummy500 eval ")
    ]
    assert suggested[:2] == ["rummy500", "eval"] and suggested.count("sharp") == 3
    assert suggested[-3:] == ["--games", "400", "--duplicate"]
    suggested = suggested[:-3]
    played = subprocess.run(
        [sys.executable, "-m", "rummy500.cli", *suggested[1:], "--games", "4", "--no-progress"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert played.returncode == 0, played.stderr[-3000:]


# ----------------------------------------------------------------------------- signals
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_signal_saves_last_pt_and_says_how_to_resume(sig, tmp_path: Path) -> None:
    proc = subprocess.Popen(
        cli(*TINY, "total_steps=100000000", "keep_checkpoints=0", f"run_dir={tmp_path}"),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.time() + 240
    while not list(tmp_path.glob("*/last.pt")) and time.time() < deadline:
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.2)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 128 + sig, (proc.returncode, err[-3000:])
    assert "Traceback" not in err, err[-3000:]
    (run,) = tmp_path.iterdir()
    assert f"run ended: stopped by {sig.name} at step" in out
    assert "evaluation at step" in out and f"rummy500 train --resume {run}" in out
    assert not list(run.glob("step_*.pt")), "keep_checkpoints=0 writes no numbered checkpoint"
    step = read_checkpoint(run / "last.pt")["global_step"]
    assert 0 < step < 100_000_000 and step % 32 == 0
    if sig == signal.SIGINT:
        done = run_train("--resume", str(run), f"total_steps={step + 64}")
        assert done.returncode == 0, done.stderr[-3000:]
        assert read_checkpoint(run / "last.pt")["global_step"] == step + 64


def test_a_run_stopped_by_max_minutes_says_so_and_still_evaluates(tmp_path: Path) -> None:
    done = run_train(
        *TINY,
        "total_steps=100000000",
        "max_minutes=0.05",
        "eval_opponents=[random, casual]",
        f"run_dir={tmp_path}",
    )
    assert done.returncode == 0, done.stderr[-3000:]
    (run,) = tmp_path.iterdir()
    out = done.stdout
    assert "run ended: max_minutes=0.05 reached at step" in out, out
    assert "of 100,000,000" in out and f"rummy500 train --resume {run}" in out
    for opponent in ("random", "casual"):
        assert f"  vs {opponent}: win rate " in out, out
    assert (run / "learning_curves.png").is_file() and f"plot         {run}" in out


def test_a_diverging_run_stops_in_one_line_before_writing(tmp_path: Path) -> None:
    blown = subprocess.run(
        cli(
            "--config",
            "quickstart",
            *TINY,
            f"run_dir={tmp_path}",
            "learning_rate=1e30",
            "total_steps=4096",
        ),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert blown.returncode == 1, blown.stderr
    assert "training diverged" in blown.stderr.strip().splitlines()[-1]
    assert "Traceback" not in blown.stderr and not list(tmp_path.glob("*/*.pt"))


def test_a_non_finite_weight_is_never_saved_over_a_good_checkpoint(tmp_path: Path) -> None:
    from rummy500.train.ppo import TrainingDiverged, start_run

    run = start_run(load_config("quickstart", [*TINY, f"run_dir={tmp_path}"]), None)
    run.save(run.run_dir / "last.pt", 1)
    good = (run.run_dir / "last.pt").read_bytes()
    with torch.no_grad():
        next(run.policy.parameters())[0] = float("nan")
    with pytest.raises(TrainingDiverged, match="not finite"):
        run.save(run.run_dir / "last.pt", 2)
    assert (run.run_dir / "last.pt").read_bytes() == good


def test_a_checkpoint_with_one_flipped_bit_is_refused(tmp_path: Path) -> None:
    import zipfile

    source = Path(__file__).resolve().parents[1] / "agents" / "champions" / "v1" / "standard_2p.pt"
    data = bytearray(source.read_bytes())
    part = max(zipfile.ZipFile(source).infolist(), key=lambda info: info.file_size)
    data[part.header_offset + 30 + len(part.filename) + len(part.extra) + part.file_size // 2] ^= (
        0x04
    )
    flipped = tmp_path / "flipped.pt"
    flipped.write_bytes(bytes(data))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "rummy500.cli",
            "eval",
            "--agents",
            f"ckpt:{flipped}",
            "sharp",
            "--games",
            "2",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2 and "fails its checksum" in done.stderr
    assert "Traceback" not in done.stderr


def test_two_processes_cannot_train_in_one_run(tmp_path: Path) -> None:
    from rummy500.train.run_folder import lock_run

    run = tmp_path / "run"
    run.mkdir()
    held = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\n"
            "from pathlib import Path\n"
            "from rummy500.train.run_folder import lock_run\n"
            f"lock = lock_run(Path({str(run)!r}))\n"
            "print('locked', flush=True)\ntime.sleep(60)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert held.stdout.readline().strip() == "locked"
        with pytest.raises(ConfigError, match=f"being trained by process {held.pid}"):
            lock_run(run)
    finally:
        held.kill()
        held.wait()
    assert lock_run(run) is not None  # the killed holder's lock is stale: free again


def test_runs_killed_at_random_moments_resume_to_the_uninterrupted_weights(tmp_path: Path):
    """SIGKILL at random moments (mid-update, mid-save, before the first checkpoint), then
    resume until the run ends: three such runs all end with the weights, step and league of
    one that never stopped."""
    import random

    settings = [*TINY, "total_steps=640"]  # 20 updates, a checkpoint after each
    started = time.monotonic()
    reference = run_train(*settings, f"run_dir={tmp_path / 'reference'}", timeout=600)
    whole = time.monotonic() - started  # start-up included: kills land anywhere in a run
    assert reference.returncode == 0, reference.stderr[-2000:]
    (expected,) = (tmp_path / "reference").iterdir()
    theirs = read_checkpoint(expected / "last.pt")
    chance = random.Random(20261206)
    all_kills = 0
    for attempt in range(3):
        root = tmp_path / f"killed{attempt}"
        kills = 0
        while True:
            runs = [run for run in root.glob("*") if (run / "last.pt").exists()]
            command = cli("--resume", str(runs[0])) if runs else cli(*settings, f"run_dir={root}")
            if not runs:  # killed before its first checkpoint: start again from nothing
                shutil.rmtree(root, ignore_errors=True)
            process = subprocess.Popen(
                command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
            )
            try:
                process.wait(timeout=chance.uniform(0.2, 0.9) * whole if kills < 4 else 600)
            except subprocess.TimeoutExpired:
                process.send_signal(signal.SIGKILL)
                process.wait()
                kills += 1
                continue
            said = process.stderr.read()
            # Killed after its last checkpoint: the resume says the run is already finished.
            assert process.returncode == 0 or "is finished" in said, said[-2000:]
            break
        all_kills += kills
        (run,) = [run for run in root.iterdir() if (run / "last.pt").exists()]
        ours = read_checkpoint(run / "last.pt")
        assert ours["global_step"] == theirs["global_step"] == 640
        for key, value in theirs["state_dict"].items():
            assert torch.equal(value, ours["state_dict"][key]), (attempt, kills, key)
        assert [m["name"] for m in ours["extra"]["run_state"]["league"]] == [
            m["name"] for m in theirs["extra"]["run_state"]["league"]
        ]
    assert all_kills >= 3

"""The wheel works alone: built from the checkout, installed in a fresh virtual environment
and used from an empty folder that holds a user's own ``agents/``, ``eval/`` and ``train.py``.

Slow (it installs the dependencies into the new environment: torch from the local build as
the set-up does, the rest from the package index), so it is one test that walks the quick
start: imports, a short training run of the packaged quickstart recipe, a match of the
champion against Sharp, and one page from ``rummy500 serve``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import urllib.request
import venv
import zipfile
from pathlib import Path

import pytest
from package_layout import ROOT, TOP_LEVEL, module_name, source_files

pytestmark = pytest.mark.slow

TORCH = "torch==2.13.0"
"""The CPU build the set-up installs (scripts/install.sh)."""


def run(*command: str | Path, cwd: Path, timeout: float = 600) -> str:
    done = subprocess.run(
        [str(c) for c in command], cwd=cwd, capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, f"{command}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """Built from a copy, so the build leaves nothing in the checkout."""
    out, source = tmp_path_factory.mktemp("wheel"), tmp_path_factory.mktemp("source") / "src"
    shutil.copytree(
        ROOT,
        source,
        ignore=shutil.ignore_patterns(
            ".git", "build", "dist", "runs", "records", "*.egg-info", "__pycache__"
        ),
    )
    run(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", out, source, cwd=out)
    (built,) = out.glob("rummy500-*.whl")
    return built


def test_the_wheel_holds_two_import_names_and_every_module(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    top = {name.split("/")[0] for name in names if ".dist-info/" not in name}
    assert top == {"rummy_env", "rummy500"} == set(TOP_LEVEL)
    shipped = {
        name.removesuffix(".py").replace("/", ".").removesuffix(".__init__")
        for name in names
        if name.endswith(".py")
    }
    assert {module_name(path) for path in source_files()} == shipped
    for data in (
        "rummy500/configs/train/quickstart.yaml",
        "rummy500/configs/rules/web.yaml",
        "rummy500/agents/champions/v1/standard_2p.pt",
        "rummy500/web/static/index.html",
    ):
        assert data in names


def test_every_python_folder_of_the_checkout_ships() -> None:
    """A new folder of modules must be added to pyproject.toml's packages, or it would be
    left out of the wheel."""
    shipped = {path.resolve() for path in source_files()}
    for folder in ("rummy_env", "rummy500", "agents", "train", "eval", "configs"):
        for path in (ROOT / folder).rglob("*.py"):
            assert path.resolve() in shipped, f"{path.relative_to(ROOT)} is not packaged"


def test_the_installed_wheel_runs_the_quick_start_beside_a_users_own_folders(
    wheel: Path, tmp_path: Path
) -> None:
    env = tmp_path / "venv"
    venv.create(env, with_pip=True)
    python, rummy500 = env / "bin" / "python", env / "bin" / "rummy500"
    run(python, "-m", "pip", "install", "-q", TORCH, cwd=tmp_path)
    run(python, "-m", "pip", "install", "-q", f"{wheel}[plots]", TORCH, cwd=tmp_path)
    top_level = run(
        python,
        "-c",
        "import importlib.metadata as m; print(sorted({f.parts[0] "
        "for f in m.distribution('rummy500').files if f.suffix == '.py'}))",
        cwd=tmp_path,
    )
    assert top_level.strip() == "['rummy500', 'rummy_env']"

    work = tmp_path / "project"  # a user's own project with everyday names
    for package in ("agents", "eval"):
        (work / package).mkdir(parents=True)
        (work / package / "__init__.py").write_text("MINE = True\n")
    (work / "train.py").write_text("raise SystemExit('the user train.py was imported')\n")

    run(
        python,
        "-c",
        "import agents, eval; assert agents.MINE and eval.MINE\n"
        "import rummy_env, rummy500\n"
        "from rummy500.agents.registry import make_agent\n"
        "from rummy500.eval.arena import play_match\n"
        "from rummy500.train.config import load_config\n"
        "assert load_config('quickstart').exp_name == 'quickstart'\n"
        "import gymnasium; gymnasium.make('Rummy500-v1')",
        cwd=work,
    )
    trained = run(
        rummy500,
        "train",
        "--config",
        "quickstart",
        "total_steps=5000",
        "num_envs=32",
        "num_steps=64",
        "eval_games=4",
        "progress=false",
        "rules.target=100",
        "run_dir=runs",
        cwd=work,
    )
    (run_dir,) = (work / "runs").iterdir()
    # The closing summary: the rounded budget said, why it stopped, the closing evaluation
    # against the recipe's opponents with intervals, the files and the next commands.
    assert "total_steps=5,000 runs as 4,096" in trained
    assert "run ended: its steps were done at step 4,096 of 4,096" in trained
    assert re.search(r"evaluation at step 4,096 \(4 duplicate games each", trained)
    for opponent in ("casual", "sharp"):
        assert re.search(rf"vs {opponent}: win rate \d+\.\d%( \(\d+\.\d%-\d+\.\d%\))", trained), (
            trained
        )
    plot = run_dir / "learning_curves.png"
    for path in (run_dir / "last.pt", run_dir / "best.pt", plot):
        assert str(path.relative_to(work)) in trained and path.is_file(), path
    assert plot.stat().st_size > 10_000 and list(run_dir.glob("events.*"))
    (play,) = [line for line in trained.splitlines() if "rummy500 eval --agents" in line]
    assert "ckpt:runs/" in play and "target=100" in play  # under the run's own rules
    assert "rummy500 benchmark" not in trained  # the protocol's rules are not the run's
    match = run(
        python,
        "-m",
        "rummy500.cli",
        "eval",
        "--agents",
        "champion",
        "sharp",
        "--games",
        "4",
        cwd=work,
    )  # -m: the folder, decoys and all, is on sys.path
    assert "champion" in match and "sharp" in match

    server = subprocess.Popen(
        [str(rummy500), "serve", "--port", "0"],
        cwd=work,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        url = re.search(r"http://127\.0\.0\.1:\d+/", server.stdout.readline()).group(0)
        with urllib.request.urlopen(url, timeout=30) as page:
            assert page.status == 200 and b"<html" in page.read().lower()
    finally:
        server.terminate()
        server.wait(timeout=30)

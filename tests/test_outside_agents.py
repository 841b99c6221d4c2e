"""Agents from outside the project, through the real ``rummy500`` command: a factory in a
module of the working folder, an installed plug-in, a MaskablePPO model, processes in
Python and JavaScript; and every bad form refused in one line with a non-zero exit."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
PROCESS_AGENTS = ROOT / "docs" / "examples" / "process_agents"
AGENT_FAILED = 3

BOTS = """
import numpy as np


class FirstLegal:
    def __init__(self, rules, seed):
        self.name = "first-legal"

    def act(self, decision):
        return decision.mask.argmax(axis=1)


def make(rules, seed):
    return FirstLegal(rules, seed)


NOT_A_FACTORY = 3


def makes_no_agent(rules, seed):
    return "not an agent"


def raises(rules, seed):
    raise RuntimeError("no weights here")
"""


def rummy500(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "rummy500.cli", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def assert_one_line(done: subprocess.CompletedProcess, *words: str, code: int | None = None) -> str:
    """A non-zero exit, one error line on stderr naming ``words`` (beside the "playing N
    games" status line of a match that started), no traceback."""
    assert done.returncode != 0 and (code is None or done.returncode == code), (
        done.returncode,
        done.stdout[-2000:],
        done.stderr[-2000:],
    )
    lines = [line for line in done.stderr.strip().splitlines() if not line.startswith("playing")]
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "my_bots.py").write_text(BOTS)
    return tmp_path


def test_a_factory_in_the_working_folder_plays_eval(work: Path) -> None:
    for spec in ("py:my_bots:make", "py:my_bots:FirstLegal"):
        done = rummy500(
            "eval", "--agents", spec, "random", "--games", "4", "--no-progress", cwd=work
        )
        assert done.returncode == 0, done.stderr
        assert "| first-legal | 4 |" in done.stdout


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("py:no_such_module:make", ["cannot import", "no_such_module"]),
        ("py:my_bots:nope", ["has no 'nope'"]),
        ("py:my_bots:NOT_A_FACTORY", ["not a factory"]),
        ("py:my_bots:makes_no_agent", ["no agent"]),
        ("py:my_bots:raises", ["RuntimeError", "no weights here"]),
        ("py:my_bots", ["name a module and a factory"]),
        ("cmd:no_such_program_here", ["no program"]),
        ("cmd[speed=3]:python3 x.py", ["unknown option 'speed'"]),
        ("cmd[timeout=-1]:python3 x.py", ["timeout"]),
        ("sb3:missing.zip", ["no such file"]),
        ("grandmaster", ["unknown agent", "py:MODULE:NAME", "cmd:COMMAND"]),
    ],
)
def test_each_bad_spec_is_one_line_before_any_game(work: Path, spec: str, words: list[str]) -> None:
    done = rummy500("eval", "--agents", spec, "random", "--games", "4", cwd=work)
    assert_one_line(done, *words, code=2)
    assert "playing" not in done.stderr


def test_a_file_that_is_no_checkpoint_says_what_it_looks_like(work: Path) -> None:
    import zipfile

    with zipfile.ZipFile(work / "model.zip", "w") as archive:
        archive.writestr("_stable_baselines3_version", "2.0")
        archive.writestr("data", "{}")
    assert_one_line(
        rummy500("eval", "--agents", "ckpt:model.zip", "random", cwd=work),
        "Stable-Baselines3",
        "sb3:model.zip",
    )
    (work / "run").mkdir()
    assert_one_line(rummy500("eval", "--agents", "ckpt:run", "random", cwd=work), "folder")


def test_an_installed_plug_in_plays_by_its_name(work: Path, tmp_path_factory) -> None:
    """A real package with an entry point in the group rummy500.agents, installed by pip
    into a folder of its own that the command finds on PYTHONPATH."""
    source = tmp_path_factory.mktemp("plugin")
    (source / "toy_rummy_bot.py").write_text(BOTS.replace('"first-legal"', '"toy-bot"'))
    (source / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=64"]\nbuild-backend = "setuptools.build_meta"\n'
        '[project]\nname = "toy-rummy-bot"\nversion = "0.1"\n'
        '[project.entry-points."rummy500.agents"]\ntoybot = "toy_rummy_bot:make"\n'
        '[tool.setuptools]\npy-modules = ["toy_rummy_bot"]\n'
    )
    target = tmp_path_factory.mktemp("site")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--target",
            str(target),
            str(source),
        ],
        check=True,
        capture_output=True,
        timeout=600,
    )
    env = {**__import__("os").environ, "PYTHONPATH": str(target)}
    done = rummy500(
        "eval", "--agents", "toybot", "random", "--games", "4", "--no-progress", cwd=work, env=env
    )
    assert done.returncode == 0, done.stderr
    assert "| toy-bot | 4 |" in done.stdout
    assert_one_line(rummy500("eval", "--agents", "toybot", "random", cwd=work), "unknown agent")


@pytest.mark.parametrize("batch", [False, True], ids=["one-by-one", "batched"])
def test_a_python_process_that_does_not_import_the_project_plays_a_match(
    work: Path, batch: bool
) -> None:
    script = PROCESS_AGENTS / "first_legal.py"
    assert "rummy" not in "".join(
        line for line in script.read_text().splitlines() if line.startswith(("import", "from"))
    )
    command = f"cmd:{sys.executable} {script}" + (" --batch" if batch else "")
    done = rummy500(
        "eval",
        "--agents",
        command,
        "sharp",
        "--games",
        "6",
        "--no-progress",
        "--out",
        str(work / "out"),
        cwd=work,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads((work / "out" / "report.json").read_text())
    named = {a["agent"]: a for a in report["agents"]}
    assert named["first-legal (python)"]["games"] == 6


def test_a_javascript_process_plays_a_match(work: Path) -> None:
    if shutil.which("node") is None:
        pytest.skip("Node.js is not installed: the JavaScript example needs node")
    done = rummy500(
        "eval",
        "--agents",
        f"cmd:node {PROCESS_AGENTS / 'first_legal.js'}",
        "random",
        "--games",
        "4",
        "--no-progress",
        cwd=work,
    )
    assert done.returncode == 0, done.stderr
    assert "| first-legal (node) | 4 |" in done.stdout


PROCESS_FAULTS = {
    "dies": (
        "import sys; sys.stdin.readline(); print('{}', flush=True); sys.stdin.readline();"
        " sys.stderr.write('out of memory\\n'); sys.exit(7)",
        ["exit code 7", "out of memory"],
    ),
    "illegal": (
        "import sys, json\nfor line in sys.stdin:\n    m = json.loads(line)\n"
        "    print(json.dumps({} if 'hello' in m else {'action': 'discard JK'}), "
        "flush=True)",
        ["illegal action", "discard JK"],
    ),
    "not JSON": (
        "import sys\nfor line in sys.stdin:\n    print('{}' if 'hello' in line "
        "else 'draw please', flush=True)",
        ["not JSON", "draw please"],
    ),
    "late": (
        "import sys, time\nsys.stdin.readline(); print('{}', flush=True)\n"
        "sys.stdin.readline(); time.sleep(30)",
        ["no reply within 0.5 s"],
    ),
}


@pytest.mark.parametrize("fault", PROCESS_FAULTS)
def test_a_process_that_fails_ends_the_match_in_one_line(work: Path, fault: str) -> None:
    code, words = PROCESS_FAULTS[fault]
    (work / "bot.py").write_text(code)
    spec = f"cmd[timeout=0.5]:{sys.executable} bot.py"
    done = rummy500("eval", "--agents", spec, "random", "--games", "4", "--no-progress", cwd=work)
    assert_one_line(done, *words, code=AGENT_FAILED)


def test_a_process_that_fails_mid_match_reports_the_games_finished(work: Path) -> None:
    (work / "bot.py").write_text(
        "import sys, json\nn = 0\nfor line in sys.stdin:\n    m = json.loads(line)\n"
        "    n += 1\n    if 'hello' in m:\n        print('{}', flush=True); continue\n"
        "    print(json.dumps({'action': m['legal'][0]['id'] if n < 1500 else -1}), "
        "flush=True)\n"
    )
    done = rummy500(
        "eval",
        "--agents",
        f"cmd:{sys.executable} bot.py",
        "random",
        "--games",
        "8",
        "--batch-size",
        "2",
        "--no-progress",
        "--seed",
        "0",
        "--agent-seed",
        "0",
        cwd=work,
    )  # seeds given: the same games, so the fault comes mid-match
    line = assert_one_line(done, "illegal action", "finished games", code=AGENT_FAILED)
    finished = int(line.split("stopped after ")[1].split()[0])
    assert 0 < finished < 8
    assert f"random: {finished} games" in done.stdout


def test_a_maskable_ppo_model_plays_as_sb3(work: Path) -> None:
    pytest.importorskip("sb3_contrib", reason="sb3-contrib is not installed (the [clients] extra)")
    train = (
        "import gymnasium, rummy_env\nfrom sb3_contrib import MaskablePPO\n"
        "env = gymnasium.make('Rummy500-v1')\n"
        "model = MaskablePPO('MlpPolicy', env, n_steps=256, batch_size=64, seed=0)\n"
        "model.learn(2048)\nmodel.save('maskable')\n"
    )
    subprocess.run(
        [sys.executable, "-c", train], cwd=work, check=True, timeout=600, capture_output=True
    )
    done = rummy500(
        "eval", "--agents", "sb3:maskable.zip", "random", "--games", "4", "--no-progress", cwd=work
    )
    assert done.returncode == 0, done.stderr
    assert "| sb3:maskable.zip | 4 |" in done.stdout
    sampled = rummy500(
        "eval",
        "--agents",
        "sb3[sample]:maskable.zip",
        "random",
        "--games",
        "2",
        "--no-progress",
        cwd=work,
    )
    assert sampled.returncode == 0, sampled.stderr
    assert_one_line(
        rummy500("eval", "--agents", "sb3:maskable.zip", "random", "--players", "3", cwd=work),
        "other rules or another observation version",
    )
    # web and standard share the spaces: only the rules stamped into the archive tell them.
    unstamped = rummy500(
        "eval",
        "--agents",
        "sb3:maskable.zip",
        "random",
        "--games",
        "2",
        "--preset",
        "web",
        "--no-progress",
        cwd=work,
    )
    assert unstamped.returncode == 0, unstamped.stderr
    subprocess.run(
        [
            sys.executable,
            "-c",
            "import gymnasium, rummy_env\n"
            "from rummy500.agents.sb3_rules import stamp_rules\n"
            "stamp_rules('maskable.zip', gymnasium.make('Rummy500-v1').unwrapped.rules)",
        ],
        cwd=work,
        check=True,
        timeout=120,
    )
    assert_one_line(
        rummy500("eval", "--agents", "sb3:maskable.zip", "random", "--preset", "web", cwd=work),
        "trained under other rules",
        "ace_high True (here False)",
        "dig True (here False)",
    )
    stamped = rummy500(
        "eval", "--agents", "sb3:maskable.zip", "random", "--games", "2", "--no-progress", cwd=work
    )
    assert stamped.returncode == 0 and "| sb3:maskable.zip | 2 |" in stamped.stdout


def test_the_benchmark_rates_an_outside_agent_in_one_json_line(work: Path) -> None:
    done = rummy500("benchmark", "py:my_bots:make", "--quick", "--json", "--no-progress", cwd=work)
    assert done.returncode == 0, done.stderr
    (line,) = done.stdout.strip().splitlines()
    card = json.loads(line)
    assert card["protocol"] == "rummy500-bench/2" and card["agent"] == "py:my_bots:make"
    assert card["elo_lo"] <= card["elo"] <= card["elo_hi"]
    assert set(card["win_rate"]) == {"random", "casual", "sharp", "champion@1", "expert@1"}
    assert card["games"] == 100


MISBEHAVING = '''
class Misbehaves:
    """Plays the lowest legal id for its first `after` decisions, then misbehaves."""

    def __init__(self, fault, after=0):
        self.name, self.fault, self.after, self.calls = "misbehaves", fault, after, 0

    def act(self, decision):
        self.calls += 1
        good = decision.mask.argmax(axis=1)
        if self.calls <= self.after:
            return good
        if self.fault == "raises":
            return {}["no such key"]
        if self.fault == "illegal":
            return decision.mask.argmin(axis=1)
        if self.fault == "short":
            return good[:-1]
        if self.fault == "floats":
            return good + 0.5
        return None


def make(fault, after=0):
    return lambda rules, seed: Misbehaves(fault, after)


raises, illegal, short, floats, none = (make(f) for f in
                                        ("raises", "illegal", "short", "floats", "none"))
illegal_later = make("illegal", after=400)
'''


@pytest.mark.parametrize(
    ("factory", "words"),
    [
        ("raises", ["act raised KeyError", "(misbehaving.py:"]),
        ("illegal", ["illegal action", "legal: ["]),
        ("short", ["returned 1 actions for 2 decisions"]),
        ("floats", ["integer action ids", "float64"]),
        ("none", ["integer action ids", "NoneType"]),
    ],
)
def test_an_agent_that_misbehaves_mid_match_stops_it_in_one_line(
    work: Path, factory: str, words: list[str]
) -> None:
    (work / "misbehaving.py").write_text(MISBEHAVING)
    done = rummy500(
        "eval",
        "--agents",
        f"py:misbehaving:{factory}",
        "random",
        "--games",
        "4",
        "--no-progress",
        cwd=work,
    )
    assert_one_line(done, "agent misbehaves:", *words, "the match stopped", code=3)


def test_the_games_finished_before_an_agent_failed_are_reported(work: Path) -> None:
    (work / "misbehaving.py").write_text(MISBEHAVING)
    done = rummy500(
        "eval",
        "--agents",
        "py:misbehaving:illegal_later",
        "random",
        "--games",
        "6",
        "--batch-size",
        "1",
        "--no-progress",
        cwd=work,
    )
    line = assert_one_line(done, "illegal action", "reported below", code=3)
    finished = int(line.split("stopped after ")[1].split()[0])
    assert 1 <= finished < 6
    assert f"| misbehaves | {finished} |" in done.stdout


def test_an_object_handed_to_evaluate_is_held_to_the_protocol() -> None:
    import rummy500
    from rummy500.agents.base import AgentFailure

    class Floats:
        name = "floats"

        def act(self, decision):
            return decision.mask.argmax(axis=1) + 0.5

    with pytest.raises(AgentFailure, match="agent floats: act must return integer action ids"):
        rummy500.evaluate([Floats(), "random"], games=2)

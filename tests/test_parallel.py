"""Matches played by worker processes and by Ray tasks: the same games, game for game, as
in one process, for every form of agent; and a clean end (one line, the finished games
kept, no process left behind) when a worker is killed, an agent fails or Ctrl-C comes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rummy500.eval.shards import SHARD_GAMES, agent_seed

ROOT = Path(__file__).resolve().parents[1]
FIRST_LEGAL = ROOT / "docs" / "examples" / "process_agents" / "first_legal.py"
GAMES = str(SHARD_GAMES + 10)  # two shards
SHORT = ["--set", "target=100"]

BOTS = '''
import numpy as np


class Seeded:
    """Plays a random legal move from its own seed: the seed each shard gives shows."""

    def __init__(self, rules, seed):
        self.name = "seeded"
        self.rng = np.random.default_rng(seed)

    def act(self, decision):
        return np.array([self.rng.choice(np.flatnonzero(row)) for row in decision.mask])


def make(rules, seed):
    return Seeded(rules, seed)
'''

HELLO_LOG = """
import json, os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
with open("hellos.log", "a") as log:
    log.write(f"{os.getpid()}\\n")
exec(open(sys.argv[1]).read())
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


def played(*args: str, cwd: Path, env: dict | None = None) -> tuple[list[dict], dict]:
    """(every game's record, the report without its timings) of ``rummy500 eval ARGS``."""
    out = cwd / f"out{len(list(cwd.glob('out*')))}"
    done = rummy500(
        "eval",
        *args,
        "--no-progress",
        "--out",
        str(out),
        "--record",
        str(out) + ".jsonl",
        cwd=cwd,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    records = [json.loads(line) for line in Path(str(out) + ".jsonl").read_text().splitlines()]
    return records, untimed(json.loads((out / "report.json").read_text()))


def untimed(report: dict) -> dict:
    """A report without what measures time (seconds, decisions a second) or says how it
    was run (the command)."""
    if isinstance(report, dict):
        return {
            k: untimed(v)
            for k, v in report.items()
            if not any(t in k for t in ("seconds", "per_s", "ms_per", "command"))
        }
    if isinstance(report, list):
        return [untimed(v) for v in report]
    return report


def assert_same_at_one_and_two_workers(
    *args: str, cwd: Path, env: dict | None = None
) -> list[dict]:
    one = played(*args, "--workers", "1", cwd=cwd, env=env)
    two = played(*args, "--workers", "2", cwd=cwd, env=env)
    assert len(one[0]) == int(GAMES)
    assert one[0] == two[0]  # every game: its deal, seats, every action and the result
    assert one[1] == two[1]
    return one[0]


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "my_bots.py").write_text(BOTS)
    return tmp_path


def test_agent_seeds_differ_by_agent_and_shard_and_come_from_the_root() -> None:
    seeds = {agent_seed(7, a, s) for a in range(3) for s in range(20)}
    assert len(seeds) == 60
    assert agent_seed(7, 1, 2) == agent_seed(7, 1, 2) != agent_seed(8, 1, 2)


@pytest.mark.parametrize(
    "spec", ["casual", "sharp", "expert:worlds=2,candidates=2,horizon=6", "py:my_bots:make"]
)
def test_built_ins_and_python_factories_play_the_same_games_at_two_workers(
    work: Path, spec: str
) -> None:
    assert_same_at_one_and_two_workers(
        "--agents", spec, "random", "--games", GAMES, *SHORT, "--duplicate", cwd=work
    )


def test_a_checkpoint_plays_the_same_games_at_two_workers(work: Path) -> None:
    torch = pytest.importorskip("torch")
    from rummy500.agents.torch_policy import build_policy
    from rummy500.train.run_folder import save_checkpoint
    from rummy_env.core import Rules, action_layout, observation_size

    rules = Rules.preset_named("standard", target=100)
    torch.manual_seed(0)
    policy = build_policy(
        "mlp", rules, observation_size(rules), action_layout(rules).size, hidden=(16,)
    )
    save_checkpoint(
        work / "tiny.pt",
        policy,
        arch="mlp",
        arch_kwargs={"hidden": (16,)},
        rules=rules,
        config={},
        global_step=0,
    )
    assert_same_at_one_and_two_workers(
        "--agents", "ckpt:tiny.pt", "random", "--games", GAMES, *SHORT, cwd=work
    )


def test_an_installed_plug_in_plays_the_same_games_at_two_workers(
    work: Path, tmp_path_factory
) -> None:
    source = tmp_path_factory.mktemp("plugin")
    (source / "toy_seeded_bot.py").write_text(BOTS)
    (source / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=64"]\nbuild-backend = "setuptools.build_meta"\n'
        '[project]\nname = "toy-seeded-bot"\nversion = "0.1"\n'
        '[project.entry-points."rummy500.agents"]\nseededbot = "toy_seeded_bot:make"\n'
        '[tool.setuptools]\npy-modules = ["toy_seeded_bot"]\n'
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
    env = {**os.environ, "PYTHONPATH": str(target)}
    assert_same_at_one_and_two_workers(
        "--agents", "seededbot", "random", "--games", GAMES, *SHORT, cwd=work, env=env
    )


def test_a_maskable_ppo_model_plays_the_same_games_at_two_workers(work: Path) -> None:
    pytest.importorskip("sb3_contrib", reason="sb3-contrib is not installed (the [clients] extra)")
    train = (
        "import gymnasium, rummy_env\nfrom sb3_contrib import MaskablePPO\n"
        "env = gymnasium.make('Rummy500-v1')\n"
        "model = MaskablePPO('MlpPolicy', env, n_steps=64, batch_size=64, seed=0)\n"
        "model.learn(64)\nmodel.save('maskable')\n"
    )
    subprocess.run(
        [sys.executable, "-c", train], cwd=work, check=True, timeout=600, capture_output=True
    )
    assert_same_at_one_and_two_workers(
        "--agents", "sb3[sample]:maskable.zip", "sharp", "--games", GAMES, cwd=work
    )


def test_a_process_agent_is_started_by_each_shard_and_plays_the_same_games(work: Path) -> None:
    (work / "logged.py").write_text(HELLO_LOG)
    command = f"cmd:{sys.executable} logged.py {FIRST_LEGAL}"
    assert_same_at_one_and_two_workers(
        "--agents",
        command,
        "random",
        "--games",
        GAMES,
        *SHORT,
        "--seed",
        "5",
        "--agent-seed",
        "6",
        cwd=work,
    )
    pids = (work / "hellos.log").read_text().split()
    # Per run: one process checked before the match, then one for each of the two shards.
    assert len(pids) == 6 and len(set(pids)) == 6


def test_a_ladder_is_the_same_at_two_workers(work: Path) -> None:
    reports = []
    for workers in ("1", "2"):
        out = work / f"ladder{workers}"
        done = rummy500(
            "ladder",
            "--no-defaults",
            "--agents",
            "random",
            "casual",
            "sharp",
            "--games",
            "20",
            *SHORT,
            "--no-progress",
            "--workers",
            workers,
            "--out",
            str(out),
            cwd=work,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        reports.append(untimed(json.loads((out / "ladder.json").read_text())))
    assert reports[0] == reports[1]
    assert sum(row["games"] for row in reports[0]["ladder"]) == 2 * 60


def test_an_object_that_cannot_be_pickled_is_played_here_with_one_line(capsys) -> None:
    import numpy as np

    import rummy500

    class Unpicklable:
        name = "unpicklable"

        def __init__(self):
            self.rule = lambda mask: mask.argmax(axis=1)

        def act(self, decision):
            return self.rule(decision.mask)

    from rummy_env.core import Rules

    rules = Rules.preset_named("standard", target=100)
    one = rummy500.evaluate([Unpicklable(), "random"], int(GAMES), rules=rules, workers=1)
    assert capsys.readouterr().err == ""
    two = rummy500.evaluate([Unpicklable(), "random"], int(GAMES), rules=rules, workers=2)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "unpicklable" in err[0] and "pickle" in err[0], err
    assert untimed(one) == untimed(two)
    assert np.isclose(one["agents"][0]["games"], int(GAMES))


def descendants(pid: int) -> set[int]:
    """Every live process below ``pid`` (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parent = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(parent, []).append(int(entry.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def alive(pids: set[int]) -> set[int]:
    out = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            out.add(pid)
    return out


def start_long_match(work: Path, *agents: str) -> tuple[subprocess.Popen, set[int]]:
    """A long match at two workers, started and waited for until its workers (and their
    agents' processes) run: (the program, the worker processes)."""
    program = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "rummy500.cli",
            "eval",
            "--agents",
            *agents,
            "--games",
            "400",
            "--workers",
            "2",
            "--no-progress",
            "--batch-size",
            "8",
        ],
        cwd=work,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        workers = {
            pid
            for pid in descendants(program.pid)
            if "shard_worker" in Path(f"/proc/{pid}/cmdline").read_text(errors="replace")
        }
        if len(workers) == 2 and all(descendants(w) for w in workers):
            time.sleep(2)  # the workers play their first shard
            return program, workers
        time.sleep(0.2)
    program.kill()
    pytest.fail("the workers did not start")


def test_a_killed_worker_ends_the_match_in_one_line_leaving_no_process(work: Path) -> None:
    program, workers = start_long_match(work, f"cmd:{sys.executable} {FIRST_LEGAL}", "random")
    everything = descendants(program.pid)
    os.kill(sorted(workers)[0], signal.SIGKILL)
    out, err = program.communicate(timeout=120)
    assert program.returncode == 3, err
    lines = [line for line in err.splitlines() if not line.startswith("playing")]
    assert len(lines) == 1 and "a worker process died (signal SIGKILL)" in lines[0], err
    assert "Traceback" not in err
    time.sleep(1)
    assert not alive(everything)


def test_ctrl_c_ends_the_match_in_one_line_leaving_no_process(work: Path) -> None:
    program, _ = start_long_match(work, f"cmd:{sys.executable} {FIRST_LEGAL}", "random")
    everything = descendants(program.pid)
    program.send_signal(signal.SIGINT)
    out, err = program.communicate(timeout=120)
    assert program.returncode == 130, err
    lines = [line for line in err.splitlines() if not line.startswith("playing")]
    assert len(lines) == 1 and "interrupted (Ctrl-C)" in lines[0], err
    assert "Traceback" not in err
    time.sleep(1)
    assert not alive(everything)


def test_an_agent_failing_in_a_worker_reports_the_games_finished(work: Path) -> None:
    (work / "bot.py").write_text(
        "import sys, json\nn = 0\nfor line in sys.stdin:\n    m = json.loads(line)\n"
        "    n += 1\n    if 'hello' in m:\n        print('{}', flush=True); continue\n"
        "    print(json.dumps({'action': m['legal'][0]['id'] if n < 300 else -1}), "
        "flush=True)\n"
    )
    done = rummy500(
        "eval",
        "--agents",
        f"cmd:{sys.executable} bot.py",
        "random",
        "--games",
        "120",
        "--batch-size",
        "2",
        "--workers",
        "2",
        *SHORT,
        "--no-progress",
        cwd=work,
    )
    assert done.returncode == 3, done.stderr
    lines = [line for line in done.stderr.splitlines() if not line.startswith("playing")]
    assert len(lines) == 1 and "illegal action" in lines[0] and "finished games" in lines[0]
    assert "Traceback" not in done.stderr


def test_ray_tasks_play_the_same_games_as_one_process() -> None:
    ray = pytest.importorskip("ray")
    import rummy500
    from rummy_env.core import Rules

    rules = Rules.preset_named("standard", target=100)
    here = rummy500.evaluate(["sharp", "random"], int(GAMES), rules=rules, workers=1)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        there = rummy500.evaluate(["sharp", "random"], int(GAMES), rules=rules, address="auto")
    finally:
        ray.shutdown()
    assert untimed(here) == untimed(there)


def test_a_ray_address_where_nothing_listens_is_refused_in_one_line(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    done = rummy500("eval", "--agents", "sharp", "random", "--ray", "127.0.0.1:1", cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "--ray 127.0.0.1:1: nothing answers" in done.stderr.strip().splitlines()[-1]


def test_trainings_evaluation_is_the_same_at_two_workers() -> None:
    torch = pytest.importorskip("torch")
    from rummy500.agents.torch_policy import build_policy
    from rummy500.train.evaluation import evaluate
    from rummy_env.core import Rules, action_layout, observation_size

    rules = Rules.preset_named("standard", target=100)
    torch.manual_seed(0)
    policy = build_policy(
        "mlp", rules, observation_size(rules), action_layout(rules).size, hidden=(16,)
    )
    one = evaluate(rules, policy, ["random", "casual"], int(GAMES), seed=5, workers=1)
    two = evaluate(rules, policy, ["random", "casual"], int(GAMES), seed=5, workers=2)
    assert one == two and one["random"]["games"] == int(GAMES)


def test_tournaments_are_the_same_at_two_workers(work: Path) -> None:
    reports = []
    for workers in ("1", "2"):
        out = work / f"tournament{workers}"
        done = rummy500(
            "tournament",
            "--agents",
            "sharp",
            "casual",
            "random*2",
            "--table-size",
            "2",
            "--tournaments",
            "30",
            *SHORT,
            "--no-progress",
            "--workers",
            workers,
            "--out",
            str(out),
            cwd=work,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        reports.append(untimed(json.loads((out / "tournament.json").read_text())))
    assert reports[0] == reports[1]


def test_shards_seating_a_searching_agent_are_started_first() -> None:
    import numpy as np

    from rummy500.agents.registry import make_agent
    from rummy500.eval.shards import Entrant, cut, dispatch_order, entrants
    from rummy_env.core import Rules

    rules = Rules()
    lineups = np.tile([[0, 1], [1, 0]], (SHARD_GAMES, 1))
    deals = np.arange(len(lineups))
    quick = [Entrant("sharp", spec="sharp"), Entrant("random", spec="random")]
    searching = [Entrant("expert@1", spec="expert@1"), Entrant("sharp", spec="sharp")]
    shards = cut(rules, quick, lineups, deals, 1, 1) + cut(
        rules, searching, lineups, deals, 1, 1, first_shard=2
    )
    assert dispatch_order(shards) == [2, 3, 0, 1]
    made = entrants([make_agent("expert:worlds=2", rules), make_agent("sharp", rules)])
    assert [e.searches for e in made] == [True, False]
    assert Entrant("oracle", spec="oracle:worlds=4").searches


@pytest.mark.slow
def test_a_benchmark_card_is_the_same_at_two_workers(monkeypatch) -> None:
    """The references' matches are handed out longest first (the expert's), and merged
    back in the protocol's order: the card is the one played in one process."""
    from rummy500.agents.registry import make_agent
    from rummy500.eval.benchmark import TWO_SEATS, Level, benchmark
    from rummy500.eval.sealing import MatchSeeds
    from rummy500.eval.shards import Workers

    monkeypatch.setitem(TWO_SEATS.levels, "tiny", Level(games=4))
    cards = [
        untimed(
            benchmark(
                make_agent("sharp", TWO_SEATS.rules),
                "tiny",
                progress=False,
                spec="sharp",
                workers=Workers(count),
                seeds=MatchSeeds(57, 58, False),
            )
        )
        for count in (1, 2)
    ]
    assert cards[0] == cards[1]
    assert [row["reference"] for row in cards[0]["references"]] == [
        "random",
        "casual",
        "sharp",
        "champion@1",
        "expert@1",
    ]

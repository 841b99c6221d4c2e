"""Bad input to the programs: a one-line reason and exit code 2 before any work, nothing lost.

Every case runs the real command in a subprocess, as a user would.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rummy500.commands.play import read_move
from rummy_env.core import GameRecord, Rules, action_layout, read_records

pytestmark = pytest.mark.slow


def rummy500(*args: str, cwd: Path | None = None, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "rummy500.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
    )


def assert_refused(done: subprocess.CompletedProcess, *words: str) -> None:
    """Exit code 2, one line on stderr naming ``words``, no traceback."""
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr
    for word in words:
        assert word in lines[0], lines[0]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (
            ["eval", "--agents", "random", "random", "--batch-size", "0"],
            ["--batch-size", "at least 1"],
        ),
        (["eval", "--agents", "random", "random", "--batch-size", "-3"], ["--batch-size"]),
        (["eval", "--agents", "random", "random", "--bootstrap", "-1"], ["--bootstrap"]),
        (["eval", "--agents", "random", "random", "--bootstrap", "0"], ["--bootstrap"]),
        (["eval", "--agents", "random", "random", "--bootstrap", "5"], ["at least 10"]),
        (["ladder", "--bootstrap", "5"], ["--bootstrap", "at least 10"]),
        (["eval", "--agents", "random", "random", "--games", "0"], ["--games"]),
        (
            ["eval", "--agents", "random", "random", "--set", "max_turns=40000"],
            ["max_turns", "32767"],
        ),
        (["difftest", "--games", "-2"], ["--games", "at least 1"]),
        (["speed", "--batch", "0"], ["--batch"]),
        (["bench", "--seconds", "-1"], ["--seconds", "above 0"]),  # the old name of speed
        (["demo", "--preset", "foo"], ["preset", "foo"]),
        (["demo", "--players", "0"], ["players"]),
        (["demo", "--set", "target"], ["target", "key=value"]),
        (["play", "--seed", "x"], ["--seed"]),
        (["eval", "--agents", "sharp"], ["--agents", "at least two", "sharp sharp"]),
        (["serve", "--port", "99999"], ["--port", "0 to 65535"]),
    ],
)
def test_bad_arguments_are_refused_in_one_line(args: list[str], words: list[str]) -> None:
    assert_refused(rummy500(*args), *words)


def test_eval_checks_its_output_paths_before_playing(tmp_path: Path) -> None:
    missing = tmp_path / "no" / "such" / "folder" / "games.jsonl"
    assert_refused(
        rummy500("eval", "--agents", "random", "random", "--record", str(missing)),
        "--record",
        "does not exist",
    )
    as_dir = tmp_path / "a_folder"
    as_dir.mkdir()
    assert_refused(
        rummy500("eval", "--agents", "random", "random", "--record", str(as_dir)),
        "--record",
        "folder",
    )
    a_file = tmp_path / "report_file"
    a_file.write_text("keep me")
    assert_refused(
        rummy500("eval", "--agents", "random", "random", "--out", str(a_file)),
        "--out",
        "not a folder",
    )
    assert_refused(
        rummy500("eval", "--agents", "random", "random", "--record", str(a_file / "games.jsonl")),
        "--record",
        "is a file, not a folder",
    )
    assert a_file.read_text() == "keep me"


def test_a_link_to_a_folder_not_there_is_refused_before_playing(tmp_path: Path) -> None:
    link = tmp_path / "games.jsonl"
    link.symlink_to(tmp_path / "gone" / "games.jsonl")
    assert_refused(
        rummy500("eval", "--agents", "random", "random", "--record", str(link)),
        "--record",
        "does not exist",
    )


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
def test_a_folder_that_refuses_new_files_is_found_out_before_playing() -> None:
    """/proc takes no new file, even from root, whom permission bits do not stop."""
    assert_refused(
        rummy500("eval", "--agents", "random", "random", "--out", "/proc/rummy"),
        "--out",
        "cannot create files in /proc",
    )
    assert_refused(
        rummy500("eval", "--agents", "random", "random", "--record", "/proc/games.jsonl"),
        "--record",
        "cannot create files in /proc",
    )


def test_play_checks_its_record_path_before_the_game(tmp_path: Path) -> None:
    done = rummy500("play", "--record", str(tmp_path / "missing" / "g.jsonl"), stdin="")
    assert_refused(done, "--record")


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("records") / "games.jsonl"
    done = rummy500(
        "eval",
        "--agents",
        "random",
        "casual",
        "--games",
        "4",
        "--set",
        "target=100",
        "--no-progress",
        "--record",
        str(path),
    )
    assert done.returncode == 0, done.stderr
    return path


def test_replay_names_the_game_it_shows_and_refuses_one_not_there(records: Path) -> None:
    done = rummy500("replay", str(records), "--game", "2")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("=== game 2:")
    assert_refused(rummy500("replay", str(records), "--game", "99"), "--game 99", "4 record(s)")


def test_a_cut_last_line_loses_only_that_game(records: Path, tmp_path: Path) -> None:
    cut = tmp_path / "cut.jsonl"
    cut.write_text(records.read_text()[:-40])  # a crash while writing the last record
    done = rummy500("replay", str(cut))
    assert done.returncode == 1, done.stderr  # says that something was skipped
    assert done.stdout.count("replay matches the record") == 3
    assert f"skipped {cut}:4: game 3:" in done.stderr


def test_an_append_after_a_cut_line_starts_a_fresh_line(records: Path, tmp_path: Path) -> None:
    """A crash while writing, then another ``eval --record``: only the cut game is lost."""
    cut = tmp_path / "cut.jsonl"
    cut.write_text(records.read_text()[:-40])
    more = rummy500(
        "eval",
        "--agents",
        "random",
        "random",
        "--games",
        "2",
        "--no-progress",
        "--record",
        str(cut),
    )
    assert more.returncode == 0, more.stderr
    done = rummy500("replay", str(cut))
    assert done.stdout.count("replay matches the record") == 3 + 2
    assert done.stderr.count("skipped") == 2 and ":4: game 3:" in done.stderr


def test_replay_skips_each_bad_line_names_it_and_replays_the_rest(
    records: Path, tmp_path: Path
) -> None:
    good = records.read_text().splitlines()
    illegal = json.loads(good[1])
    illegal["actions"][3] = "discard JK"
    impossible = json.loads(good[2])
    impossible["seed"] = -5
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_bytes(
        "\n".join([good[0], '{"cut": ', good[1]]).encode()
        + b"\n\xff\xfe\n"
        + "\n".join(
            ['{"another": "object"}', json.dumps(impossible), json.dumps(illegal), good[3]]
        ).encode()
        + b"\n"
    )
    done = rummy500("replay", str(mixed))
    assert done.returncode == 1
    assert done.stdout.count("replay matches the record") == 3
    for line, game in ((2, 1), (4, 3), (5, 4), (6, 5)):
        assert f"{mixed}:{line}: game {game}:" in done.stderr, done.stderr
    assert "not UTF-8" in done.stderr
    assert "discard JK" in done.stderr and "Traceback" not in done.stderr


def test_a_seed_past_the_one_range_is_refused_before_any_game(tmp_path: Path) -> None:
    for command in (["eval", "--agents", "random", "random"], ["ladder"], ["demo"]):
        assert_refused(rummy500(*command, "--seed", str(2**63), cwd=tmp_path), "2**63-1")


def test_replay_refuses_a_file_with_no_game_in_it(tmp_path: Path) -> None:
    not_records = tmp_path / "notes.txt"
    not_records.write_text("my notes, not games")
    assert_refused(rummy500("replay", str(not_records)), "holds no game record")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert_refused(rummy500("replay", str(empty)), "holds no game record")


def test_replay_into_a_closed_pipe_ends_quietly(records: Path) -> None:
    done = subprocess.run(
        f"{sys.executable} -m rummy500.cli replay {records} | head -1",
        shell=True,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.stdout.startswith("=== game 0:")
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr


def test_the_scenario_harness_into_a_closed_pipe_ends_quietly() -> None:
    scenario = sorted((Path(__file__).parent / "scenarios").glob("*.json"))[0]
    done = subprocess.run(
        f"{sys.executable} -m rummy_env.scenario {scenario} | head -c 1",
        shell=True,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.stdout == "{"
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"rules": {"preset": "casino"}}, ["preset"]),
        ({"rules": 5}, ["rules", "mapping"]),
        ({"agents": ["only_one"]}, ["agents"]),
        ({"game_id": 10**30}, ["game_id"]),
        ({"seed": "seven"}, ["seed"]),
        ({"colour": "red"}, ["colour"]),
    ],
)
def test_a_damaged_record_is_refused_in_one_line(
    records: Path, tmp_path: Path, change: dict, words: list[str]
) -> None:
    first = json.loads(records.read_text().splitlines()[0])
    first.update(change)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(first) + "\n")
    assert_refused(rummy500("replay", str(bad)), *words)


def test_records_read_back_as_written(records: Path) -> None:
    games = list(read_records(records))
    assert len(games) == 4 and all(isinstance(g, GameRecord) for g in games)


SCENARIO = {"rules": {}, "hands": [["2C"], ["3C"]], "stock": ["4C"], "discard": ["5C"]}


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"\xff\xfe not text", ["UTF-8"]),
        (b"[" * 100_000 + b"]" * 100_000, ["too deeply"]),
        (json.dumps({**SCENARIO, "rules": 5}).encode(), ["rules", "mapping"]),
        (json.dumps({**SCENARIO, "colour": 1}).encode(), ["unknown key", "colour"]),
        (json.dumps({**SCENARIO, "totals": [10**12, 0]}).encode(), ["totals"]),
        (
            json.dumps(
                {**SCENARIO, "melds": [{"cards": ["5H", "6H", "7H"], "by": [0, 0, 0]}] * 18}
            ).encode(),
            ["melds"],
        ),
    ],
    ids=[
        "not_utf8",
        "deep_json",
        "rules_not_a_mapping",
        "unknown_key",
        "huge_totals",
        "too_many_melds",
    ],
)
def test_a_bad_scenario_file_is_refused_in_one_line(
    tmp_path: Path, content: bytes, words: list[str]
) -> None:
    path = tmp_path / "scenario.json"
    path.write_bytes(content)
    done = subprocess.run(
        [sys.executable, "-m", "rummy_env.scenario", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert_refused(done, *words)


def test_eval_without_matplotlib_writes_everything_but_the_picture(tmp_path: Path) -> None:
    code = (
        "import sys; sys.modules['matplotlib'] = None; "
        "from rummy500.cli import main; "
        f"sys.exit(main(['eval', '--agents', 'random', 'random', '--games', '2', "
        f"'--set', 'target=50', '--no-progress', '--out', {str(tmp_path)!r}]))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert {p.name for p in tmp_path.iterdir()} == {"report.json", "agents.csv", "report.md"}
    assert "win_rates.png skipped" in done.stdout


def test_eval_says_how_many_games_it_will_play() -> None:
    done = rummy500(
        "eval",
        "--agents",
        "random",
        "casual",
        "sharp",
        "random",
        "--players",
        "3",
        "--games",
        "1",
        "--set",
        "target=50",
        "--no-progress",
    )
    assert done.returncode == 0, done.stderr
    # Four groups of three, each in its 3 rotations, the two mixed ones (random, casual,
    # sharp) in both orders around the table: two blocks of 12 lineups.
    assert "playing 24 games (24 seatings)" in done.stderr


def test_play_reads_odd_digits_as_a_bad_move_and_keeps_the_game() -> None:
    """``²`` is a digit to Python but not a number; a thousand digits is no move either."""
    action_ids = action_layout(Rules())
    answers = iter(["²", "9" * 5000, "1"])
    said: list[str] = []
    move = read_move(["draw", "take 1"], action_ids, lambda _: next(answers), said.append)
    assert move == action_ids.parse("draw")
    assert len(said) == 2 and all("no move" in s for s in said)


def test_speed_against_gin_reports_each_peer_with_its_ratio() -> None:
    """Every peer row is measured with a ratio to the AEC env, or says why it is skipped."""
    done = rummy500("speed", "--what", "aec", "--against", "gin", "--seconds", "0.3", "--json")
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert rows[0]["env"] == "aec"
    assert {r["env"] for r in rows[1:]} == {"pettingzoo-gin", "rlcard-gin", "openspiel-gin"}
    for row in rows[1:]:
        assert "skipped" in row or row["ratio"] > 0


def test_speed_against_gin_in_rounds_sums_them_and_gives_each_ratio() -> None:
    """``--rounds 2``: each row adds up its two rounds; each peer's ratio is that of the
    sums, and its two round ratios are each round's own."""
    done = rummy500(
        "speed", "--what", "gym", "--against", "gin", "--seconds", "0.6", "--rounds", "2", "--json"
    )
    assert done.returncode == 0, done.stderr
    ours, *peers = [json.loads(line) for line in done.stdout.splitlines()]
    assert ours["env"] == "gym" and ours["seconds"] >= 0.6
    assert ours["agent_steps_per_s"] == pytest.approx(ours["agent_steps"] / ours["seconds"])
    refused = rummy500("speed", "--what", "aec", "--against", "gin", "--rounds", "0")
    assert refused.returncode == 2 and "--rounds" in refused.stderr
    measured = [row for row in peers if "skipped" not in row]
    if not measured:
        pytest.skip("no peer game importable here: pip install -e '.[peers]'")
    for row in measured:
        assert row["ratio"] == pytest.approx(ours["agent_steps_per_s"] / row["agent_steps_per_s"])
        low, high = sorted(row["round_ratios"])
        assert len(row["round_ratios"]) == 2 and 0 < low <= high


def test_every_help_text_prints_as_written() -> None:
    """argparse formats help strings but not descriptions: no ``%%`` reaches the reader."""
    from rummy500.cli import SUBCOMMANDS

    for command in SUBCOMMANDS:
        done = rummy500(command, "--help")
        assert done.returncode == 0, (command, done.stderr)
        assert "%%" not in done.stdout, command


def test_the_packaged_recipes_are_named_listed_and_shown(tmp_path: Path) -> None:
    """From a folder without the checkout's configs/, recipes are found by name."""
    listed = rummy500("train", "--list-configs", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    names = [line.split()[0] for line in listed.stdout.splitlines()]
    assert {"quickstart", "selfplay", "rllib_selfplay"} <= set(names)
    shown = rummy500("train", "--show-config", "quickstart", cwd=tmp_path)
    assert shown.returncode == 0 and "exp_name: quickstart" in shown.stdout
    assert_refused(rummy500("train", "--show-config", "nope", cwd=tmp_path), "nope", "quickstart")
    assert_refused(
        rummy500("train", "--config", "configs/train/quickstart.yaml", cwd=tmp_path),
        "--config quickstart",
    )
    edited = "\n".join(
        "total_steps: 1" if line.startswith("total_steps:") else line
        for line in shown.stdout.splitlines()
    )
    (tmp_path / "mine.yaml").write_text(edited + "\n")
    refused = rummy500("train", "--config", "mine.yaml", "num_envs=0", cwd=tmp_path)
    assert_refused(refused, "num_envs")  # the edited copy is read as a file


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (
            b"a: &a [x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\n"
            b"exp_name: [*b, *b, *b, *b, *b, *b, *b, *b]\n",
            ["aliases"],
        ),
        (b"exp_name: \xff\xfe\n", ["not UTF-8"]),
        (b"exp_name: " + b"[" * 40 + b"]" * 40 + b"\n", ["deeper than"]),
        (b"# " + b"x" * (2 << 20) + b"\n", ["larger than"]),
    ],
    ids=["alias bomb", "not UTF-8", "deep", "huge"],
)
def test_a_config_file_past_its_bounds_is_refused_in_one_line(
    tmp_path: Path, text: bytes, words: list[str]
) -> None:
    config = tmp_path / "mine.yaml"
    config.write_bytes(text)
    assert_refused(rummy500("train", "--config", str(config), cwd=tmp_path), *words)
    assert not (tmp_path / "runs").exists()


def test_devices_and_bombs_are_refused_wherever_config_text_is_read(tmp_path: Path) -> None:
    assert_refused(rummy500("train", "--config", "/dev/zero", cwd=tmp_path), "not a file")
    done = subprocess.run(
        [sys.executable, "-m", "rummy_env.scenario", "/dev/zero"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "larger than" in done.stderr
    bomb = tmp_path / "rules.yaml"
    bomb.write_text("a: &a [1, 1]\ntarget: *a\n")
    import rummy_env

    with pytest.raises(ValueError, match="aliases"):
        rummy_env.env(rules_file=str(bomb))
    assert_refused(
        rummy500("train", "--config", "quickstart", "eval_opponents=[ckpt:none.pt]", cwd=tmp_path),
        "no such file",
    )
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"hands": [["5H", "6H"], []]}, ["seat 1 holds no card", "floating"]),
        ({"totals": [480, 520], "hand_number": 2}, ["reached the target", "game is over"]),
        (
            {
                "rules": {"preset": "standard", "game_hands": 3},
                "totals": [90, 120],
                "hand_number": 3,
            },
            ["quick game of 3 hands ended"],
        ),
    ],
    ids=["empty hand", "past the target", "quick game over"],
)
def test_an_impossible_position_is_refused_with_the_reason(
    tmp_path: Path, change: dict, words: list[str]
) -> None:
    scenario = {
        "rules": {"preset": "standard"},
        "hands": [["5H", "6H"], ["2D", "3D"]],
        "stock": ["3C"],
        "discard": ["KD"],
        "actions": ["draw"],
        **change,
    }
    path = tmp_path / "impossible.json"
    path.write_text(json.dumps(scenario))
    done = subprocess.run(
        [sys.executable, "-m", "rummy_env.scenario", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and done.stdout == ""
    for word in words:
        assert word in done.stderr, done.stderr
    floating = {**scenario, **change, "rules": {"preset": "standard", "floating": True}}
    if "hands" in change:  # a floating seat may hold no card
        path.write_text(json.dumps(floating))
        assert (
            subprocess.run(
                [sys.executable, "-m", "rummy_env.scenario", str(path)],
                capture_output=True,
                timeout=60,
            ).returncode
            == 0
        )

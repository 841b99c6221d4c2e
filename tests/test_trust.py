"""What an outside agent, file or web client does cannot harm the machine or lose a result.

Through the real programs, with real processes: every process a ``cmd:`` agent
starts (its children included) ends with its match or its web game, on every way a
game ends; a refused request starts none; stderr and timeouts are bounded; an agent
that exits or a Ctrl-C ends a match in one line, keeping the games finished; the web
table recovers a game after an agent fails, shows pages only the names the operator
chose, stays quiet when clients hang up and serves a burst of connections.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

AGENT_FAILED, INTERRUPTED = 3, 130

BOT = """
import json, subprocess, sys, time
mark = sys.argv[1]
# a child of its own that would live ten minutes: it must end with the agent
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", mark])
for line in sys.stdin:
    message = json.loads(line)
    if "hello" in message:
        print(json.dumps({"name": "forker"}), flush=True)
        continue
    print(json.dumps({"action": message["legal"][0]["id"]}), flush=True)
"""


def rummy500(*args: str, cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "rummy500.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def marked(mark: str) -> int:
    """How many processes on this machine carry ``mark`` in their command line."""
    count = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if mark.encode() in f.read().split(b"\0"):
                    count += 1
        except OSError:
            pass  # ended meanwhile
    return count


def settled(mark: str, expected: int, wait: float = 10.0) -> int:
    """The count of ``marked(mark)`` once it reaches ``expected`` (or after ``wait`` s)."""
    end = time.monotonic() + wait
    while (count := marked(mark)) != expected and time.monotonic() < end:
        time.sleep(0.1)
    return count


def one_error_line(done: subprocess.CompletedProcess) -> str:
    """The one error line on stderr (beside the "playing N games" status line), no
    traceback."""
    assert "Traceback" not in done.stderr, done.stderr
    lines = [
        line
        for line in done.stderr.strip().splitlines()
        if line.strip() and not line.startswith(("playing", "against"))
    ]
    assert len(lines) == 1, done.stderr
    return lines[0]


# --- processes of matches ----------------------------------------------------------
def test_a_cmd_agents_children_end_with_the_match(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text(BOT)
    mark = f"mark-{os.getpid()}-match"
    done = rummy500(
        "eval",
        "--agents",
        f"cmd:{sys.executable} bot.py {mark}",
        "random",
        "--games",
        "2",
        "--no-progress",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert settled(mark, 0) == 0


def test_stderr_without_newlines_is_kept_bounded(tmp_path: Path) -> None:
    """20 MB of stderr in one line: the arena keeps its tail, and quotes a short piece."""
    from rummy500.agents.process_agent import STDERR_BYTES, ProcessAgent
    from rummy_env.core import Rules

    (tmp_path / "bot.py").write_text(
        "import sys\nsys.stdin.readline()\nsys.stderr.write('x' * 20_000_000)\n"
        "sys.stderr.flush()\nprint('{}', flush=True)\nsys.stdin.readline()\nsys.exit(9)\n"
    )
    agent = ProcessAgent(f"{sys.executable} {tmp_path / 'bot.py'}", Rules())
    time.sleep(1.0)  # the stderr reader catches up
    assert len(agent._stderr) <= STDERR_BYTES
    agent.close()
    done = rummy500(
        "eval",
        "--agents",
        f"cmd:{sys.executable} bot.py",
        "random",
        "--games",
        "2",
        "--no-progress",
        cwd=tmp_path,
    )
    line = one_error_line(done)
    assert done.returncode == AGENT_FAILED and "exit code 9" in line and len(line) < 600


@pytest.mark.parametrize("timeout", ["1e300", "inf", "1e6", "nan"])
def test_a_huge_timeout_is_refused_in_one_line(tmp_path: Path, timeout: str) -> None:
    (tmp_path / "bot.py").write_text(BOT)
    done = rummy500(
        "eval",
        "--agents",
        f"cmd[timeout={timeout}]:{sys.executable} bot.py x",
        "random",
        "--games",
        "2",
        "--no-progress",
        cwd=tmp_path,
    )
    assert done.returncode == 2 and "at most 3600" in one_error_line(done)


EXITING_BOT = '''
import os, signal, sys


class Bot:
    """First legal move; after {after} decisions it {how}."""

    name = "quitter"

    def __init__(self, rules, seed):
        self.calls = 0

    def act(self, decision):
        self.calls += decision.size
        if self.calls > {after}:
            {how}
        return decision.mask.argmax(axis=1)
'''


@pytest.mark.parametrize(
    ("program", "how", "status", "words"),
    [
        ("eval", "sys.exit(5)", AGENT_FAILED, "act raised SystemExit"),
        ("eval", "os.kill(os.getpid(), signal.SIGINT)", INTERRUPTED, "interrupted (Ctrl-C)"),
        ("ladder", "os.kill(os.getpid(), signal.SIGINT)", INTERRUPTED, "interrupted (Ctrl-C)"),
    ],
)
def test_an_exit_or_ctrl_c_keeps_the_games_finished(
    tmp_path: Path, program: str, how: str, status: int, words: str
) -> None:
    (tmp_path / "quitting.py").write_text(EXITING_BOT.format(after=1000, how=how))
    agents = ["py:quitting:Bot", "random"] + (
        ["casual", "--no-defaults"] if program == "ladder" else []
    )
    done = rummy500(
        program,
        "--agents",
        *agents,
        "--games",
        "8",
        "--batch-size",
        "2",
        "--no-progress",
        "--out",
        "report",
        cwd=tmp_path,
    )
    line = one_error_line(done)
    assert done.returncode == status and words in line, done.stderr
    finished = int(line.split("stopped after ")[1].split()[0])
    assert finished > 0
    written = json.loads(next((tmp_path / "report").glob("*.json")).read_text())
    assert written["meta"]["games"] == finished


def test_ctrl_c_during_the_benchmark_keeps_the_references_played(tmp_path: Path) -> None:
    """A real SIGINT from outside once the first reference's games are played (one shard
    of 20 at the quick level, its progress shown as 20/100)."""
    (tmp_path / "slow.py").write_text(
        "import time\n\nclass Bot:\n    name = 'slow'\n\n    def __init__(self, rules, seed):\n"
        "        pass\n\n    def act(self, decision):\n        time.sleep(0.02)\n"
        "        return decision.mask.argmax(axis=1)\n"
    )
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "rummy500.cli",
            "benchmark",
            "py:slow:Bot",
            "--quick",
            "--json",
            "--workers",
            "1",
        ],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    said = b""
    while b"20/100" not in said:  # the progress bar, redrawn with carriage returns
        chunk = os.read(process.stderr.fileno(), 4096)
        assert chunk, said.decode()
        said += chunk
    time.sleep(1.0)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    err = (said + err).decode()
    assert process.returncode == INTERRUPTED and "Traceback" not in err, err
    assert "interrupted (Ctrl-C); the benchmark stopped during the match against casual" in err
    card = json.loads(out)
    assert card["elo"] is None and [r["reference"] for r in card["references"]] == ["random"]


# --- processes of the web table ----------------------------------------------------
class Serve:
    """``rummy500 serve`` in a process of its own, and plain HTTP calls to it."""

    def __init__(self, cwd: Path, *args: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "rummy500.cli", "serve", "--port", "0", *args],
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        url = self.process.stdout.readline().split()[4]  # "Rummy 500 table at URL ..."
        self.host, self.port = url.split("//")[1].rstrip("/").split(":")
        self.port = int(self.port)
        self.bodies: list[str] = []

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
        try:
            data = None if body is None else json.dumps(body).encode()
            conn.request(
                method,
                path,
                body=data,
                headers={"Content-Type": "application/json"} if data else {},
            )
            response = conn.getresponse()
            text = response.read().decode()
            self.bodies.append(text)
            return response.status, json.loads(text)
        finally:
            conn.close()

    def stop(self) -> str:
        """SIGINT, as Ctrl-C; the server's stderr."""
        self.process.send_signal(signal.SIGINT)
        _, err = self.process.communicate(timeout=60)
        return err


def play_out(serve: Serve, view: dict, rng: np.random.Generator) -> dict:
    """Random legal moves for the person, ``advance`` for the agents, to the game's end."""
    for _ in range(5000):
        if view["waiting"] == "over":
            return view
        if view["waiting"] == "agent":
            status, view = serve.call(
                "POST", f"/api/games/{view['id']}/advance", {"version": view["version"]}
            )
        else:
            move = view["moves"][int(rng.integers(len(view["moves"])))]["text"]
            status, view = serve.call(
                "POST", f"/api/games/{view['id']}/act", {"action": move, "version": view["version"]}
            )
        assert status == 200, view
    raise AssertionError("the game did not end")


def test_the_servers_agent_processes_end_with_their_games(tmp_path: Path) -> None:
    """Two places; each game seats a cmd: agent that starts a child of its own. The count
    of those processes follows the games: none for a refused request, back to none after
    a game ends, is closed, idles out or the server stops."""
    (tmp_path / "bot.py").write_text(BOT)
    mark = f"mark-{os.getpid()}-serve"
    serve = Serve(
        tmp_path,
        "--max-games",
        "2",
        "--idle-minutes",
        "0.05",
        "--agents",
        f"bot=cmd:{sys.executable} bot.py {mark}",
    )
    try:
        assert marked(mark) == 0
        request = {"opponents": ["bot"], "flags": "max_hands=1 max_turns=8", "seed": 1}
        status, first = serve.call("POST", "/api/games", request)
        assert status == 200, first
        status, second = serve.call("POST", "/api/games", request)
        assert status == 200 and settled(mark, 4) == 4  # an agent and its child a game
        for _ in range(3):
            assert serve.call("POST", "/api/games", request)[0] == 503
        assert marked(mark) == 4  # refused: nothing started
        assert serve.call("DELETE", f"/api/games/{first['id']}")[0] == 200
        assert settled(mark, 2) == 2
        over = play_out(serve, second, np.random.default_rng(0))
        assert over["waiting"] == "over" and settled(mark, 0) == 0
        assert serve.call("DELETE", f"/api/games/{second['id']}")[0] == 200
        status, idle = serve.call("POST", "/api/games", request)
        assert status == 200 and settled(mark, 2) == 2
        assert settled(mark, 0, wait=30) == 0  # 3 s idle: closed with no request coming
        for _ in range(2):
            assert serve.call("POST", "/api/games", request)[0] == 200
        assert settled(mark, 4) == 4
    finally:
        err = serve.stop()
    assert settled(mark, 0) == 0 and "Traceback" not in err, err


def test_a_game_recovers_after_its_agent_fails_and_pages_see_only_offered_names(
    tmp_path: Path,
) -> None:
    """The first process of the agent dies at its first decision (502, its stderr to the
    log); the game seats a fresh one and goes on. No page ever sees the command line, its
    secret argument, the agent's stderr or a server path."""
    (tmp_path / "bot.py").write_text(
        "import json, os, sys\nfirst = not os.path.exists('started')\n"
        "open('started', 'a').close()\n"
        "for line in sys.stdin:\n    message = json.loads(line)\n"
        "    if 'hello' in message:\n        print(json.dumps({'name': '\\x1b[31mred'}), "
        "flush=True)\n        continue\n"
        "    if first:\n        sys.stderr.write('segfault in the secret sauce\\n')\n"
        "        sys.exit(4)\n"
        "    print(json.dumps({'action': message['legal'][0]['id']}), flush=True)\n"
    )
    records = tmp_path / "records"
    serve = Serve(
        tmp_path,
        "--records",
        str(records),
        "--agents",
        f"cmd:{sys.executable} {tmp_path / 'bot.py'} --token s3cr3t",
        "random",
    )
    try:
        status, options = serve.call("GET", "/api/options")
        name = f"cmd:{Path(sys.executable).name}"
        assert options["agents"] == [name, "random"]
        status, view = serve.call(
            "POST",
            "/api/games",
            {"mode": "watch", "opponents": [name, "random"], "flags": "max_hands=1", "seed": 2},
        )
        assert status == 200, view
        while status == 200:  # until the agent's first decision
            status, failed = serve.call(
                "POST", f"/api/games/{view['id']}/advance", {"version": view["version"]}
            )
            view = failed if status == 200 else view
        assert status == 502 and name in failed["error"], failed
        view = serve.call("GET", f"/api/games/{view['id']}")[1]
        for _ in range(20):  # the fresh agent plays on
            status, view = serve.call(
                "POST", f"/api/games/{view['id']}/advance", {"version": view["version"]}
            )
            assert status == 200, view
        assert view["names"] == [name, "random"]
        status, saved = serve.call("POST", f"/api/games/{view['id']}/save", {})
    finally:
        err = serve.stop()
    assert "segfault in the secret sauce" in err and "Traceback" not in err
    for body in serve.bodies:
        for secret in ("s3cr3t", "secret sauce", str(tmp_path), "\\u001b", "bot.py"):
            assert secret not in body, (secret, body)


def test_hang_ups_leave_no_traceback_and_a_burst_is_served(tmp_path: Path) -> None:
    serve = Serve(tmp_path)
    try:
        for _ in range(20):  # send a request and reset the connection at once
            sock = socket.create_connection((serve.host, serve.port))
            sock.sendall(
                b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                b"Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
            )
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            sock.close()
        answers: list[int] = []

        def ask() -> None:
            conn = http.client.HTTPConnection(serve.host, serve.port, timeout=20)
            conn.request("GET", "/api/options")
            answers.append(conn.getresponse().status)
            conn.close()

        burst = [threading.Thread(target=ask) for _ in range(200)]
        for thread in burst:
            thread.start()
        for thread in burst:
            thread.join()
        assert answers == [200] * 200
    finally:
        err = serve.stop()
    assert "Traceback" not in err and "Error" not in err, err


# --- files from outside ------------------------------------------------------------
class Payload:
    """Unpickling this writes a file: proof that a loader ran what an archive carried."""

    def __init__(self, path: Path) -> None:
        self.path = str(path)

    def __reduce__(self):
        return (Path.touch, (Path(self.path),))


@pytest.fixture(scope="module")
def sb3_model(tmp_path_factory) -> Path:
    pytest.importorskip("sb3_contrib", reason="sb3-contrib is not installed (the [clients] extra)")
    import gymnasium
    from sb3_contrib import MaskablePPO

    import rummy_env  # noqa: F401 - registers Rummy500-v1

    folder = tmp_path_factory.mktemp("sb3")
    MaskablePPO(
        "MlpPolicy",
        gymnasium.make("Rummy500-v1"),
        n_steps=64,
        batch_size=32,
        seed=0,
        policy_kwargs={"net_arch": [32, 32]},
    ).save(folder / "model")
    return folder / "model.zip"


def rewritten(source: Path, target: Path, **members: bytes) -> Path:
    """A copy of the archive ``source`` with ``members`` replaced or added."""
    import zipfile

    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as new:
        for item in old.infolist():
            if item.filename not in members:
                new.writestr(item, old.read(item.filename))
        for name, data in members.items():
            new.writestr(name, data)
    return target


def test_an_sb3_model_plays_as_its_own_library_would(sb3_model: Path) -> None:
    from sb3_contrib import MaskablePPO

    from rummy500.agents.sb3_agent import SB3Agent
    from rummy_env.core import Decision, Rules, encode, init, legal_mask, player_view

    rules = Rules()
    agent = SB3Agent(str(sb3_model), rules)
    state = init(rules, 7, batch_size=16)
    rows = np.arange(16)
    view = player_view(rules, state, state.current_player, rows)
    mask = legal_mask(rules, state)
    ours = agent.act(Decision(rules=rules, mask=mask, view=view))
    theirs, _ = MaskablePPO.load(sb3_model).predict(
        encode(rules, view), action_masks=mask, deterministic=True
    )
    assert (ours == theirs).all()


def test_a_pickle_in_an_sb3_archive_never_runs(sb3_model: Path, tmp_path: Path) -> None:
    """A payload in the pickled settings is never decoded (the model plays); one in the
    weights is refused by the weights-only reader; neither runs."""
    import base64
    import io
    import pickle
    import zipfile

    import torch

    proof = tmp_path / "ran"
    with zipfile.ZipFile(sb3_model) as archive:
        data = json.loads(archive.read("data"))
        weights = torch.load(io.BytesIO(archive.read("policy.pth")), weights_only=True)
    data["observation_space"][":serialized:"] = base64.b64encode(
        pickle.dumps(Payload(proof))
    ).decode()
    in_data = rewritten(sb3_model, tmp_path / "in_data.zip", data=json.dumps(data).encode())
    buffer = io.BytesIO()
    torch.save({**weights, "extra": Payload(proof)}, buffer)
    in_weights = rewritten(
        sb3_model, tmp_path / "in_weights.zip", **{"policy.pth": buffer.getvalue()}
    )
    done = rummy500(
        "eval",
        "--agents",
        f"sb3:{in_data}",
        "random",
        "--games",
        "2",
        "--no-progress",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    done = rummy500(
        "eval",
        "--agents",
        f"sb3:{in_weights}",
        "random",
        "--games",
        "2",
        "--no-progress",
        cwd=tmp_path,
    )
    assert done.returncode == 2 and "cannot load it" in one_error_line(done)
    assert not proof.exists()


def test_an_sb3_archive_that_inflates_is_refused_unread(sb3_model: Path, tmp_path: Path) -> None:
    bomb = rewritten(sb3_model, tmp_path / "bomb.zip", data=b" " * 300_000_000)
    assert bomb.stat().st_size < 2_000_000
    done = rummy500(
        "eval", "--agents", f"sb3:{bomb}", "random", "--games", "2", "--no-progress", cwd=tmp_path
    )
    assert done.returncode == 2 and "over 1,048,576 bytes" in one_error_line(done)


# --- a full disk -------------------------------------------------------------------
@pytest.fixture
def small_disk(tmp_path: Path):
    """A real file system of 320 KiB (tmpfs), mounted for the test; skipped, saying why,
    where this user may not mount one."""
    folder = tmp_path / "disk"
    folder.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=320k", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small file system here: {mounted.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def fill(folder: Path, leave: int) -> None:
    """Fill ``folder``'s file system but for about ``leave`` bytes."""
    free = os.statvfs(folder).f_bavail * os.statvfs(folder).f_frsize
    (folder / "filler").write_bytes(b"x" * max(0, free - leave))


def test_a_training_save_on_a_full_disk_is_one_line(small_disk: Path) -> None:
    done = rummy500(
        "train",
        "num_envs=4",
        "num_steps=8",
        "eval_every=0",
        "arch_kwargs={hidden: [256, 256]}",
        "opponents=[random]",
        "checkpoint_every=1",
        "progress=false",
        "torch_threads=1",
        "total_steps=64",
        f"run_dir={small_disk}",
        cwd=small_disk,
    )
    line = one_error_line(done)
    assert done.returncode == 1 and "No space left on device" in line, done.stderr
    assert not list(small_disk.rglob("*.pt")) and not list(small_disk.rglob("*.tmp"))


def test_eval_record_on_a_full_disk_keeps_whole_lines_and_the_report(small_disk: Path) -> None:
    from rummy_env.core import read_records

    record = small_disk / "games.jsonl"
    done = rummy500(
        "eval",
        "--agents",
        "random",
        "random",
        "--games",
        "400",
        "--no-progress",
        "--record",
        str(record),
        cwd=small_disk,
    )
    line = one_error_line(done)
    assert done.returncode == 1 and "No space left on device" in line
    kept = int(line.split("the ")[1].split()[0])
    assert 0 < kept < 400 and len(list(read_records(record))) == kept  # every line whole
    assert "| random#1 | 400 |" in done.stdout


def test_eval_out_on_a_full_disk_leaves_each_file_whole_or_absent(small_disk: Path) -> None:
    fill(small_disk, 6000)
    done = rummy500(
        "eval",
        "--agents",
        "random",
        "random",
        "--games",
        "100",
        "--no-progress",
        "--out",
        str(small_disk / "out"),
        cwd=small_disk,
    )
    line = one_error_line(done)
    assert done.returncode == 1 and "No space left on device" in line
    assert "| random#1 | 100 |" in done.stdout
    written = {p.name for p in (small_disk / "out").iterdir()}
    assert written < {"report.json", "agents.csv", "report.md", "win_rates.png"}
    if "report.json" in written:
        json.loads((small_disk / "out" / "report.json").read_text())
    if "agents.csv" in written:
        assert (small_disk / "out" / "agents.csv").read_text().count("\n") == 3


# --- names from outside ------------------------------------------------------------
EVIL_NAME = "\x1b[2J\x1b]0;owned\x07|evil\nname\u202e"


def test_names_from_outside_are_escaped_wherever_printed_or_written(tmp_path: Path) -> None:
    """An agent's own name with escape sequences, a newline, a bidi override and a ``|``:
    the terminal, report.md, agents.csv and a record file (and its replay) get it escaped,
    and every Markdown table row keeps its columns."""
    import csv

    (tmp_path / "bot.py").write_text(
        "import json, sys\nfor line in sys.stdin:\n    message = json.loads(line)\n"
        f"    if 'hello' in message:\n        print(json.dumps({{'name': {EVIL_NAME!r}}}), "
        "flush=True)\n        continue\n"
        "    print(json.dumps({'action': message['legal'][0]['id']}), flush=True)\n"
    )
    done = rummy500(
        "eval",
        "--agents",
        f"cmd:{sys.executable} bot.py",
        "random",
        "--games",
        "2",
        "--no-progress",
        "--out",
        "out",
        "--record",
        "games.jsonl",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    replayed = rummy500("replay", "games.jsonl", cwd=tmp_path)
    markdown = (tmp_path / "out" / "report.md").read_text()
    for text in (
        done.stdout,
        markdown,
        replayed.stdout,
        (tmp_path / "out" / "agents.csv").read_text(),
    ):
        assert not any(ch in text for ch in "\x1b\x07\u202e"), text
    escaped = "\\x1b[2J\\x1b]0;owned\\x07"
    for text in (done.stdout, markdown):
        header = next(line for line in text.splitlines() if line.startswith("| agent | games"))
        rows = [line for line in text.splitlines() if line.startswith("| ") and "evil" in line]
        assert rows and all(escaped + "\\|evil\\nname" in row for row in rows)
        assert len(rows[0].replace("\\|", "").split("|")) == len(header.split("|"))
    with open(tmp_path / "out" / "agents.csv", newline="") as f:
        names = [row["agent"] for row in csv.DictReader(f)]
    assert names[0] == escaped + "|evil\\nname\\u202e"
    assert escaped in replayed.stdout


# --- smaller -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["train", "--config", "twice.yaml"], ["'num_envs' is given twice", "line 2"]),
        (
            [
                "eval",
                "--agents",
                "random",
                "random",
                "--set",
                "floating=true",
                "--set",
                "discard_required=true",
            ],
            ["floating=True cannot take effect under discard_required"],
        ),
    ],
)
def test_a_key_twice_and_contradicting_rules_are_refused_by_name(
    tmp_path: Path, args: list, words: list
) -> None:
    (tmp_path / "twice.yaml").write_text("num_envs: 4\nnum_envs: 8\n")
    done = rummy500(*args, "run_dir=runs" if args[0] == "train" else "--no-progress", cwd=tmp_path)
    line = one_error_line(done)
    assert done.returncode == 2 and all(word in line for word in words), line
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("num_envs", [True, "4", 2.0, 0])
def test_odd_num_envs_are_refused_clearly(num_envs) -> None:
    import gymnasium

    import rummy_env  # noqa: F401 - registers the envs
    from rummy_env.envs.vector import RummyVectorEnv

    for make in (
        lambda: RummyVectorEnv(num_envs=num_envs),
        lambda: gymnasium.make_vec("Rummy500-v1", num_envs=num_envs),
    ):
        with pytest.raises(ValueError, match=r"num_envs=.* is not allowed; allowed: an integer"):
            make()


# --- sealed deals ------------------------------------------------------------------
CLAIRVOYANT = '''
"""Tries to rebuild the deal from everything it is given: its hello (the rules and its
seed) and its own dealt cards, against every seed an agent might guess: its own seed and
seeds near it, small seeds, the benchmark's published seeds of version 1, today's seed.
Writes the seeds that deal its hand to found.txt, then plays (or, with --quit, exits)."""
import json, sys
import numpy as np
from rummy_env.core import Rules, count_texts, daily_seed, init

hello = json.loads(sys.stdin.readline())["hello"]
print("{}", flush=True)
rules, own = Rules.from_dict(hello["rules"]), int(hello["seed"])
guesses = {own, daily_seed()[0], 500_001, 500_002, *range(0, 64)}
guesses |= {own - 1000 * k for k in range(1, 5)} | {own - s for s in range(8)}
searched = False
for line in sys.stdin:
    message = json.loads(line)
    view = message["view"]
    if not searched and view["hand_number"] == 1:
        searched, mine, found = True, sorted(view["hand"]), []
        for seed in sorted(g for g in guesses if 0 <= g < 2**63):
            state = init(rules, seed, game_ids=np.arange(64))
            for g in range(64):
                if any(sorted(count_texts(state.hand[g, s])) == mine
                       for s in range(rules.players)):
                    found.append(seed)
        with open("found.txt", "w") as f:
            f.write(json.dumps(found))
        if "--quit" in sys.argv:
            sys.exit(0)
    print(json.dumps({"action": message["legal"][0]["id"]}), flush=True)
'''


def found(folder: Path) -> list[int]:
    return json.loads((folder / "found.txt").read_text())


@pytest.mark.parametrize("given", [[], ["--seed", "3"]])
def test_a_clairvoyant_agent_learns_nothing_in_eval(tmp_path: Path, given: list) -> None:
    """Sealed (no seed given): the search finds nothing. The control: with a seed the
    operator chose and the agent can guess, the same search finds the deal."""
    (tmp_path / "clairvoyant.py").write_text(CLAIRVOYANT)
    done = rummy500(
        "eval",
        "--agents",
        f"cmd:{sys.executable} clairvoyant.py",
        "random",
        "--games",
        "2",
        "--no-progress",
        "--out",
        "out",
        *given,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert (3 in found(tmp_path)) if given else found(tmp_path) == []
    meta = json.loads((tmp_path / "out" / "report.json").read_text())["meta"]
    assert meta["sealed"] is not bool(given)
    if not given:  # the report's seeds replay the match game for game
        again = rummy500(
            "eval",
            "--agents",
            f"cmd:{sys.executable} clairvoyant.py",
            "random",
            "--games",
            "2",
            "--no-progress",
            "--out",
            "again",
            "--seed",
            str(meta["seed"]),
            "--agent-seed",
            str(meta["agent_seed"]),
            cwd=tmp_path,
        )
        replayed = json.loads((tmp_path / "again" / "report.json").read_text())
        assert [a["points_per_hand"] for a in replayed["agents"]] == [
            a["points_per_hand"]
            for a in json.loads((tmp_path / "out" / "report.json").read_text())["agents"]
        ]
        assert again.returncode == 0


@pytest.mark.parametrize("given", [[], ["--seed", "3"]])
def test_a_clairvoyant_agent_learns_nothing_in_tournaments(tmp_path: Path, given: list) -> None:
    (tmp_path / "clairvoyant.py").write_text(CLAIRVOYANT)
    done = rummy500(
        "tournament",
        "--agents",
        f"cmd:{sys.executable} clairvoyant.py",
        "random",
        "--table-size",
        "2",
        "--tournaments",
        "1",
        "--no-progress",
        "--out",
        "out",
        *given,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert (3 in found(tmp_path)) if given else found(tmp_path) == []
    meta = json.loads((tmp_path / "out" / "tournament.json").read_text())["meta"]
    assert meta["sealed"] is not bool(given)
    assert ("drawn unseen" in done.stdout) is not bool(given)


def test_the_python_functions_seal_a_match_that_seats_a_process(tmp_path: Path) -> None:
    (tmp_path / "clairvoyant.py").write_text(CLAIRVOYANT)
    code = (
        "import json, rummy500, sys\n"
        "spec = f'cmd:{sys.executable} clairvoyant.py'\n"
        "report = rummy500.evaluate([spec, 'random'], games=2, workers=1)\n"
        "print(json.dumps(report['meta']))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    meta = json.loads(done.stdout.strip().splitlines()[-1])
    assert meta["sealed"] is True and found(tmp_path) == []
    assert meta["seed"] > 2**32 and meta["agent_seed"] != meta["seed"]


@pytest.mark.parametrize("given", [[], ["--seed", "500002", "--agent-seed", "500002"]])
def test_a_clairvoyant_agent_learns_nothing_in_the_benchmark(tmp_path: Path, given: list) -> None:
    """It searches at its first decision and quits (which ends the run in one line). The
    control: version 1's published seed, replayed, is found."""
    (tmp_path / "clairvoyant.py").write_text(CLAIRVOYANT)
    done = rummy500(
        "benchmark",
        f"cmd:{sys.executable} clairvoyant.py --quit",
        "--quick",
        "--workers",
        "1",
        "--no-progress",
        *given,
        cwd=tmp_path,
    )
    assert done.returncode == AGENT_FAILED and "Traceback" not in done.stderr, done.stderr
    assert (500_002 in found(tmp_path)) if given else found(tmp_path) == []


def test_a_clairvoyant_agent_learns_nothing_at_the_web_table(tmp_path: Path) -> None:
    (tmp_path / "clairvoyant.py").write_text(CLAIRVOYANT)
    serve = Serve(tmp_path, "--agents", f"seer=cmd:{sys.executable} clairvoyant.py")
    try:
        for seed, expected in ((None, []), (7, [7])):  # a deal not chosen; the control
            request = {"mode": "watch", "opponents": ["seer", "seer"]}
            status, view = serve.call(
                "POST", "/api/games", request if seed is None else {**request, "seed": seed}
            )
            assert status == 200, view
            for _ in range(4):
                status, view = serve.call(
                    "POST", f"/api/games/{view['id']}/advance", {"version": view["version"]}
                )
                assert status == 200, view
            assert set(expected) <= set(found(tmp_path)) and bool(found(tmp_path)) == bool(expected)
            (tmp_path / "found.txt").unlink()
    finally:
        serve.stop()


WRITERS = '''
import numpy as np


class Writer:
    """Writes into the mask it is handed, to make an illegal move look legal."""

    name = "writer"

    def __init__(self, rules, seed):
        pass

    def act(self, decision):
        {how}
        decision.mask[:, 0] = True
        return np.zeros(decision.size, np.int64)
'''


@pytest.mark.parametrize(
    ("how", "words"),
    [
        ("pass", "assignment destination is read-only"),
        ("decision.mask.setflags(write=True)", "illegal action"),
    ],
)
def test_an_agent_cannot_make_its_move_legal_by_writing_the_mask(
    tmp_path: Path, how: str, words: str
) -> None:
    """The mask is a read-only view; one made writable again is still judged against the
    mask as it was handed over."""
    (tmp_path / "writers.py").write_text(WRITERS.format(how=how))
    done = rummy500(
        "eval",
        "--agents",
        "py:writers:Writer",
        "random",
        "--games",
        "2",
        "--no-progress",
        cwd=tmp_path,
    )
    assert done.returncode == AGENT_FAILED and words in one_error_line(done), done.stderr

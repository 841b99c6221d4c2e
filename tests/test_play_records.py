"""The terminal game (driven through a pseudo-terminal) and game records."""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from rummy500.agents.registry import make_agent
from rummy500.commands.play import play_game
from rummy_env.core import GameRecord, Rules, read_records, replay, write_records

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class Terminal:
    """``rummy500 play`` on a pseudo-terminal: type lines, read the screen.

    It starts with SIGINT ignored, as a script's background job (``nohup ... &``) starts
    its children: Ctrl-C must still leave the game, and the test must not depend on how
    the suite itself was started."""

    def __init__(self, *args: str) -> None:
        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "rummy500.cli", "play", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=ROOT,
            start_new_session=True,
            preexec_fn=_ignore_sigint,
        )
        os.close(slave)
        self.screen = ""

    def read_until(self, text: str, timeout: float = 120) -> str:
        end = time.time() + timeout
        while text not in self.screen:
            if time.time() > end:
                raise AssertionError(f"timed out waiting for {text!r}; screen:\n{self.screen}")
            ready, _, _ = select.select([self.master], [], [], 0.2)
            if ready:
                try:
                    self.screen += os.read(self.master, 65536).decode(errors="replace")
                except OSError:
                    break
        return self.screen

    def type(self, line: str) -> None:
        self.screen = ""
        os.write(self.master, (line + "\n").encode())

    def close(self) -> int:
        """Wait for the program to exit, keep what it printed last, return its exit code."""
        try:
            try:
                code = self.proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                stuck = self._where_stuck()
                self.proc.kill()
                raise AssertionError(f"play did not exit; its process: {stuck}") from None
            while select.select([self.master], [], [], 0.5)[0]:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                self.screen += chunk.decode(errors="replace")
            return code
        finally:
            os.close(self.master)

    def _where_stuck(self) -> str:
        """The state, signal masks and kernel wait of the program (to tell a lost signal
        from a blocked write or a hung exit)."""
        status = Path(f"/proc/{self.proc.pid}/status").read_text().splitlines()
        keep = [
            line
            for line in status
            if line.split(":")[0]
            in ("State", "Threads", "SigPnd", "ShdPnd", "SigBlk", "SigIgn", "SigCgt")
        ]
        wchan = Path(f"/proc/{self.proc.pid}/wchan").read_text()
        return "; ".join(keep + [f"wchan: {wchan}", f"screen: {self.screen[-300:]!r}"])


def test_play_in_a_terminal_survives_bad_input_and_leaves_on_ctrl_c() -> None:
    term = Terminal("--opponents", "casual", "--seed", "5")
    term.read_until("your move")
    assert "your hand:" in term.screen and "discard pile (depth)" in term.screen
    term.type("fly to the moon")
    term.read_until("your move")
    assert "cannot read action" in term.screen
    term.type("999")
    term.read_until("your move")
    assert "no move 999" in term.screen
    term.type("discard 2C")
    term.read_until("your move")
    assert "not legal now" in term.screen or "cannot read" in term.screen
    term.type("1")  # a legal move: the game goes on
    term.read_until("your move")
    term.screen = ""
    os.killpg(term.proc.pid, signal.SIGINT)
    assert term.close() == 0
    assert "bye" in term.screen


def test_play_leaves_when_the_person_types_quit() -> None:
    term = Terminal("--opponents", "random", "--seed", "6")
    term.read_until("q to quit")
    term.type("quit")
    assert term.close() == 0
    assert "bye" in term.screen and "cannot read" not in term.screen


def test_play_leaves_cleanly_on_sigterm() -> None:
    term = Terminal("--opponents", "random", "--seed", "6")
    term.read_until("your move")
    term.screen = ""
    os.killpg(term.proc.pid, signal.SIGTERM)
    assert term.close() == 0
    assert "bye" in term.screen


def _first_legal(prompt_lines: list[str]):
    """A scripted person who always picks move 1."""

    def ask(prompt: str) -> str:
        prompt_lines.append(prompt)
        return "1"

    return ask


def test_a_played_game_records_and_replays_exactly(tmp_path: Path) -> None:
    rules = Rules.from_dict({"target": 150})
    prompts: list[str] = []
    recorder = play_game(
        rules,
        [make_agent("casual", rules, 0)],
        seed=9,
        ask=_first_legal(prompts),
        say=lambda _: None,
    )
    (record,) = recorder.done
    assert prompts and record.result["hands"] >= 1
    path = tmp_path / "games.jsonl"
    write_records(path, [record])
    (loaded,) = list(read_records(path))
    assert loaded == record
    state = replay(loaded)
    assert state.game_over[0] and state.totals[0].tolist() == record.result["totals"]


def test_replay_rejects_a_tampered_record() -> None:
    rules = Rules.from_dict({"target": 100})
    recorder = play_game(
        rules, [make_agent("random", rules, 0)], seed=2, ask=_first_legal([]), say=lambda _: None
    )
    record = recorder.done[0]
    bad = GameRecord(**{**record.__dict__, "actions": ["discard JK"] + record.actions[1:]})
    with pytest.raises(ValueError):
        replay(bad)
    wrong = GameRecord(
        **{**record.__dict__, "result": {**record.result, "totals": [0] * rules.players}}
    )
    with pytest.raises(ValueError, match="the record says"):
        replay(wrong)


def test_replay_cli_steps_through_a_file(tmp_path: Path) -> None:
    rules = Rules.from_dict({"target": 100})
    recorder = play_game(
        rules, [make_agent("casual", rules, 0)], seed=4, ask=_first_legal([]), say=lambda _: None
    )
    path = tmp_path / "g.jsonl"
    write_records(path, recorder.done)
    done = subprocess.run(
        [sys.executable, "-m", "rummy500.cli", "replay", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "replay matches the record" in done.stdout
    assert np.sum([line.startswith("  ") for line in done.stdout.splitlines()]) == len(
        recorder.done[0].actions
    )


def test_eval_records_every_game_and_each_replays(tmp_path: Path) -> None:
    from rummy500.commands.eval import main as eval_main

    path = tmp_path / "match.jsonl"
    code = eval_main(
        [
            "--agents",
            "casual",
            "random",
            "--games",
            "4",
            "--set",
            "target=100",
            "--duplicate",
            "--no-progress",
            "--record",
            str(path),
        ]
    )
    assert code == 0
    records = list(read_records(path))
    assert len(records) == 4
    assert {tuple(r.agents) for r in records} == {("casual", "random"), ("random", "casual")}
    for record in records:
        state = replay(record)
        assert state.game_over[0]

"""Game records: one game per JSON line, replayable exactly through the core.

A record holds the rules, the seed and game id of the deal (so the core deals
the very same cards again), who sat where, every action's canonical text and
the result. ``replay`` steps a record through the core and checks that it ends
with the recorded result.

    {"format": "rummy500-record/1", "rules": {...}, "seed": 7, "game_id": 0,
     "agents": ["human", "sharp"], "actions": ["draw", "discard 9C", ...],
     "result": {"totals": [512, 230], "winner": 0, "truncated": false, "hands": 4}}
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from .actions import action_layout
from .names import printable_name
from .rules import Rules, is_int
from .state import State
from .step import init, legal_mask, step_inplace

FORMAT = "rummy500-record/1"


@dataclass
class GameRecord:
    """One game: the deal (rules, seed, game id), who sat where, every action, the result."""

    rules: dict[str, Any]
    seed: int
    game_id: int
    agents: list[str]
    actions: list[str] = field(default_factory=list)
    result: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps({"format": FORMAT, **asdict(self)})

    @classmethod
    def from_json(cls, line: str) -> GameRecord:
        """A record from its JSON line; ValueError with a one-line reason if it is not one."""
        data = json.loads(line)
        if not isinstance(data, dict) or data.pop("format", None) != FORMAT:
            raise ValueError(f"not a {FORMAT} record")
        unknown = sorted(set(data) - {f.name for f in fields(cls)})
        if unknown:
            raise ValueError(f"unknown record key(s) {unknown}")
        record = cls(**data)
        record.check()
        record.agents = [printable_name(a) for a in record.agents]  # a file's names are
        return record  # printed and shown

    def check(self) -> None:
        """ValueError naming the first field that cannot describe a real game."""
        rules = Rules.from_dict(self.rules)
        for name in ("seed", "game_id"):
            value = getattr(self, name)
            if not (is_int(value) and 0 <= value < 2**63):
                raise ValueError(f"record {name}={value!r}: expected an integer in 0..2**63-1")
        if not (
            isinstance(self.agents, list)
            and len(self.agents) == rules.players
            and all(isinstance(a, str) for a in self.agents)
        ):
            raise ValueError(f"record agents: expected {rules.players} names, got {self.agents!r}")
        if not (isinstance(self.actions, list) and all(isinstance(a, str) for a in self.actions)):
            raise ValueError("record actions: expected a list of action texts")
        if not isinstance(self.result, dict):
            raise ValueError("record result: expected an object")


def game_result(state: State, g: int) -> dict[str, Any]:
    """The result fields of game ``g`` (final once the game is over)."""
    winner = int(state.winner[g])
    return {
        "totals": state.totals[g].tolist(),
        "winner": winner if winner >= 0 else None,
        "truncated": bool(state.truncated[g]),
        "hands": int(state.hand_number[g]) + 1,
    }


def replay(record: GameRecord, on_step=None) -> State:
    """Play the record through the core; ValueError if an action is illegal or the
    result differs. ``on_step(state, action_text)`` is called before each action."""
    rules = Rules.from_dict(record.rules)
    action_ids = action_layout(rules)
    state = init(rules, record.seed, game_ids=np.array([record.game_id]))
    for i, text in enumerate(record.actions):
        if on_step is not None:
            on_step(state, text)
        mask = legal_mask(rules, state)
        action = action_ids.parse(text)
        if not mask[0, action]:
            raise ValueError(f"record action {i} ({text!r}) is not legal in the replayed game")
        step_inplace(rules, state, np.array([action]), mask=mask)
    if record.result and game_result(state, 0) != record.result:
        raise ValueError(
            f"replay ended with {game_result(state, 0)}, the record says {record.result}"
        )
    return state


MAX_RECORD_LINE = 16 * 1024 * 1024
"""Longest record line read, in bytes (a game of thousands of moves takes a few hundred
KB): a longer line is damaged, not a game, and is skipped unread."""


def write_records(path: str | Path, records: Iterable[GameRecord], append: bool = True) -> None:
    """Write ``records`` as JSON lines, appended by default. Each game is one ``write`` of
    one whole line, flushed to disk at the end; an append to a file whose last line was cut
    off (a crash while writing) starts on a fresh line, so only that cut game is lost. A
    write that fails (a full disk) cuts the file back to its last whole line and raises
    OSError, whose ``records_written`` says how many of ``records`` are in the file."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | (os.O_APPEND if append else os.O_TRUNC), 0o666)
    try:
        end, written = os.lseek(fd, 0, os.SEEK_END), 0
        try:
            if append and end > 0 and os.pread(fd, 1, end - 1) != b"\n":
                _write_all(fd, b"\n")
            for record in records:
                line = (record.to_json() + "\n").encode("utf-8")
                _write_all(fd, line)
                end, written = os.lseek(fd, 0, os.SEEK_CUR), written + 1
            os.fsync(fd)
        except OSError as e:
            os.ftruncate(fd, end)  # frees the part of a line written: no half line is left
            e.records_written = written  # type: ignore[attr-defined]  # the recorder reads it
            raise
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` to ``fd`` (a short write goes on; a failed one raises OSError)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def write_whole(path: str | Path, data: bytes) -> Path:
    """Write ``data`` as the file ``path``, whole or not at all: to a temporary file in the
    same folder, flushed to disk, then renamed over ``path``. A write that fails (a full
    disk) leaves ``path`` as it was and raises OSError."""
    path = Path(path)
    tmp = path.parent / f"{path.name}.{secrets.token_hex(6)}.tmp"
    try:  # (0o666: the file gets the permissions the umask gives, as open() would)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException as e:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(e, OSError):  # named by the file meant, not the temporary one
            raise OSError(e.errno, e.strerror, str(path)) from None
        raise
    return path


def read_records(
    path: str | Path, on_bad_line: Callable[[str], None] | None = None
) -> Iterator[GameRecord]:
    """The records of a JSON-lines file, in order (``numbered_records`` without numbers)."""
    for _, record in numbered_records(path, on_bad_line):
        yield record


def numbered_records(
    path: str | Path, on_bad_line: Callable[[str], None] | None = None
) -> Iterator[tuple[int, GameRecord]]:
    """(line number, record) of each game of a JSON-lines file, in order.

    A damaged line (cut, not UTF-8, not a record, an impossible field, too long) raises
    ValueError naming ``file:line`` and the game's index; with ``on_bad_line`` it is
    reported there instead and skipped, so every intact game still reads.
    """
    with open(path, "rb") as f:
        game = -1
        for n, raw in enumerate(_lines(f), 1):
            if not raw.strip():
                continue
            game += 1
            try:
                if len(raw) > MAX_RECORD_LINE:
                    raise ValueError(f"a line of {len(raw):,} bytes is no record")
                yield n, GameRecord.from_json(raw.decode("utf-8"))
            except (ValueError, TypeError, RecursionError) as e:
                reason = "not UTF-8 text" if isinstance(e, UnicodeDecodeError) else e
                message = f"{path}:{n}: game {game}: {reason}"
                if on_bad_line is None:
                    raise ValueError(message) from None
                on_bad_line(message)


def _lines(f) -> Iterator[bytes]:
    """The lines of a binary file; a line longer than ``MAX_RECORD_LINE`` comes back cut
    to one byte past that size (the rest of it skipped), never read whole into memory."""
    while True:
        line = f.readline(MAX_RECORD_LINE + 1)
        if not line:
            return
        if len(line) > MAX_RECORD_LINE and not line.endswith(b"\n"):
            while (rest := f.readline(MAX_RECORD_LINE)) and not rest.endswith(b"\n"):
                pass
        yield line


class BatchRecorder:
    """Collects the records of games played in a batch. Each open game has a key (its
    row, or its index in a match) so rows may move while games are played. With ``path``
    each game is appended to that file as it finishes, so a process killed mid-match
    loses only the games still being played; a write that fails (a full disk) leaves the
    file whole, stops the writing and says why in ``failed`` (the games stay in
    ``done``)."""

    def __init__(self, rules: Rules, seed: int, path: str | Path | None = None) -> None:
        self.rules, self.seed, self.path = rules, seed, path
        self.action_ids = action_layout(rules)
        self.open: dict[int, GameRecord] = {}
        self.done: list[GameRecord] = []
        self.written = 0
        """Games appended to ``path``."""
        self.failed: str | None = None
        """Why writing to ``path`` stopped (``cannot write PATH: reason``), else None."""

    def start(self, key: int, game_id: int, agents: list[str]) -> None:
        self.open[int(key)] = GameRecord(self.rules.to_dict(), self.seed, int(game_id), agents)

    def actions(self, keys: np.ndarray, actions: np.ndarray) -> None:
        for key, action in zip(np.asarray(keys).tolist(), np.asarray(actions).tolist()):
            if key in self.open:
                self.open[key].actions.append(self.action_ids.text(action))

    def add(self, records: list[GameRecord]) -> None:
        """Take games finished elsewhere (by a worker process), as if they finished here."""
        self._keep(records)

    def finish(self, state: State, rows: np.ndarray, keys: np.ndarray | None = None) -> None:
        """Close the games of ``keys`` (default: the rows), reading results from ``rows``."""
        keys = rows if keys is None else keys
        finished = []
        for row, key in zip(np.asarray(rows).tolist(), np.asarray(keys).tolist()):
            record = self.open.pop(key, None)
            if record is not None:
                record.result = game_result(state, row)
                finished.append(record)
        self._keep(finished)

    def _keep(self, records: list[GameRecord]) -> None:
        """Hold finished games, and append them to ``path`` at once (until a write fails)."""
        self.done += records
        if self.path is not None and records and self.failed is None:
            try:
                write_records(self.path, records)
                self.written += len(records)
            except OSError as e:
                self.written += getattr(e, "records_written", 0)
                self.failed = f"cannot write {self.path}: {e.strerror or e}"

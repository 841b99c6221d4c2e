"""The games and replays the server holds, one per browser tab, and how a new one is set up.

Each gets an unguessable id. Their number is bounded and one left alone for
``idle_seconds`` is dropped, so forgotten tabs cannot fill the server.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from rummy500.agents.registry import BUILTIN, make_agent
from rummy_env.config import parse_overrides
from rummy_env.core import GameRecord, Rules, daily_seed

from .live import LiveGame
from .refusals import Refusal
from .replays import ReplayFile

MAX_RECORDS = 2000
"""Most games one uploaded record file may hold."""


class Tables:
    """Live games and opened record files by id, bounded in number, idle ones expired."""

    def __init__(self, max_tables: int = 32, idle_seconds: float = 1800.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.max_tables, self.idle_seconds, self.clock = max_tables, idle_seconds, clock
        self.lock = threading.Lock()
        self.items: dict[str, LiveGame | ReplayFile] = {}

    def add(self, item: LiveGame | ReplayFile) -> str:
        """Keep ``item`` under a new id; 503 when the server already holds its limit."""
        with self.lock:
            self._expire()
            if len(self.items) >= self.max_tables:
                raise Refusal(503, f"the server holds {self.max_tables} games already; "
                              "close a tab or try again later")
            table_id = secrets.token_urlsafe(12)
            item.touched = self.clock()
            self.items[table_id] = item
            return table_id

    def get(self, table_id: str, kind: type) -> Any:
        """The game or record file of ``table_id`` (404 when unknown, expired or another kind)."""
        with self.lock:
            self._expire()
            item = self.items.get(table_id)
            if not isinstance(item, kind):
                raise Refusal(404, f"no such {'replay' if kind is ReplayFile else 'game'} "
                              f"{table_id!r} (unknown, or closed after idling)")
            item.touched = self.clock()
            return item

    def close(self, table_id: str) -> None:
        """Drop a game or record file (404 if there is none by that id)."""
        with self.lock:
            if self.items.pop(table_id, None) is None:
                raise Refusal(404, f"no such game {table_id!r}")

    def _expire(self) -> None:
        now = self.clock()
        for table_id in [k for k, v in self.items.items()
                         if now - v.touched > self.idle_seconds]:
            del self.items[table_id]


def _field(body: dict[str, Any], name: str, kind: type, default: Any) -> Any:
    """``body[name]`` if it is of type ``kind`` (``default`` when absent or null; a 400
    naming the field otherwise; ``true`` is not an integer)."""
    value = body.get(name)
    if value is None:
        return default
    if type(value) is not kind:
        raise Refusal(400, f"'{name}' must be {_KIND_WORDS[kind]}")
    return value


_KIND_WORDS = {str: "a string", int: "an integer", bool: "true or false", list: "a list"}


def rules_of(body: dict[str, Any]) -> Rules:
    """The rules a new-game request names: ``preset``, ``players``, ``flags`` (``"target=250
    wrap=true"``, as ``--set`` takes them)."""
    preset = _field(body, "preset", str, "standard")
    players = _field(body, "players", int, 2)
    flags = _field(body, "flags", str, "")
    try:
        return Rules.from_dict({"preset": preset, "players": players,
                                **parse_overrides(flags.split())})
    except ValueError as e:
        raise Refusal(400, str(e)) from None


TABLE_AGENTS = tuple(BUILTIN)
"""The agents a page may seat when the server is started without ``--agents``."""


def new_game(body: dict[str, Any], offered: Sequence[str] = TABLE_AGENTS) -> LiveGame:
    """A game from a request: ``mode`` play (you at ``seat`` against ``opponents``) or watch
    (``opponents`` in every seat), the rules, and ``seed``, or ``daily`` for today's deal.
    Every opponent must be one of the agent specs ``offered``, as written there: a page
    never names an agent (code to run, a file to read) of its own."""
    mode = _field(body, "mode", str, "play")
    if mode not in ("play", "watch"):
        raise Refusal(400, "'mode' must be 'play' or 'watch'")
    rules = rules_of(body)
    specs = _field(body, "opponents", list, ["sharp"])
    if not specs or not all(isinstance(s, str) and s.strip() for s in specs):
        raise Refusal(400, "'opponents' must be a non-empty list of agent names")
    for spec in specs:
        if spec.strip() not in offered:
            raise Refusal(400, f"this table does not offer the agent {spec.strip()[:80]!r}; "
                          f"it offers: {', '.join(offered)}")
    person = _field(body, "seat", int, 0) if mode == "play" else None
    if person is not None and not 0 <= person < rules.players:
        raise Refusal(400, f"'seat' must be in 0..{rules.players - 1}")
    if _field(body, "daily", bool, False):
        seed = daily_seed()[0]
    else:
        seed = _field(body, "seed", int, None)
        seed = secrets.randbelow(2**31) if seed is None else seed
        if not 0 <= seed < 2**63:
            raise Refusal(400, "'seed' must be in 0..2**63-1")
    seats = [s for s in range(rules.players) if s != person]
    try:
        agents = {s: make_agent(specs[k % len(specs)].strip(), rules, seed=seed + s)
                  for k, s in enumerate(seats)}
    except (ValueError, NotImplementedError) as e:
        raise Refusal(400, str(e)) from None
    return LiveGame(rules, seed, agents, person)


def record_file(body: dict[str, Any]) -> ReplayFile:
    """A record file from a request: ``records``, the file's text (JSON lines)."""
    text = _field(body, "records", str, None)
    if text is None:
        raise Refusal(400, "'records' must hold the text of a record file (JSON lines)")
    records = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            records.append(GameRecord.from_json(line))
        except (ValueError, TypeError) as e:
            raise Refusal(400, f"line {n}: {e}") from None
        if len(records) > MAX_RECORDS:
            raise Refusal(413, f"a record file may hold at most {MAX_RECORDS} games")
    if not records:
        raise Refusal(400, "the file holds no game record")
    return ReplayFile(records)


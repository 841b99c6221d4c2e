"""The games and replays the server holds, one per browser tab, and how a new one is set up.

Each gets an unguessable id. Their number is bounded and one left alone for
``idle_seconds`` is dropped, so forgotten tabs cannot fill the server. A place is
taken before a game is made (a refused request starts no agent), and a game that is
closed, expires or is left when the server stops is closed itself (its agents'
processes end).
"""

from __future__ import annotations

import re
import secrets
import shlex
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import PurePath
from typing import Any

from rummy500.agents.base import Agent
from rummy500.agents.outside import outside_spec
from rummy500.agents.registry import BUILTIN, make_agent
from rummy_env.config import parse_overrides
from rummy_env.core import GameRecord, Rules, daily_seed

from .live import LiveGame, close_agent
from .refusals import AgentUnavailable, Refusal
from .replays import ReplayFile

MAX_RECORDS = 2000
"""Most games one uploaded record file may hold."""


class Tables:
    """Live games and opened record files by id, bounded in number, idle ones expired."""

    def __init__(
        self,
        max_tables: int = 32,
        idle_seconds: float = 1800.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.max_tables, self.idle_seconds, self.clock = max_tables, idle_seconds, clock
        self.lock = threading.Lock()
        self.items: dict[str, LiveGame | ReplayFile] = {}
        self.making = 0
        """Places taken by items being made."""

    def add(self, make: Callable[[], LiveGame | ReplayFile]) -> tuple[str, Any]:
        """(new id, item): ``make()``'s item kept under a new id. Its place is taken first:
        503 without calling ``make`` when the server already holds its limit."""
        with self.lock:
            expired = self._expire()
            full = len(self.items) + self.making >= self.max_tables
            self.making += not full
        _close(expired)
        if full:
            raise Refusal(
                503,
                f"the server holds {self.max_tables} games already; close a tab or try again later",
            )
        try:
            item = make()
        finally:
            with self.lock:
                self.making -= 1
        with self.lock:
            table_id = secrets.token_urlsafe(12)
            item.touched = self.clock()
            self.items[table_id] = item
        return table_id, item

    def get(self, table_id: str, kind: type) -> Any:
        """The game or record file of ``table_id`` (404 when unknown, expired or another kind)."""
        with self.lock:
            expired = self._expire()
            item = self.items.get(table_id)
            if isinstance(item, kind):
                item.touched = self.clock()
        _close(expired)
        if not isinstance(item, kind):
            raise Refusal(
                404,
                f"no such {'replay' if kind is ReplayFile else 'game'} "
                f"{table_id!r} (unknown, or closed after idling)",
            )
        return item

    def close(self, table_id: str) -> None:
        """Drop a game or record file and close it (404 if there is none by that id)."""
        with self.lock:
            item = self.items.pop(table_id, None)
        if item is None:
            raise Refusal(404, f"no such game {table_id!r}")
        _close([item])

    def expire(self) -> None:
        """Drop and close the items left alone for ``idle_seconds``."""
        with self.lock:
            expired = self._expire()
        _close(expired)

    def close_all(self) -> None:
        """Drop and close every item (the server stops)."""
        with self.lock:
            items, self.items = list(self.items.values()), {}
        _close(items)

    def _expire(self) -> list[Any]:
        """Drop the idle items (the lock held); they are returned to be closed after."""
        now = self.clock()
        idle = [k for k, v in self.items.items() if now - v.touched > self.idle_seconds]
        return [self.items.pop(table_id) for table_id in idle]


def _close(items: Sequence[Any]) -> None:
    """Close each item that holds something (a live game's agents), outside the lock: a
    process may take a moment to end."""
    for item in items:
        if callable(getattr(item, "close", None)):
            item.close()


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
        return Rules.from_dict(
            {"preset": preset, "players": players, **parse_overrides(flags.split())}
        )
    except ValueError as e:
        raise Refusal(400, str(e)) from None


TABLE_AGENTS = tuple(BUILTIN)
"""The agents a page may seat when the server is started without ``--agents``."""

LABEL = re.compile(r"^([A-Za-z0-9][A-Za-z0-9 _.@#+-]{0,39})=(.+)$", re.S)
"""``NAME=SPEC``: an agent offered under a name of the operator's choosing."""


def offered_agents(specs: Sequence[str]) -> dict[str, str]:
    """Name a page sees -> agent spec, for the ``--agents`` of a server: ``NAME=SPEC`` under
    NAME; a built-in name as it is; an outside spec under its kind and a short name that
    shows no command line, option or folder (``cmd:python``, ``ckpt:best.pt``; a second
    one the same gets ``#2``; ``py:MODULE:NAME`` as it is). A page is told only these
    names, never a spec."""
    offered: dict[str, str] = {}
    for spec in specs:
        spec = spec.strip()
        labelled = LABEL.match(spec)
        name, spec = (
            (labelled.group(1).strip(), labelled.group(2).strip())
            if labelled
            else (short_name(spec), spec)
        )
        unique, n = name, 1
        while unique in offered:
            n += 1
            unique = f"{name}#{n}"
        offered[unique] = spec
    return offered


def short_name(spec: str) -> str:
    """What a page may call the agent of ``spec`` (see ``offered_agents``)."""
    outside = outside_spec(spec)
    if outside is None:
        return spec
    kind, _, target = outside
    if kind == "py":  # a module and a name: no folder, no arguments
        return spec
    if kind == "cmd":
        try:
            target = shlex.split(target)[0]
        except (ValueError, IndexError):
            pass
    return f"{kind}:{PurePath(target).name[:40]}"


def new_game(body: dict[str, Any], offered: dict[str, str]) -> LiveGame:
    """A game from a request: ``mode`` play (you at ``seat`` against ``opponents``) or watch
    (``opponents`` in every seat), the rules, and ``seed``, or ``daily`` for today's deal.
    Every opponent must be one of the names ``offered`` (``offered_agents``): a page never
    names an agent (code to run, a file to read) of its own. An agent that cannot be made
    is a 502 whose reason goes to the server's log, not to the page. A deal not chosen is
    drawn from 63 bits of entropy and each agent's seed apart from it, so no agent can
    rebuild the deal from what it is given (a chosen or daily deal is the person's pick)."""
    mode = _field(body, "mode", str, "play")
    if mode not in ("play", "watch"):
        raise Refusal(400, "'mode' must be 'play' or 'watch'")
    rules = rules_of(body)
    specs = _field(body, "opponents", list, ["sharp"])
    if not specs or not all(isinstance(s, str) and s.strip() for s in specs):
        raise Refusal(400, "'opponents' must be a non-empty list of agent names")
    for spec in specs:
        if spec.strip() not in offered:
            raise Refusal(
                400,
                f"this table does not offer the agent {spec.strip()[:80]!r}; "
                f"it offers: {', '.join(offered)}",
            )
    person = _field(body, "seat", int, 0) if mode == "play" else None
    if person is not None and not 0 <= person < rules.players:
        raise Refusal(400, f"'seat' must be in 0..{rules.players - 1}")
    chosen = {s: specs[k % len(specs)].strip() for k, s in enumerate(seats_of(rules, person))}
    if _field(body, "daily", bool, False):
        seed = daily_seed()[0]
    else:
        seed = _field(body, "seed", int, None)
        seed = secrets.randbits(63) if seed is None else seed  # unseen: no search finds it
        if not 0 <= seed < 2**63:
            raise Refusal(400, "'seed' must be in 0..2**63-1")

    def make(seat: int) -> Agent:  # its own seed, unrelated to the deal's
        return make_agent(offered[chosen[seat]], rules, seed=secrets.randbits(63))

    agents: dict[int, Agent] = {}
    try:
        for seat in chosen:
            agents[seat] = make(seat)
    except (ValueError, NotImplementedError) as e:
        for agent in agents.values():
            close_agent(agent)
        raise AgentUnavailable(chosen[seat], f"cannot be started: {e}") from None
    return LiveGame(rules, seed, agents, person, names=chosen, remake=make)


def seats_of(rules: Rules, person: int | None) -> list[int]:
    """The seats agents take: every seat but the person's."""
    return [s for s in range(rules.players) if s != person]


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

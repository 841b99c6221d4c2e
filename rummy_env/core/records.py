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
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from .actions import action_layout
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
        return record

    def check(self) -> None:
        """ValueError naming the first field that cannot describe a real game."""
        rules = Rules.from_dict(self.rules)
        for name in ("seed", "game_id"):
            value = getattr(self, name)
            if not (is_int(value) and 0 <= value < 2**63):
                raise ValueError(f"record {name}={value!r}: expected an integer in 0..2**63-1")
        if not (isinstance(self.agents, list) and len(self.agents) == rules.players
                and all(isinstance(a, str) for a in self.agents)):
            raise ValueError(f"record agents: expected {rules.players} names, got {self.agents!r}")
        if not (isinstance(self.actions, list) and all(isinstance(a, str) for a in self.actions)):
            raise ValueError("record actions: expected a list of action texts")
        if not isinstance(self.result, dict):
            raise ValueError("record result: expected an object")


def game_result(state: State, g: int) -> dict[str, Any]:
    """The result fields of game ``g`` (final once the game is over)."""
    winner = int(state.winner[g])
    return {"totals": state.totals[g].tolist(), "winner": winner if winner >= 0 else None,
            "truncated": bool(state.truncated[g]), "hands": int(state.hand_number[g]) + 1}


def replay(record: GameRecord, on_step=None) -> State:
    """Play the record through the core; ValueError if an action is illegal or the
    result differs. ``on_step(state, action_text)`` is called before each action."""
    rules = Rules.from_dict(record.rules)
    action_ids = action_layout(rules)
    state = init(rules, record.seed, game_ids=[record.game_id])
    for i, text in enumerate(record.actions):
        if on_step is not None:
            on_step(state, text)
        mask = legal_mask(rules, state)
        action = action_ids.parse(text)
        if not mask[0, action]:
            raise ValueError(f"record action {i} ({text!r}) is not legal in the replayed game")
        step_inplace(rules, state, np.array([action]), mask=mask)
    if record.result and game_result(state, 0) != record.result:
        raise ValueError(f"replay ended with {game_result(state, 0)}, "
                         f"the record says {record.result}")
    return state


def write_records(path: str | Path, records: Iterable[GameRecord], append: bool = True) -> None:
    with open(path, "a" if append else "w") as f:
        for record in records:
            f.write(record.to_json() + "\n")


def read_records(path: str | Path,
                 on_damaged_end: Callable[[str], None] | None = None) -> Iterator[GameRecord]:
    """The records of a JSON-lines file, in order.

    A damaged line raises ValueError naming it, except a cut last line (a crash
    while writing): with ``on_damaged_end`` it is reported there and skipped, so the
    intact games before it still replay.
    """
    text = Path(path).read_text(encoding="utf-8")
    lines = text.split("\n")
    last = max((n for n, line in enumerate(lines) if line.strip()), default=-1)
    for n, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            yield GameRecord.from_json(line)
        except (ValueError, TypeError, RecursionError) as e:
            message = f"{path}:{n + 1}: {e}"
            if n == last and not text.endswith("\n") and on_damaged_end is not None:
                on_damaged_end(f"{message} (a cut last line: skipped)")
                return
            raise ValueError(message) from None


class BatchRecorder:
    """Collects the records of games played in a batch. Each open game has a key (its
    row, or its index in a match) so rows may move while games are played."""

    def __init__(self, rules: Rules, seed: int) -> None:
        self.rules, self.seed = rules, seed
        self.action_ids = action_layout(rules)
        self.open: dict[int, GameRecord] = {}
        self.done: list[GameRecord] = []

    def start(self, key: int, game_id: int, agents: list[str]) -> None:
        self.open[int(key)] = GameRecord(self.rules.to_dict(), self.seed, int(game_id), agents)

    def actions(self, keys: np.ndarray, actions: np.ndarray) -> None:
        for key, action in zip(np.asarray(keys).tolist(), np.asarray(actions).tolist()):
            if key in self.open:
                self.open[key].actions.append(self.action_ids.text(action))

    def finish(self, state: State, rows: np.ndarray, keys: np.ndarray | None = None) -> None:
        """Close the games of ``keys`` (default: the rows), reading results from ``rows``."""
        keys = rows if keys is None else keys
        for row, key in zip(np.asarray(rows).tolist(), np.asarray(keys).tolist()):
            record = self.open.pop(key, None)
            if record is not None:
                record.result = game_result(state, row)
                self.done.append(record)

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
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .actions import action_layout
from .rules import Rules
from .state import State
from .step import init, legal_mask, step_inplace

FORMAT = "rummy500-record/1"


@dataclass
class GameRecord:
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
        data = json.loads(line)
        if data.pop("format", None) != FORMAT:
            raise ValueError(f"not a {FORMAT} record")
        return cls(**data)


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


def read_records(path: str | Path) -> Iterator[GameRecord]:
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if line.strip():
                try:
                    yield GameRecord.from_json(line)
                except (ValueError, TypeError) as e:
                    raise ValueError(f"{path}:{n}: {e}") from None


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

"""A record file opened for watching: step through each game forwards and backwards.

A replay is not a live game, so every hand may be shown face up. Each game is
checked through the engine once when first opened (``core.replay``), keeping
a copy of the state every ``CHECKPOINT_EVERY`` moves; any frame is then at
most that many moves away, which makes stepping backwards as quick as forwards.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

from rummy_env.core import GameRecord, Games, Rules, State, action_layout, replay

from .moves import play_move
from .refusals import Refusal
from .views import face_up_view, hand_end_view, seat_view

CHECKPOINT_EVERY = 64
"""Moves between two kept states of a game being replayed."""


@dataclass
class _OpenedGame:
    """A record checked through the engine: its rules, kept states and where hands start."""

    rules: Rules
    checkpoints: list[State] = field(default_factory=list)
    hand_starts: list[int] = field(default_factory=lambda: [0])


class ReplayFile:
    """The games of one record file, each opened on first use."""

    kind = "replay"

    def __init__(self, records: list[GameRecord]) -> None:
        self.records = records
        self.lock = threading.Lock()
        self.opened: dict[int, _OpenedGame] = {}
        self.touched = time.monotonic()

    def games(self) -> list[dict[str, Any]]:
        """One line per game: who played, the deal, how many moves, the result."""
        return [
            {
                "index": k,
                "agents": r.agents,
                "seed": r.seed,
                "game_id": r.game_id,
                "moves": len(r.actions),
                "result": r.result,
            }
            for k, r in enumerate(self.records)
        ]

    def frame(self, game: int, move: int, seat: int | None) -> dict[str, Any]:
        """The game after ``move`` moves, face up (``seat`` None) or as one seat saw it."""
        if not 0 <= game < len(self.records):
            raise Refusal(404, f"no game {game} in this file (it holds {len(self.records)})")
        record = self.records[game]
        if not 0 <= move <= len(record.actions):
            raise Refusal(400, f"move must be in 0..{len(record.actions)}")
        with self.lock:
            opened = self._open(game)
        rules = opened.rules
        if seat is not None and not 0 <= seat < rules.players:
            raise Refusal(400, f"seat must be in 0..{rules.players - 1}")
        start = min(max(move - 1, 0) // CHECKPOINT_EVERY, len(opened.checkpoints) - 1)
        state = opened.checkpoints[start].copy()
        played = Games.of(rules, state, one_game=True)
        ids = action_layout(rules)
        last_move = ended = None
        for k in range(start * CHECKPOINT_EVERY, move):
            actor = int(state.current_player[0])
            ended = play_move(played, ids.parse(record.actions[k]))
            last_move = {"seat": actor, "name": record.agents[actor], "text": record.actions[k]}
        names = record.agents
        view = (
            face_up_view(rules, state, names)
            if seat is None
            else seat_view(rules, state, seat, names, offer_moves=False)
        )
        hand_end = hand_end_view(rules, ended) if ended is not None else None
        if hand_end is not None and seat is not None:
            hand_end["hands"] = None
        view.update(
            {
                "kind": "replay",
                "game": game,
                "move": move,
                "moves_total": len(record.actions),
                "last_move": last_move,
                "next_move": record.actions[move] if move < len(record.actions) else None,
                "hand_end": hand_end,
                "hand_starts": opened.hand_starts,
                "seed": record.seed,
                "result": record.result,
            }
        )
        return view

    def _open(self, game: int) -> _OpenedGame:
        """Check the game through the engine once, keeping states on the way."""
        if game in self.opened:
            return self.opened[game]
        record = self.records[game]
        rules = Rules.from_dict(record.rules)  # checked when the file was read
        opened = _OpenedGame(rules)
        moves, hand = [0], [0]

        def keep(state: State, text: str) -> None:
            if moves[0] % CHECKPOINT_EVERY == 0:
                opened.checkpoints.append(state.copy())
            if int(state.hand_number[0]) != hand[0]:
                hand[0] = int(state.hand_number[0])
                opened.hand_starts.append(moves[0])
            moves[0] += 1

        try:
            final = replay(record, on_step=keep)
        except (ValueError, TypeError) as e:
            raise Refusal(400, f"game {game} does not replay: {e}") from None
        if not opened.checkpoints:
            opened.checkpoints.append(final)
        self.opened[game] = opened
        return opened

"""A game being played on the server: a person against agents, or agents watched.

The game's state lives here and only here; the page gets views. Every change
names the move count (``version``) the page last saw, so a stale or repeated
request changes nothing. Agents move one at a time when the page asks
(``advance``), which lets the page show each move at a readable pace.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from rummy500.agents.base import Agent, AgentFailure
from rummy_env.core import (
    BatchRecorder,
    Decision,
    GameRecord,
    Games,
    Rules,
    action_layout,
)

from .moves import IllegalMove, play_move
from .refusals import AgentUnavailable, Refusal
from .views import face_up_view, hand_end_view, seat_view

PERSON = "human"
"""How a person's seat is named in records (as ``rummy500 play`` names it)."""


class LiveGame:
    """One game: rules, the deal's seed, an agent per seat not played by the person."""

    def __init__(
        self,
        rules: Rules,
        seed: int,
        agents: dict[int, Agent],
        person: int | None,
        names: dict[int, str] | None = None,
        remake: Callable[[int], Agent] | None = None,
    ) -> None:
        """``names``: what the page calls each agent seat (the names the operator offered;
        default the agents' own); ``remake(seat)``: a fresh agent for a seat whose agent
        failed (none: the failed agent stays)."""
        self.rules, self.seed, self.agents, self.person = rules, seed, agents, person
        self.remake = remake
        self.lock = threading.Lock()
        self.game = Games(rules, 1, seed, one_game=True)
        self.state = self.game.state
        shown = names or {s: agent.name for s, agent in agents.items()}
        self.names = ["you" if s == person else shown[s] for s in range(rules.players)]
        self.recorder = BatchRecorder(rules, seed)
        self.recorder.start(
            0, 0, [PERSON if s == person else shown[s] for s in range(rules.players)]
        )
        self.version = 0
        self.last_move: dict[str, Any] | None = None
        self.hand_end: dict[str, Any] | None = None
        self.touched = time.monotonic()

    @property
    def kind(self) -> str:
        return "watch" if self.person is None else "play"

    def close(self) -> None:
        """End what the game's agents hold (a ``cmd:`` agent's process); called when the game
        ends, is closed or expires, and when the server stops (more than once is fine)."""
        for agent in self.agents.values():
            close_agent(agent)

    # Reading ---------------------------------------------------------------------
    def view(self, face_up: bool = False) -> dict[str, Any]:
        """The person's view (live play), or any view of a watched game."""
        with self.lock:
            return self._view(face_up)

    def _check_may_see(self, face_up: bool) -> None:
        """Refuse a face-up view of a game the person plays (before anything changes)."""
        if face_up and self.person is not None:
            raise Refusal(403, "a game you play shows only your own hand")

    def _view(self, face_up: bool) -> dict[str, Any]:
        self._check_may_see(face_up)
        if self.person is not None:
            view = seat_view(self.rules, self.state, self.person, self.names)
        elif face_up:
            view = face_up_view(self.rules, self.state, self.names)
        else:
            view = seat_view(self.rules, self.state, 0, self.names, offer_moves=False)
            view["seats"][0]["hand"] = None
            view["viewer"] = None
        to_play = int(self.state.current_player[0])
        waiting = (
            "over" if self.state.game_over[0] else "you" if to_play == self.person else "agent"
        )
        hand_end = self.hand_end
        if hand_end is not None and not face_up:
            hand_end = {**hand_end, "hands": None}
        view.update(
            {
                "kind": self.kind,
                "version": self.version,
                "waiting": waiting,
                "last_move": self.last_move,
                "hand_end": hand_end,
                "face_up": face_up,
                "seed": self.seed if waiting == "over" else None,
            }
        )
        return view

    # Changing --------------------------------------------------------------------
    def act(self, text: str, version: int, seat: int | None) -> dict[str, Any]:
        """The person's move, given as its canonical text; refused unless legal now."""
        with self.lock:
            if self.person is None:
                raise Refusal(409, "nobody plays a watched game from the page")
            if seat is not None and seat != self.person:
                raise Refusal(
                    403,
                    f"you sit at seat {self.person}; seat {seat} is "
                    f"{self.names[seat] if 0 <= seat < len(self.names) else 'no seat'}",
                )
            self._check_version(version)
            to_play = int(self.state.current_player[0])
            if self.state.game_over[0]:
                raise Refusal(409, "the game is over")
            if to_play != self.person:
                raise Refusal(
                    409, f"not your turn: {self.names[to_play]} (seat {to_play}) is to play"
                )
            try:
                action = action_layout(self.rules).parse(text)
            except ValueError as e:
                raise Refusal(400, str(e)) from None
            self._apply(action)
            return self._view(False)

    def advance(self, version: int, face_up: bool = False) -> dict[str, Any]:
        """One move of the agent to play; refused (the game unchanged) when it is the
        person's turn or the view asked for is not theirs to see."""
        with self.lock:
            self._check_may_see(face_up)
            self._check_version(version)
            if self.state.game_over[0]:
                raise Refusal(409, "the game is over")
            to_play = int(self.state.current_player[0])
            if to_play == self.person:
                raise Refusal(409, "it is your turn: the agents wait for your move")
            seen = self.game.view(np.array([to_play]), np.array([0]))
            try:
                action = int(
                    self.agents[to_play].act(Decision(self.rules, self.game.mask(), seen))[0]
                )
            except AgentFailure as e:  # an agent from outside: the game waits, unchanged
                self._replace(to_play)
                raise AgentUnavailable(self.names[to_play], str(e)) from None
            self._apply(action)
            return self._view(face_up)

    def _replace(self, seat: int) -> None:
        """Close the failed agent of ``seat`` and seat a fresh one in its place, so that the
        next ``advance`` tries again (a failed process is not asked twice); when no fresh
        one can be made, the failed one stays and fails again."""
        if self.remake is None:
            return
        try:
            fresh = self.remake(seat)
        except (ValueError, NotImplementedError):
            return
        close_agent(self.agents[seat])
        self.agents[seat] = fresh

    def record(self) -> GameRecord:
        """The finished game's record (the format of ``rummy500 play --record``)."""
        with self.lock:
            if not self.state.game_over[0]:
                raise Refusal(409, "the game is not over yet: only a finished game is saved")
            if not self.recorder.done:
                self.recorder.finish(self.state, np.array([0]))
            return self.recorder.done[0]

    def _check_version(self, version: int) -> None:
        if version != self.version:
            raise Refusal(
                409,
                f"stale request: the game is at move {self.version}, the page "
                f"sent move {version}; showing the game as it stands",
            )

    def _apply(self, action: int) -> None:
        actor = int(self.state.current_player[0])
        try:
            ended = play_move(self.game, action)
        except IllegalMove as e:
            raise Refusal(409, str(e)) from None
        self.recorder.actions(np.array([0]), np.array([action]))
        self.version += 1
        self.last_move = {
            "seat": actor,
            "name": self.names[actor],
            "text": action_layout(self.rules).text(action),
        }
        if ended is not None:
            self.hand_end = {"version": self.version, **hand_end_view(self.rules, ended)}
        if self.state.game_over[0]:
            self.close()


def close_agent(agent: Agent) -> None:
    """End what ``agent`` holds (a process), if it holds anything."""
    if callable(getattr(agent, "close", None)):
        agent.close()

"""What a checkpoint holds besides the weights, so that a resumed run is the run it continues.

Plain data only (tensors, numbers, strings, lists, dicts), so ``weights_only=True``
still loads it:

* ``league``: each member's name, win rate, whether it is a snapshot (then its
  weights) and the state of its own generator (an agent's numpy ``rng`` or
  torch ``generator``; an agent with neither has none to keep);
* ``seating``: who holds each seat of each game, the learner's seat and return so far;
* ``games``: every array of the games in progress, the next deal of the env's
  stream and the games' lengths;
* ``rng``: the trainer's numpy generator and torch's CPU generator (and CUDA's
  when training on CUDA: a resume on another device draws other samples).

A checkpoint is written between updates, when no decision chain is open, so
nothing of the rollout itself needs keeping.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from rummy500.agents.base import Agent
from rummy_env.envs.vector import RummyVectorEnv

from .league import League
from .seats import SeatControl


def _tensor(array: np.ndarray) -> torch.Tensor:
    """A copy of ``array`` as a tensor (uint64, which torch does not store, as int64 bits)."""
    if array.dtype == np.uint64:
        array = array.view(np.int64)
    return torch.from_numpy(np.array(array, copy=True))


def _array(tensor: torch.Tensor, like: np.ndarray) -> np.ndarray:
    """A tensor from ``_tensor`` back as an array of ``like``'s dtype."""
    return tensor.numpy().view(like.dtype)


def _plain(value: Any) -> Any:
    """``value`` with every array turned into a tensor (``_tensor``), for ``torch.save``."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return _tensor(value) if isinstance(value, np.ndarray) else value


def _unplain(value: Any, like: Any) -> Any:
    """``_plain``'s inverse, with the dtypes of ``like`` (a fresh snapshot)."""
    if isinstance(value, dict):
        return {k: _unplain(v, like[k]) for k, v in value.items()}
    return _array(value, like) if isinstance(value, torch.Tensor) else value


def _agent_rng(agent: Agent) -> Any:
    """The state of an agent's own generator (None: it has none)."""
    if isinstance(getattr(agent, "generator", None), torch.Generator):
        return {"device": agent.generator.device.type, "torch": agent.generator.get_state()}
    if isinstance(getattr(agent, "rng", None), np.random.Generator):
        return agent.rng.bit_generator.state
    return None


def _set_agent_rng(agent: Agent, state: Any) -> None:
    """Put back the generator state ``_agent_rng`` took (a torch one only on the same kind
    of device)."""
    if state is None:
        return
    if "torch" in state:
        if state["device"] == agent.generator.device.type:
            agent.generator.set_state(state["torch"])
    else:
        agent.rng.bit_generator.state = state


def capture(league: League, seating: SeatControl, env: RummyVectorEnv,
            rng: np.random.Generator, device: torch.device) -> dict[str, Any]:
    """Everything besides the weights that the run's future depends on, as plain data."""
    members = [{"name": name, "win_rate": rate, "snapshot": snap, "rng": _agent_rng(agent),
                "weights": ({k: v.detach().cpu() for k, v in agent.policy.state_dict().items()}
                            if snap else None)}
               for name, agent, rate, snap in zip(league.names, league.agents, league.win_rate,
                                                  league.snapshot)]
    return {
        "league": members,
        "seating": {"member": _tensor(seating.member),
                    "learner_seat": _tensor(seating.learner_seat),
                    "episode_return": _tensor(seating.episode_return)},
        "games": _plain(env.snapshot()),
        "rng": {"numpy": rng.bit_generator.state, "torch": torch.get_rng_state(),
                "cuda": torch.cuda.get_rng_state(device) if device.type == "cuda" else None},
    }


def restore(saved: dict[str, Any], league: League, seating: SeatControl, env: RummyVectorEnv,
            rng: np.random.Generator, device: torch.device,
            snapshot: Callable[[str, dict[str, torch.Tensor]], Agent],
            heuristic: Callable[[str], Agent]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Put ``capture``'s data back (members rebuilt by ``snapshot(name, weights)`` or
    ``heuristic(name)``); returns the env's (obs, mask, seat) for the games in progress."""
    for values in (league.names, league.agents, league.win_rate, league.snapshot):
        values.clear()
    for m in saved["league"]:
        agent = snapshot(m["name"], m["weights"]) if m["snapshot"] else heuristic(m["name"])
        _set_agent_rng(agent, m["rng"])
        league.add(m["name"], agent, is_snapshot=m["snapshot"])
        league.win_rate[-1] = float(m["win_rate"])

    seats = dict(saved["seating"])
    member = seats.pop("member")
    for name, value in seats.items():
        current = getattr(seating, name)
        current[:] = _array(value, current)
    if member.dim() == 1:  # one member per game: a checkpoint from before mixed tables
        seating.seat_members(_array(member, seating.member))
    else:
        seating.member[:] = _array(member, seating.member)

    obs, mask, seat = env.restore(_unplain(saved["games"], env.snapshot()))

    rng.bit_generator.state = saved["rng"]["numpy"]
    torch.set_rng_state(saved["rng"]["torch"])
    if saved["rng"]["cuda"] is not None and device.type == "cuda":
        torch.cuda.set_rng_state(saved["rng"]["cuda"], device)
    return obs, mask, seat

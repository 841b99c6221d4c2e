"""A match cut into shards: the same games in one process, in worker processes or on Ray.

A match's games are cut, in order, into shards of ``SHARD_GAMES`` games, the same
shards whatever plays them. Each shard is played (``play_shard``) by fresh agents:
built from their specs with the seeds ``agent_seed(root, agent, shard)``, or
unpickled afresh from an agent object, so a shard's games depend on the shard
alone. ``run_shards`` hands the shards out (``Workers``: this process, worker
processes of their own, ``shard_worker``, or the tasks of a Ray cluster,
``ray_shards``) and gives the results back in shard order; merged in that order
(``merge_results``) they make the same report, game for game, at one worker or
many.

A match ends early as it does in one process: an agent that fails, a worker
that dies and Ctrl-C each leave the shards finished before (and the finished
games of a shard whose agent failed) with the reason in ``MatchResult.stopped``;
the worker processes, and the agent processes they started, are ended first.
"""

from __future__ import annotations

import os
import pickle
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rummy500.agents.base import Agent, AgentFailure
from rummy500.eval.arena import INTERRUPTED, MatchResult, play_games
from rummy500.eval.threads import MATCH_THREADS
from rummy_env.core import Rules

SHARD_GAMES = 50
"""Games in a shard: enough for the batched engine to play a batch (a cheap match plays
at half the speed of one unsharded batch), few enough that an expert's match spreads
over many workers and the progress bar moves."""

GRACE_SECONDS = 5.0
"""How long a worker told to stop may take to close its agents before it is killed."""


def agent_seed(root: int, agent: int, shard: int) -> int:
    """The seed of agent ``agent`` (its index in the match) in shard ``shard``, from the
    match's root of agent seeds: the one place agents' seeds come from, so that every
    worker count plays the same agents."""
    return int(np.random.SeedSequence([root, agent, shard]).generate_state(1)[0])


def default_workers() -> int:
    """The cores this process may run on: what ``Workers`` uses unless told."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


@dataclass(frozen=True)
class Workers:
    """Where a match's shards are played: ``count`` processes on this machine (1: in this
    process), or, with ``address``, the Ray cluster there (``auto``: the one this node
    belongs to; ``local``: a Ray started for the match). ``threads``: torch's threads in
    each worker (``rummy500.eval.threads``)."""

    count: int = 1
    address: str | None = None
    threads: int | None = MATCH_THREADS


@dataclass(frozen=True)
class Entrant:
    """How each shard gets its own fresh copy of one agent of a match: built from ``spec``,
    or unpickled from ``pickled`` (held to the agent protocol again when ``checked``);
    ``local``: an object that cannot be pickled, the same one in every shard (played in
    this process only; ``why_local`` says why). ``name``: the agent's name in the report."""

    name: str
    spec: str | None = None
    pickled: bytes | None = None
    checked: bool = False
    local: Any = None
    why_local: str = ""
    searches: bool = False
    """The agent searches at its decisions (it has a ``search_summary``, as the expert and
    the oracle do): a shard seating it costs far more than one of quick players. Read
    from ``spec`` where one is given (``AgentSpec.searches``)."""

    def __post_init__(self) -> None:
        if self.spec is not None and not self.searches:
            from rummy500.agents.registry import describe

            object.__setattr__(self, "searches", describe(self.spec).searches)

    def make(self, rules: Rules, seed: int) -> Agent:
        """The agent for one shard (a one-line ``AgentFailure`` if it cannot be built)."""
        if self.local is not None:
            return self.local
        if self.spec is not None:
            from rummy500.eval.oracle import make_arena_agent

            try:
                agent = make_arena_agent(self.spec, rules, seed)
            except (ValueError, NotImplementedError) as e:
                raise AgentFailure(str(e)) from None
        else:
            try:
                agent = pickle.loads(self.pickled)
            except Exception as e:  # e.g. its module is not importable where the shard plays
                raise AgentFailure(
                    f"agent {self.name}: its copy cannot be rebuilt in a "
                    f"worker ({type(e).__name__}: {e}); play it with one "
                    "worker"
                ) from None
            if self.checked:
                from rummy500.agents.checked import checked

                agent = checked(agent)
        agent.name = self.name
        return agent


def entrants(agents: Sequence[Agent], specs: Sequence[str | None] | None = None) -> list[Entrant]:
    """The entrant of each agent: its spec where ``specs`` names one, else the object
    pickled (or, where it cannot be, kept as it is, with the reason)."""
    from rummy500.agents.checked import CheckedAgent

    out = []
    for agent, spec in zip(agents, specs if specs is not None else [None] * len(agents)):
        if spec is not None:
            out.append(Entrant(agent.name, spec=spec))
            continue
        is_checked = isinstance(agent, CheckedAgent)
        inner = agent.wrapped if is_checked else agent
        searches = hasattr(inner, "search_summary")
        try:
            pickled = pickle.dumps(inner)
        except Exception as e:  # whatever pickling raises: the agent stays in this process
            out.append(
                Entrant(
                    agent.name,
                    local=agent,
                    why_local=f"{type(e).__name__}: {e}",
                    searches=searches,
                )
            )
            continue
        if names_main_script(pickled):
            out.append(
                Entrant(
                    agent.name,
                    local=agent,
                    why_local="it is defined in the main script, which a worker does not run",
                    searches=searches,
                )
            )
        else:
            out.append(Entrant(agent.name, pickled=pickled, checked=is_checked, searches=searches))
    return out


def names_main_script(pickled: bytes) -> bool:
    """Whether a pickle refers to something of ``__main__`` (a class or function of the
    running script), which a worker's fresh interpreter cannot import."""
    import pickletools

    return any(
        arg == "__main__" or (isinstance(arg, str) and arg.startswith("__main__ "))
        for _, arg, _ in pickletools.genops(pickled)
    )


@dataclass(frozen=True)
class Shard:
    """One shard of a match: games ``lineups`` [n, P] on ``deals`` [n] dealt from ``seed``,
    played by ``entrants`` seeded from ``root``; ``index`` is its place in the match."""

    rules: Rules
    entrants: tuple[Entrant, ...]
    lineups: np.ndarray
    deals: np.ndarray
    seed: int
    root: int
    index: int
    batch_size: int = 1024
    record: bool = False


@dataclass
class ShardResult:
    """A played shard: its games, and their records when the shard was recorded."""

    match: MatchResult
    records: list = field(default_factory=list)


def dispatch_order(shards: Sequence[Shard]) -> list[int]:
    """The order to start ``shards`` in: those seating a searching agent first (the most
    such seats first), then the rest, each group in shard order. Started longest first,
    the shards keep every worker busy to the end, where the last expensive shard, started
    late, would leave the others idle; the results are merged in shard order all the
    same."""
    return sorted(
        range(len(shards)),
        key=lambda i: -sum(e.searches for e in shards[i].entrants),
    )


def shard_count(games: int) -> int:
    """How many shards ``games`` games make."""
    return -(-games // SHARD_GAMES)


def cut(
    rules: Rules,
    agents: Sequence[Entrant],
    lineups: np.ndarray,
    deals: np.ndarray,
    seed: int,
    root: int,
    first_shard: int = 0,
    batch_size: int = 1024,
    record: bool = False,
) -> list[Shard]:
    """The shards of a match: its games in order, ``SHARD_GAMES`` at a time, numbered from
    ``first_shard`` (a caller playing several sets of games under one root numbers them
    on)."""
    lineups = np.asarray(lineups, np.int64)
    deals = np.asarray(deals, np.int64)
    return [
        Shard(
            rules,
            tuple(agents),
            lineups[s : s + SHARD_GAMES],
            deals[s : s + SHARD_GAMES],
            seed,
            root,
            first_shard + i,
            batch_size,
            record,
        )
        for i, s in enumerate(range(0, len(deals), SHARD_GAMES))
    ]


def play_shard(shard: Shard, threads: int | None = None) -> ShardResult:
    """Play one shard with fresh agents (``threads``: set torch's threads once the agents
    are built, in a worker process of its own)."""
    from rummy_env.core import BatchRecorder

    agents: list[Agent] = []
    try:
        for i, entrant in enumerate(shard.entrants):
            agents.append(entrant.make(shard.rules, agent_seed(shard.root, i, shard.index)))
    except AgentFailure as failure:
        close_agents(agents, shard.entrants)
        return ShardResult(empty_result(shard, str(failure)))
    try:
        if threads is not None and "torch" in sys.modules:
            sys.modules["torch"].set_num_threads(threads)
        recorder = BatchRecorder(shard.rules, shard.seed) if shard.record else None
        match = play_games(
            shard.rules,
            agents,
            shard.lineups,
            shard.deals,
            shard.seed,
            batch_size=shard.batch_size,
            progress=False,
            recorder=recorder,
        )
    finally:
        close_agents(agents, shard.entrants)
    if recorder is not None:  # the games of a stopped shard that finished, and only those
        kept = set(match.deal.tolist()) if match.stopped else None
        records = [r for r in recorder.done if kept is None or r.game_id in kept]
    else:
        records = []
    return ShardResult(match, records)


def close_agents(agents: Sequence[Agent], made_from: Sequence[Entrant]) -> None:
    """End what a shard's agents started (``cmd:`` agents' processes); an agent kept in
    this process is the caller's and stays open."""
    for agent, entrant in zip(agents, made_from):
        if entrant.local is None and hasattr(agent, "close"):
            agent.close()


def empty_result(shard: Shard, stopped: str) -> MatchResult:
    """A shard that played no game, stopped for ``stopped``."""
    k, p = len(shard.entrants), shard.rules.players
    return MatchResult(
        agent_names=[e.name for e in shard.entrants],
        rules=shard.rules,
        seed=shard.seed,
        duplicate=False,
        lineups=np.zeros((0, p), np.int64),
        deal=np.zeros(0, np.int64),
        totals=np.zeros((0, p), np.int32),
        winner=np.zeros(0, np.int64),
        truncated=np.zeros(0, bool),
        hands=np.zeros(0, np.int64),
        decisions=np.zeros(k, np.int64),
        agent_seconds=np.zeros(k),
        stopped=stopped,
        agent_search=[None] * k,
    )


def merge_results(parts: Sequence[MatchResult], seconds: float) -> MatchResult:
    """One match from its shards' results in shard order (the games of each in turn, the
    agents' decisions and seconds summed, their searches merged); it stops where the
    first shard that stopped stops."""
    from rummy500.agents.expert import merge_search_summaries

    first = parts[0]
    stop = next((i for i, part in enumerate(parts) if part.stopped), None)
    if stop is not None:
        parts = parts[: stop + 1]
    search = [
        merge_search_summaries([part.agent_search[k] for part in parts])
        for k in range(len(first.agent_names))
    ]
    return MatchResult(
        agent_names=list(first.agent_names),
        rules=first.rules,
        seed=first.seed,
        duplicate=first.duplicate,
        lineups=np.concatenate([part.lineups for part in parts]),
        deal=np.concatenate([part.deal for part in parts]),
        totals=np.concatenate([part.totals for part in parts]),
        winner=np.concatenate([part.winner for part in parts]),
        truncated=np.concatenate([part.truncated for part in parts]),
        hands=np.concatenate([part.hands for part in parts]),
        decisions=np.sum([part.decisions for part in parts], axis=0),
        agent_seconds=np.sum([part.agent_seconds for part in parts], axis=0),
        seconds=seconds,
        agent_search=search,
        stopped=None if stop is None else parts[stop].stopped,
    )


def placed(workers: Workers, shards: Sequence[Shard]) -> Workers:
    """``workers`` fitted to ``shards``: never more processes than shards, and all in this
    process when an agent cannot be pickled (told in one line)."""
    kept = {e.name: e.why_local for shard in shards for e in shard.entrants if e.local is not None}
    if kept and (workers.address or min(workers.count, len(shards)) > 1):
        reasons = "; ".join(f"{name} ({why})" for name, why in kept.items())
        print(
            f"playing the match in this process, not in workers: {reasons} cannot be "
            "pickled to send to a worker",
            file=sys.stderr,
        )
        return Workers(1, None, workers.threads)
    if workers.address:
        return workers
    return Workers(max(1, min(workers.count, len(shards))), None, workers.threads)


def run_shards(
    shards: Sequence[Shard], workers: Workers, progress: bool = False, desc: str = "games"
) -> Iterator[ShardResult]:
    """The results of ``shards`` in shard order, played where ``workers`` says; a progress
    bar over all of them (games, with the time left) unless ``progress`` is False.

    Stops (the generator ends) after the first shard that stopped; a worker that dies and
    Ctrl-C end the run with a result of no games saying so. Leaving the loop early ends
    the workers."""
    from tqdm import tqdm

    workers = placed(workers, shards)
    total = sum(len(shard.deals) for shard in shards)
    bar = tqdm(
        total=total, disable=not progress, unit="game", desc=desc, leave=False, smoothing=0.0
    )
    if workers.address:
        from rummy500.eval.ray_shards import on_ray

        played = on_ray(shards, workers)
    elif workers.count > 1:
        played = _in_workers(shards, workers)
    else:
        played = _in_process(shards)
    done: dict[int, ShardResult] = {}
    next_index = 0
    try:
        for index, result in played:
            if index is None:  # the run broke off: what came before is already out
                yield result
                return
            bar.update(len(shards[index].deals))
            done[index] = result
            while next_index in done:
                result = done.pop(next_index)
                next_index += 1
                yield result
                if result.match.stopped:
                    return
    finally:
        played.close()
        bar.close()


Played = Iterator[tuple[int | None, ShardResult]]
"""What the ways of playing shards yield: (shard index, its result) as each shard ends, in
any order; (None, a result of no games saying why) when the run breaks off."""


def _in_process(shards: Sequence[Shard]) -> Played:
    for index, shard in enumerate(shards):
        try:
            result = play_shard(shard)
        except KeyboardInterrupt:
            yield None, ShardResult(empty_result(shard, INTERRUPTED))
            return
        yield index, result


def _in_workers(shards: Sequence[Shard], workers: Workers) -> Played:
    """Play ``shards`` in ``workers.count`` worker processes (``shard_worker``), a shard at
    a time each."""
    from rummy500.eval.shard_worker import Worker

    pool: list[Worker] = []
    try:
        pool += [Worker.start(workers.threads) for _ in range(workers.count)]
        yield from _hand_out(shards, pool)
    except KeyboardInterrupt:
        yield None, ShardResult(empty_result(shards[0], INTERRUPTED))
    finally:
        for worker in pool:
            worker.ask_to_stop()
        deadline = time.monotonic() + GRACE_SECONDS
        for worker in pool:
            worker.stop(deadline)


def _hand_out(shards: Sequence[Shard], pool: list) -> Played:
    """Send each idle worker of ``pool`` the next shard, and pass on each result."""
    from multiprocessing.connection import wait

    todo = dispatch_order(shards)[::-1]
    busy: dict[int, int] = {}  # worker -> the shard it plays

    def give(w: int) -> None:
        if todo:
            busy[w] = todo.pop()
            pool[w].send(shards[busy[w]])

    for w in range(len(pool)):
        give(w)
    while busy:
        ready = wait([pool[w].results for w in busy])
        for w in [w for w in busy if pool[w].results in ready]:
            try:
                kind, payload = pool[w].results.recv()
            except (EOFError, OSError):
                yield None, ShardResult(empty_result(shards[busy[w]], pool[w].death()))
                return
            if kind == "raised":
                raise payload
            yield busy.pop(w), payload
            give(w)


def play_sharded(
    rules: Rules,
    agents: Sequence[Entrant],
    lineups: np.ndarray,
    deals: np.ndarray,
    seed: int,
    root: int,
    workers: Workers,
    batch_size: int = 1024,
    progress: bool = False,
    recorder: Any = None,
    first_shard: int = 0,
    desc: str = "games",
) -> MatchResult:
    """``play_games`` of ``lineups`` and ``deals``, shard by shard where ``workers`` says,
    merged into one match; ``recorder`` (a ``BatchRecorder``) gets each shard's records in
    shard order as they come in."""
    start = time.perf_counter()
    shards = cut(
        rules,
        agents,
        lineups,
        deals,
        seed,
        root,
        first_shard,
        batch_size,
        record=recorder is not None,
    )
    parts = []
    for result in run_shards(shards, workers, progress, desc):
        parts.append(result.match)
        if recorder is not None:
            recorder.add(result.records)
    return merge_results(parts, time.perf_counter() - start)

"""rummy500: agents, training, evaluation and the programs around the ``rummy_env`` game.

``rummy_env`` is the environment (the engine and its PettingZoo, Gymnasium and
batched interfaces); everything built on it lives here:

* ``rummy500.agents``: the built-in players and the agent registry;
* ``rummy500.train``: self-play PPO with a league, checkpoints and plots;
* ``rummy500.eval``: the arena, ratings, the ladder, tournaments and the benchmark;
* ``rummy500.configs``: the training recipes and rules files that ship with the package;
* ``rummy500.cli``, ``rummy500.commands`` and ``rummy500.web``: the ``rummy500`` command.

The measuring programs are also functions here, for notebooks and scripts.
``evaluate``, ``ladder`` and ``benchmark`` take agents as specs (``"sharp"``,
``"py:my_bots:make"``, ``"cmd:./bot"``, ...) or as objects with ``name`` and
``act(decision) -> one action id per game``, and return the reports the
programs print (plain data; ``rummy500 eval --out`` writes the same as JSON)::

    import rummy500

    class FirstLegal:
        name = "first-legal"
        def act(self, decision):              # decision.mask: bool [n, actions]
            return decision.mask.argmax(axis=1)

    card = rummy500.benchmark(FirstLegal(), level="quick")
    print(card["summary"])

``exploit`` trains a best response to one agent, named by its spec, and returns how
much it wins (``rummy500 exploit --json`` prints the same).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rummy500.eval.threads import MATCH_THREADS

__all__ = ["benchmark", "evaluate", "exploit", "ladder", "make_agent"]


def make_agent(spec: str, rules: Any = None, seed: int = 0) -> Any:
    """The agent a spec names (``rummy500 eval --help`` lists the forms), for ``rules``
    (a ``rummy_env.core.Rules``; default: 2-player standard)."""
    from rummy500.agents.registry import make_agent as make
    from rummy_env.core import Rules

    return make(spec, rules or Rules(), seed)


def match_seeds(agents: Sequence[Any], seed: int | None, agent_seed: int | None) -> Any:
    """The match's seeds, sealed where a ``cmd:`` agent sits (``rummy500.eval.sealing``)."""
    from rummy500.eval.sealing import match_seeds as seeds_of

    return seeds_of([a for a in agents if isinstance(a, str)], seed, agent_seed)


def _seated(agents: Sequence[Any], rules: Any, seed: int) -> list[Any]:
    """Agents from specs or objects (held to the protocol: ``rummy500.agents.checked``),
    named apart as ``rummy500 eval`` names them."""
    from rummy500.agents.checked import checked
    from rummy500.eval.arena import distinct_names
    from rummy500.eval.oracle import make_arena_agent
    from rummy500.eval.shards import agent_seed

    made = [
        make_arena_agent(a, rules, agent_seed(seed, i, 0)) if isinstance(a, str) else checked(a)
        for i, a in enumerate(agents)
    ]
    distinct_names(made, [a if isinstance(a, str) else id(a) for a in agents])
    return made


def _specs(agents: Sequence[Any]) -> list[str | None]:
    """Each agent's spec (a fresh one is built from it for every shard of the match), None
    for an object (copied to each shard)."""
    return [a.strip() if isinstance(a, str) else None for a in agents]


def _workers(workers: int | None, address: str | None, torch_threads: int | None) -> Any:
    """Where the shards of a match are played: ``workers`` processes (None: every core of
    the machine), or the Ray cluster at ``address``."""
    from rummy500.eval.ray_shards import check_ray_address
    from rummy500.eval.shards import Workers, default_workers

    if address is not None:
        check_ray_address(address)
    if workers is not None and (
        isinstance(workers, bool) or not isinstance(workers, int) or workers < 1
    ):
        raise ValueError(f"workers={workers!r}: give a whole number of at least 1")
    return Workers(workers or default_workers(), address, torch_threads)


def evaluate(
    agents: Sequence[Any],
    games: int = 200,
    *,
    rules: Any = None,
    seed: int | None = None,
    agent_seed: int | None = None,
    duplicate: bool = True,
    batch_size: int = 1024,
    progress: bool = False,
    torch_threads: int | None = MATCH_THREADS,
    workers: int | None = None,
    address: str | None = None,
) -> dict:
    """A fair match between ``agents`` (seats rotated; duplicate deals unless told otherwise):
    the report ``rummy500 eval`` prints, as data (``report["agents"]``: win rates with 95%
    intervals, points per hand; ``report["ratings"]``; ``report["stopped"]``: why an agent
    or Ctrl-C ended the match early, or None). The agents' networks get ``torch_threads`` threads
    while it plays, as ``rummy500 eval --torch-threads`` gives them (``None``: torch's own
    setting); the setting is restored after.

    The games are played by ``workers`` processes (default: one per core) or, with
    ``address``, as tasks of the Ray cluster there (``"auto"``, ``"HOST:PORT"``), as
    ``rummy500 eval --workers`` and ``--ray`` play them: the report is the same however
    they are played. An agent given as a spec is built afresh for each part of the match;
    an object is copied to it, or, where it cannot be pickled, played in this process.

    ``seed`` deals the games and ``agent_seed`` seeds the agents (default: the deal seed).
    A match that seats a ``cmd:`` agent, another process, is sealed as the programs seal
    it (``rummy500.eval.sealing``): the seeds not given are drawn unseen and written in
    ``report["meta"]`` (``seed``, ``agent_seed``, ``sealed``), which replay it; otherwise
    ``seed`` defaults to 0."""
    from rummy500.eval.arena import play_match
    from rummy500.eval.report import build_report
    from rummy500.eval.threads import torch_threads as threads
    from rummy_env.core import Rules

    rules = rules or Rules()
    where = _workers(workers, address, torch_threads)
    seeds = match_seeds(agents, seed, agent_seed)
    seated = _seated(agents, rules, seeds.agents)
    with threads(torch_threads):
        match = play_match(
            rules,
            seated,
            games,
            seed=seeds.deal,
            duplicate=duplicate,
            batch_size=batch_size,
            progress=progress,
            specs=_specs(agents),
            workers=where,
            agent_root=seeds.agents,
        )
    if not match.n_games:
        match.raise_if_stopped("the match")
    return {**build_report(match, meta=seeds.report_fields()), "stopped": match.stopped}


def ladder(
    agents: Sequence[Any] = (),
    games: int = 100,
    *,
    rules: Any = None,
    seed: int | None = None,
    agent_seed: int | None = None,
    defaults: bool = True,
    batch_size: int = 1024,
    progress: bool = False,
    torch_threads: int | None = MATCH_THREADS,
    workers: int | None = None,
    address: str | None = None,
) -> dict:
    """A duplicate round robin of ``agents`` (with random, casual, sharp and expert unless
    ``defaults`` is False): the report ``rummy500 ladder`` prints, ``report["ladder"]``
    in rating order, ``report["stopped"]`` as in ``evaluate`` (``seed``, ``agent_seed``,
    the sealing, ``torch_threads``, ``workers`` and ``address`` too)."""
    from rummy500.eval.ladder import DEFAULT_AGENTS, play_ladder
    from rummy500.eval.threads import torch_threads as threads
    from rummy_env.core import Rules

    rules = rules or Rules()
    where = _workers(workers, address, torch_threads)
    given = [*(DEFAULT_AGENTS if defaults else ()), *agents]
    seeds = match_seeds(given, seed, agent_seed)
    entrants = _seated(given, rules, seeds.agents)
    with threads(torch_threads):
        return play_ladder(
            rules,
            entrants,
            games,
            seed=seeds.deal,
            batch_size=batch_size,
            progress=progress,
            specs=_specs(given),
            workers=where,
            agent_root=seeds.agents,
            meta=seeds.report_fields(),
        )


def benchmark(
    agent: Any,
    level: str = "full",
    *,
    players: int = 2,
    batch_size: int = 512,
    progress: bool = False,
    torch_threads: int | None = MATCH_THREADS,
    workers: int | None = None,
    address: str | None = None,
) -> dict:
    """The report card of ``agent`` under the benchmark protocol's track at ``players``
    seats (2: ``rummy500-bench/2``, 4: ``rummy500-bench-4p/3``; any other count is a
    one-line ``ValueError``; ``rummy500.eval.benchmark``): ``card["elo"]``,
    ``card["elo_lo"]``, ``card["elo_hi"]``, ``card["win_rate"][reference]`` and
    ``card["summary"]``, the line to quote;
    ``card["stopped"]``: why an agent or Ctrl-C ended the run early (no rating then), or
    None (``torch_threads``, ``workers`` and ``address`` as in ``evaluate``)."""
    from rummy500.eval.benchmark import benchmark as run
    from rummy500.eval.benchmark import track_for
    from rummy500.eval.threads import torch_threads as threads

    track = track_for(players)
    where = _workers(workers, address, torch_threads)
    (seated,) = _seated([agent], track.rules, 0)
    with threads(torch_threads):
        return run(
            seated,
            level,
            batch_size=batch_size,
            progress=progress,
            spec=_specs([agent])[0],
            workers=where,
            track=track,
        )


def exploit(
    agent: str | None = None,
    steps: int | None = None,
    *,
    seed: int | None = None,
    games: int | None = None,
    resume: str | None = None,
    run_dir: str = "runs",
    progress: bool = False,
) -> dict:
    """How much a fresh learner wins from ``agent`` (a spec: the trainer seats it by name)
    under the procedure ``rummy500-exploit/1`` (``rummy500.train.exploit``; the defaults are
    its budget, seed and games), or the rest of the stopped run ``resume``: the result
    ``rummy500 exploit --json`` prints (``result["win_rate"]``, ``["win_lo"]``,
    ``["win_hi"]``, ``["plot"]``, ``["summary"]``: the line to quote). A signal ends it with
    ``ExploitStopped``, whose ``run_dir`` resumes."""
    from rummy500.train import exploit as procedure

    if agent is not None and not isinstance(agent, str):
        raise TypeError(
            "exploit takes the agent as a spec (the trainer seats it by name): "
            "a py:MODULE:NAME factory, a plug-in or cmd:COMMAND bring in one's own"
        )
    return procedure.exploit(
        agent,
        procedure.STEPS if steps is None else steps,
        seed=procedure.SEED if seed is None else seed,
        games=procedure.GAMES if games is None else games,
        resume=resume,
        run_dir=run_dir,
        progress=progress,
    )

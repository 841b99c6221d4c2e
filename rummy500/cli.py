"""The ``rummy500`` command: one entry point, one subcommand per job.

Each subcommand lives in its own module and is imported only when used, so
``rummy500 --help`` stays fast and a missing optional dependency only affects
the subcommand that needs it.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

# name -> (module with main(argv), one-line help)
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("rummy500.commands.demo", "play one random game and print it move by move"),
    "speed": (
        "rummy500.commands.speed",
        "measure throughput: core, envs, agents (agent-steps/s, hands/s, memory)",
    ),
    "bench": ("rummy500.commands.speed", "the old name of 'speed', kept for this release"),
    "scenario": ("rummy_env.scenario", "run a conformance scenario file and print the result"),
    "difftest": (
        "rummy500.commands.differential",
        "check the vectorized core against the reference",
    ),
    "eval": (
        "rummy500.commands.eval",
        "arena: win rates with confidence intervals, duplicate deals, ratings",
    ),
    "ladder": (
        "rummy500.commands.ladder",
        "rating ladder: round robin, Bradley-Terry ratings, head to head, decisions/s",
    ),
    "benchmark": (
        "rummy500.commands.benchmark",
        "rate one agent under the fixed benchmark protocol (pinned references)",
    ),
    "exploit": (
        "rummy500.commands.exploit",
        "approximate exploitability: train a best response to one agent, then play it",
    ),
    "tournament": (
        "rummy500.commands.tournament",
        "multi-table tournaments: table winners advance to a final table",
    ),
    "train": ("rummy500.commands.train", "self-play PPO training with TensorBoard logging"),
    "play": ("rummy500.commands.play", "play a game in the terminal against bots"),
    "replay": ("rummy500.commands.replay", "step through a saved game record"),
    "serve": ("rummy500.commands.serve", "a card table in the browser: play agents, watch games"),
}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(
        prog="rummy500",
        description="Rummy 500 for reinforcement learning: a vectorized rules-exact engine, "
        "PettingZoo/Gymnasium environments, baselines, training and evaluation.",
        epilog="Run 'rummy500 COMMAND --help' for the options of a command.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (_, help_text) in SUBCOMMANDS.items():
        sub.add_parser(name, help=help_text, add_help=False)
    if not argv or argv[0] in ("-h", "--help"):
        parser.print_help()
        return 0
    command, rest = argv[0], argv[1:]
    if command not in SUBCOMMANDS:
        parser.error(f"unknown command {command!r}; choose from {', '.join(SUBCOMMANDS)}")
    module_name = SUBCOMMANDS[command][0]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        if e.name and module_name.startswith(e.name):
            print(f"rummy500 {command}: not available in this version", file=sys.stderr)
            return 2
        raise
    return run_program(module.main, rest)


AGENT_FAILED = 3
"""Exit code of a program that an agent from outside stopped (crashed, answered wrongly or
too late): what was finished before is kept."""
INTERRUPTED = 130
"""Exit code of a program stopped by Ctrl-C (128 + SIGINT)."""


def stopped_status(stopped: str | None) -> int:
    """The exit code of a program whose match ended early for ``stopped`` (0: it did not)."""
    from rummy500.eval.arena import INTERRUPTED as MATCH_INTERRUPTED

    return 0 if stopped is None else INTERRUPTED if stopped == MATCH_INTERRUPTED else AGENT_FAILED


def run_program(program_main, argv: list[str] | None) -> int:
    """``program_main(argv)`` as an exit code; a reader that leaves early
    (``rummy500 replay FILE | head``) ends the program quietly, and an agent that fails
    (``AgentFailure``) or Ctrl-C with one line, not with a traceback (the match programs
    report the games finished before themselves)."""
    from rummy500.agents.base import AgentFailure

    try:
        return int(program_main(argv) or 0)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except AgentFailure as failure:
        print(f"rummy500: {failure}", file=sys.stderr)
        return AGENT_FAILED
    except KeyboardInterrupt:
        print("rummy500: interrupted (Ctrl-C)", file=sys.stderr)
        return INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())

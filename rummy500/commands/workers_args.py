"""``--workers N`` and ``--ray ADDRESS``: where the match programs play their games.

A match is cut into the same shards of games however it is played
(``rummy500.eval.shards``), so these change how long it takes, never its report.
"""

from __future__ import annotations

import argparse

from rummy500.commands.arg_checks import positive_int
from rummy500.eval.ray_shards import check_ray_address
from rummy500.eval.shards import Workers, default_workers


def add_workers_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--workers",
        type=positive_int,
        default=default_workers(),
        metavar="N",
        help="worker processes playing the match's games side by side "
        f"(default: this machine's cores, {default_workers()}); the "
        "report is the same at any number",
    )
    parser.add_argument(
        "--ray",
        metavar="ADDRESS",
        help="play the games as tasks of the Ray cluster at ADDRESS (auto: "
        "the cluster of this node; local: a Ray started for the run) "
        "instead of --workers; the report is the same",
    )


def workers_from_args(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Workers:
    """The ``Workers`` the arguments name (``--torch-threads`` threads in each, where the
    program has that option); a one-line exit for ``--ray`` without Ray installed."""
    if args.ray:
        try:
            check_ray_address(args.ray)
        except ValueError as e:
            parser.error(f"--ray {args.ray}: {e}")
    return Workers(args.workers, args.ray, getattr(args, "torch_threads", None))

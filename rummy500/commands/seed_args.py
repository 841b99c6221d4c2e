"""``--seed S`` and ``--agent-seed R``: the deals and the agents' seeds of a match program.

A match that seats a ``cmd:`` agent is sealed (``rummy500.eval.sealing``): what is not
given is drawn unseen and printed after, and the two printed seeds replay it.
"""

from __future__ import annotations

import argparse

from rummy500.commands.arg_checks import seed_number


def add_seed_arguments(parser: argparse.ArgumentParser, what: str) -> None:
    """The two options, ``what`` naming what the program plays ("match", "ladder",
    "tournaments")."""
    parser.add_argument(
        "--seed",
        type=seed_number,
        default=None,
        metavar="S",
        help=f"deal seed (default 0; a {what} seating a cmd: agent draws it "
        "unseen and prints it after)",
    )
    parser.add_argument(
        "--agent-seed",
        type=seed_number,
        default=None,
        metavar="R",
        help="root of the agents' seeds (default the deal seed; drawn unseen "
        f"when a cmd: agent sits): with --seed, replays a sealed {what}",
    )

"""``--torch-threads``: the threads the agents' networks get in the match programs.

One by default, for the reason ``rummy500.eval.threads`` gives; a program sets it
for its whole run, where the Python functions set it for the call.
"""

from __future__ import annotations

import argparse
import sys

from rummy500.commands.arg_checks import positive_int
from rummy500.eval.threads import MATCH_THREADS


def add_torch_threads_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--torch-threads",
        type=positive_int,
        default=MATCH_THREADS,
        metavar="N",
        help=f"threads for the agents' networks (default {MATCH_THREADS}: the "
        "batches are small, and more threads contend with the engine)",
    )


def apply_torch_threads(threads: int) -> None:
    """Give torch ``threads`` threads if an agent has imported it (nothing to do else)."""
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(threads)

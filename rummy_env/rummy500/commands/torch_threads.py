"""``--torch-threads``: the threads the agents' networks get in the match programs.

An arena's batches are a few hundred rows, where torch's default of one thread
per core gains little and contends with the engine (and with any other job) for
the same cores, so one thread is the default there (the benchmarks page has the
measurements).
"""

from __future__ import annotations

import argparse
import sys

from rummy500.commands.arg_checks import positive_int


def add_torch_threads_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--torch-threads", type=positive_int, default=1, metavar="N",
                        help="threads for the agents' networks (default 1: the batches are "
                             "small, and more threads contend with the engine)")


def apply_torch_threads(threads: int) -> None:
    """Give torch ``threads`` threads if an agent has imported it (nothing to do else)."""
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(threads)

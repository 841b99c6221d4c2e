"""The rules on every command line: ``--preset``, ``--players`` and ``--set FLAG=VALUE``.

One helper so that every subcommand names rules the same way and refuses a
bad flag with the same one-line reason (argparse's exit code 2) before any
work starts.
"""

from __future__ import annotations

import argparse
from typing import Any

from rummy_env.config import parse_overrides
from rummy_env.core import PRESETS, Rules


def add_rules_arguments(parser: argparse.ArgumentParser, players: int = 2) -> None:
    """Add ``--preset``, ``--players`` and ``--set FLAG=VALUE ...`` to ``parser``."""
    parser.add_argument(
        "--preset",
        default="standard",
        help=f"rules preset: {', '.join(sorted(PRESETS))} (default standard)",
    )
    parser.add_argument(
        "--players", type=int, default=players, help=f"seats at the table, 2-8 (default {players})"
    )
    parser.add_argument(
        "--set",
        nargs="+",
        action="extend",
        default=[],
        metavar="FLAG=VALUE",
        help="rule flags over the preset, e.g. --set target=250 wrap=true",
    )


def rules_from_args(
    parser: argparse.ArgumentParser, args: argparse.Namespace, **fixed: Any
) -> Rules:
    """The rules the arguments name (``fixed`` flags on top), or a one-line exit."""
    try:
        return Rules.from_dict(
            {"preset": args.preset, "players": args.players, **parse_overrides(args.set), **fixed}
        )
    except ValueError as e:
        parser.error(str(e))


def rules_command_line(rules: Rules) -> list[str]:
    """The shortest ``--preset`` / ``--players`` / ``--set`` arguments that name ``rules``
    (none for 2-player standard), for the commands a program suggests."""
    args = [] if rules.preset == "standard" else ["--preset", rules.preset]
    if rules.players != 2:
        args += ["--players", str(rules.players)]
    preset = Rules.preset_named(rules.preset, players=rules.players).to_dict()
    flags = [
        f"{k}={str(v).lower() if isinstance(v, bool) else v}"
        for k, v in rules.to_dict().items()
        if preset[k] != v
    ]
    return args + (["--set", *flags] if flags else [])

"""``rummy500 replay FILE``: step through saved games, move by move.

A damaged line (cut, not UTF-8, not a record) or a game that does not replay (an
illegal move, another result) is skipped and named (``file:line: game K``); the
rest replay, and the exit status is 1 when anything was skipped.
"""

from __future__ import annotations

import sys

from rummy500.commands.arg_checks import CommandParser, non_negative_int
from rummy_env.core import Rules, replay
from rummy_env.core.records import numbered_records
from rummy_env.envs.render import render_text


def main(argv: list[str] | None = None) -> int:
    parser = CommandParser(prog="rummy500 replay", description=__doc__.split("\n")[0])
    parser.add_argument("file", help="JSON-lines game records (rummy500 play/eval --record)")
    parser.add_argument(
        "--game",
        type=non_negative_int,
        default=None,
        help="only the record with this index in the file (0-based)",
    )
    parser.add_argument(
        "--full", action="store_true", help="show the whole table (every hand) before each move"
    )
    parser.add_argument("--step", action="store_true", help="wait for Enter after each move")
    args = parser.parse_args(argv)

    skipped: list[str] = []
    try:
        records = list(numbered_records(args.file, on_bad_line=skipped.append))
    except OSError as e:
        parser.error(f"cannot read {args.file}: {e.strerror or e}")
    if not records:  # nothing to replay: an empty file, or lines that are no record
        parser.error(f"{args.file} holds no game record" + (f": {skipped[0]}" if skipped else ""))
    for message in skipped:
        print(f"skipped {message}", file=sys.stderr)
    if args.game is not None and args.game >= len(records):
        parser.error(
            f"--game {args.game}: {args.file} holds {len(records)} record(s), 0..{len(records) - 1}"
        )
    first = args.game or 0
    chosen = records if args.game is None else records[first : first + 1]
    for k, (line, record) in enumerate(chosen, start=first):
        rules = Rules.from_dict(record.rules)
        print(
            f"=== game {k}: {' vs '.join(record.agents)}, seed {record.seed}, "
            f"game id {record.game_id}, {len(record.actions)} moves"
        )

        def show(state, text, rules=rules, record=record):
            if args.full:
                print(render_text(rules, state, 0, names=record.agents))
            print(f"  {record.agents[int(state.current_player[0])]}: {text}")
            if args.step:
                input()

        try:
            state = replay(record, on_step=show)
        except ValueError as e:
            print(f"skipped {args.file}:{line}: game {k}: {e}", file=sys.stderr)
            skipped.append(str(e))
            continue
        except (KeyboardInterrupt, EOFError):
            return 0
        print(f"final totals {state.totals[0].tolist()}; replay matches the record")
    if skipped:
        print(
            f"rummy500 replay: {len(skipped)} game(s) skipped, the others replayed", file=sys.stderr
        )
    return 1 if skipped else 0


if __name__ == "__main__":
    from rummy500.cli import run_program

    sys.exit(run_program(main, sys.argv[1:]))

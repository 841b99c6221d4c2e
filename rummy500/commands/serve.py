"""``rummy500 serve``: a card table in the browser, to play against any agent or watch games.

Starts a local web server (127.0.0.1 unless ``--host`` says otherwise) and
prints its address; open it in a browser. Each tab plays its own game; saved
games go to ``--records`` in the format of ``rummy500 play --record``. Pages see
each agent offered by a name (``--agents NAME=SPEC``, or a short one made from the
spec), never its command line or files. Stopping the server ends every game's agents.
Ctrl-C (SIGINT) or SIGTERM stops it, also when it was started in the background
of a script (where SIGINT comes ignored).
"""

from __future__ import annotations

import signal
import sys
from types import FrameType

from rummy500.agents.registry import SPEC_FORMS, check_spec
from rummy500.commands.arg_checks import (
    CommandParser,
    port_number,
    positive_float,
    positive_int,
)
from rummy500.train.interrupt import STOP_SIGNALS
from rummy500.web.server import make_server
from rummy500.web.tables import TABLE_AGENTS, offered_agents


def _stop(number: int, frame: FrameType | None) -> None:
    """Stop serving on SIGINT or SIGTERM, whatever the inherited handlers were."""
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    parser = CommandParser(prog="rummy500 serve", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--port", type=port_number, default=8500, help="port (default 8500; 0: any free)"
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only)",
    )
    parser.add_argument(
        "--records",
        default="records",
        metavar="DIR",
        help="folder for saved games (default ./records)",
    )
    parser.add_argument(
        "--max-games",
        type=positive_int,
        default=32,
        help="live games and open record files at once (default 32)",
    )
    parser.add_argument(
        "--idle-minutes",
        type=positive_float,
        default=30.0,
        help="a game untouched this long is closed (default 30)",
    )
    parser.add_argument(
        "--agents",
        nargs="+",
        metavar="AGENT",
        default=list(TABLE_AGENTS),
        help=f"the agents a page may seat ({SPEC_FORMS}), each as NAME=SPEC to "
        "show the pages NAME; a page picks among these and names none of its "
        f"own (default: {' '.join(TABLE_AGENTS)})",
    )
    parser.add_argument("--log", action="store_true", help="print one line per request")
    args = parser.parse_args(argv)
    for spec in offered_agents(args.agents).values():
        try:
            check_spec(spec)
        except ValueError as e:
            parser.error(f"--agents: {e}")
    try:
        server = make_server(
            args.host,
            args.port,
            args.records,
            args.max_games,
            args.idle_minutes * 60,
            quiet=not args.log,
            agents=args.agents,
        )
    except OSError as e:
        parser.error(f"cannot listen on {args.host}:{args.port}: {e.strerror or e}")
    for number in STOP_SIGNALS:
        signal.signal(number, _stop)
    print(f"Rummy 500 table at {server.url}  (Ctrl-C stops)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("\nstopped")
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

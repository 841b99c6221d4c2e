"""The HTTP front of the browser table: the page's files and a small JSON API.

Built on the standard library's ``ThreadingHTTPServer`` (one thread per
connection, so several tabs and a slow agent never block each other). Every
request is checked before any game is touched: body size (413), JSON content
type (415), well-formed JSON object (400), a known game (404); what the game
refuses comes back with its own status. Every refusal is JSON:
``{"error": "...", "status": N}``.

    GET    /                              the page
    GET    /static/NAME                   its script and style sheet
    GET    /api/options                   presets, agents, today's deal
    POST   /api/games                     new game {mode, preset, players, flags,
                                          opponents, seat, seed | daily} -> view
    GET    /api/games/ID[?face_up=1]      the game as the page may see it
    POST   /api/games/ID/act              {action, version[, seat]} -> view
    POST   /api/games/ID/advance          {version[, face_up]}: one agent move -> view
    GET    /api/games/ID/record           the finished game's record (JSON line)
    POST   /api/games/ID/save             write that record under the records folder
    DELETE /api/games/ID                  close the game
    POST   /api/replays                   {records: file text} -> {id, games}
    GET    /api/replays/ID/frame?game=G&move=K[&seat=S]   one frame of a replay
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Sequence
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from rummy_env.core import PRESETS, daily_seed

from .live import LiveGame
from .refusals import AgentUnavailable, Refusal
from .replays import ReplayFile
from .saving import save_record
from .tables import TABLE_AGENTS, Tables, new_game, offered_agents, record_file

MAX_BODY = 64 * 1024
"""Largest request body, except a record file."""
MAX_RECORD_BODY = 16 * 1024 * 1024
"""Largest record file the page may upload."""
STATIC_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
}
TABLE_ID = r"([A-Za-z0-9_-]{1,64})"
ROUTES = [  # (method, path pattern, handler name)
    ("GET", r"/api/options", "options"),
    ("POST", r"/api/games", "create_game"),
    ("GET", rf"/api/games/{TABLE_ID}", "show_game"),
    ("DELETE", rf"/api/games/{TABLE_ID}", "close_game"),
    ("POST", rf"/api/games/{TABLE_ID}/act", "act"),
    ("POST", rf"/api/games/{TABLE_ID}/advance", "advance"),
    ("GET", rf"/api/games/{TABLE_ID}/record", "download_record"),
    ("POST", rf"/api/games/{TABLE_ID}/save", "save"),
    ("POST", r"/api/replays", "open_replay"),
    ("GET", rf"/api/replays/{TABLE_ID}/frame", "replay_frame"),
]


def static_files() -> dict[str, tuple[bytes, str]]:
    """The page's files by URL path, read once: ``/`` and ``/static/NAME``."""
    folder = resources.files("rummy500.web") / "static"
    files = {}
    for entry in folder.iterdir():
        kind = STATIC_TYPES.get(Path(entry.name).suffix)
        if kind is not None and entry.is_file():
            files[f"/static/{entry.name}"] = (entry.read_bytes(), kind)
    files["/"] = files["/static/index.html"]
    return files


class TableServer(ThreadingHTTPServer):
    """The server: the tables it holds, where records are saved, which Host headers it answers."""

    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128  # connections waiting to be accepted: a burst is served, not dropped

    def __init__(
        self,
        address: tuple[str, int],
        tables: Tables,
        records_dir: str | Path,
        quiet: bool = True,
        agents: Sequence[str] = TABLE_AGENTS,
    ) -> None:
        super().__init__(address, TableHandler)
        self.tables, self.records_dir, self.quiet = tables, Path(records_dir), quiet
        self.agents = offered_agents(agents)
        """Name -> spec of the agents a page may seat (``offered_agents``): pages see and send
        only the names."""
        self.files = static_files()
        host, port = self.server_address[:2]
        # Loopback servers answer only to loopback names: a web page elsewhere cannot
        # reach the table through a name of its own pointing here (DNS rebinding).
        self.hosts = (
            {f"{h}:{port}" for h in ("127.0.0.1", "localhost", "[::1]")}
            if host in ("127.0.0.1", "::1", "localhost")
            else None
        )

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}/"

    def service_actions(self) -> None:
        """Between requests (``serve_forever`` calls it twice a second): close idle games, so
        a forgotten tab's agent processes end even when no request comes."""
        self.tables.expire()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up mid-request is no error worth a traceback; the rest are."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)

    def server_close(self) -> None:
        """Stop listening and close every game (their agents' processes end)."""
        super().server_close()
        self.tables.close_all()


class TableHandler(BaseHTTPRequestHandler):
    """One request: route it, read and check its body, answer JSON or a page file."""

    server: TableServer
    protocol_version = "HTTP/1.1"
    timeout = 60  # seconds a connection may sit idle

    # Dispatch ------------------------------------------------------------------
    def do_GET(self) -> None:  # noqa: N802 - the http.server names
        self._dispatch("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._dispatch("POST")

    def do_DELETE(self) -> None:  # noqa: N802
        self._dispatch("DELETE")

    def _dispatch(self, method: str) -> None:
        try:
            url = urlsplit(self.path)
            self._check_host()
            if method == "GET" and url.path in self.server.files:
                self._send_file(*self.server.files[url.path])
                return
            handler, groups = self._route(method, url.path)
            self.query = {k: v[-1] for k, v in parse_qs(url.query).items()}
            self._send_json(200, getattr(self, handler)(*groups))
        except Refusal as e:
            if isinstance(e, AgentUnavailable):
                self.log_error("%s", e.detail)
            self._send_json(e.status, {"error": e.message, "status": e.status})
        except ConnectionError:  # the client hung up: nobody to answer
            self.close_connection = True
        except Exception as e:  # a bug must not take the server down, nor hide
            self.log_error("error on %s %s: %r", method, self.path, e)
            self._send_json(
                500, {"error": "internal error (the server's log has the details)", "status": 500}
            )

    def _check_host(self) -> None:
        if self.server.hosts is not None and self.headers.get("Host") not in self.server.hosts:
            self.close_connection = True
            raise Refusal(400, "this table answers only to 127.0.0.1 and localhost")

    def _route(self, method: str, path: str) -> tuple[str, tuple[str, ...]]:
        allowed = []
        for verb, pattern, handler in ROUTES:
            match = re.fullmatch(pattern, path)
            if match:
                if verb == method:
                    return handler, match.groups()
                allowed.append(verb)
        if allowed:
            self.close_connection = True
            raise Refusal(405, f"{method} is not allowed here; use {', '.join(allowed)}")
        raise Refusal(404, f"nothing at {path}")

    # Request bodies ------------------------------------------------------------
    def _body(self, limit: int = MAX_BODY) -> dict[str, Any]:
        """The request's JSON object, refused when too large, not JSON or malformed."""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            self.close_connection = True
            raise Refusal(411, "send the body with a Content-Length")
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            self.close_connection = True
            raise Refusal(400, "Content-Length must be a number") from None
        if length < 0 or length > limit:
            self.close_connection = True  # the body is left unread
            raise Refusal(413, f"request body of {length} bytes is over the limit of {limit}")
        raw = self.rfile.read(length)
        content_type = self.headers.get("Content-Type", "").split(";")[0].strip().lower()
        if content_type != "application/json":
            raise Refusal(415, "send JSON with Content-Type: application/json")
        try:
            body = json.loads(raw)
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise Refusal(400, f"bad JSON: {e}") from None
        except RecursionError:
            raise Refusal(400, "bad JSON: nested too deeply") from None
        except ValueError as e:  # e.g. an integer of more digits than Python converts
            raise Refusal(400, f"bad JSON: {str(e).split(';')[0]}") from None
        if not isinstance(body, dict):
            raise Refusal(400, "the body must be a JSON object")
        return body

    def _version(self, body: dict[str, Any]) -> int:
        version = body.get("version")
        if type(version) is not int:
            raise Refusal(400, "'version' must be the move count of the view the page shows")
        return version

    def _flag(self, value: Any) -> bool:
        return value in (True, "1", "true")

    # API -----------------------------------------------------------------------
    def options(self) -> dict[str, Any]:
        seed, day = daily_seed()
        return {
            "presets": sorted(PRESETS),
            "agents": list(self.server.agents),
            "daily": {"date": day},
            "max_players": 8,
        }

    def create_game(self) -> dict[str, Any]:
        body = self._body()
        game_id, game = self.server.tables.add(lambda: new_game(body, self.server.agents))
        return {"id": game_id, **game.view()}

    def show_game(self, game_id: str) -> dict[str, Any]:
        game = self.server.tables.get(game_id, LiveGame)
        return {"id": game_id, **game.view(self._flag(self.query.get("face_up")))}

    def close_game(self, game_id: str) -> dict[str, Any]:
        self.server.tables.close(game_id)
        return {"closed": game_id}

    def act(self, game_id: str) -> dict[str, Any]:
        body = self._body()
        game = self.server.tables.get(game_id, LiveGame)
        action, seat = body.get("action"), body.get("seat")
        if not isinstance(action, str):
            raise Refusal(400, "'action' must be a move's text, e.g. \"draw\"")
        if seat is not None and type(seat) is not int:
            raise Refusal(400, "'seat' must be an integer")
        return {"id": game_id, **game.act(action, self._version(body), seat)}

    def advance(self, game_id: str) -> dict[str, Any]:
        body = self._body()
        game = self.server.tables.get(game_id, LiveGame)
        return {"id": game_id, **game.advance(self._version(body), self._flag(body.get("face_up")))}

    def download_record(self, game_id: str) -> dict[str, Any]:
        record = self.server.tables.get(game_id, LiveGame).record()
        return {"line": record.to_json(), "name": _record_name(game_id)}

    def save(self, game_id: str) -> dict[str, Any]:
        self._body()
        record = self.server.tables.get(game_id, LiveGame).record()
        try:
            path = save_record(self.server.records_dir, _record_name(game_id), record)
        except OSError as e:
            self.log_error("cannot save %s: %r", game_id, e)
            raise Refusal(
                503,
                "this server cannot save records (its records folder cannot be "
                "written); download the record instead",
            ) from None
        return {"path": path.name}

    def open_replay(self) -> dict[str, Any]:
        body = self._body(MAX_RECORD_BODY)
        replay_id, replays = self.server.tables.add(lambda: record_file(body))
        return {"id": replay_id, "games": replays.games()}

    def replay_frame(self, replay_id: str) -> dict[str, Any]:
        replays = self.server.tables.get(replay_id, ReplayFile)
        try:
            game, move = int(self.query.get("game", 0)), int(self.query.get("move", 0))
            seat = self.query.get("seat", "all")
            seat = None if seat == "all" else int(seat)
        except ValueError:
            raise Refusal(400, "game, move and seat must be integers (seat may be 'all')") from None
        return {"id": replay_id, **replays.frame(game, move, seat)}

    # Answers -------------------------------------------------------------------
    def _send_json(self, status: int, data: Any) -> None:
        self._send(status, json.dumps(data).encode(), "application/json")

    def _send_file(self, data: bytes, kind: str) -> None:
        self._send(200, data, kind)

    def _send(self, status: int, data: bytes, kind: str) -> None:
        self.send_response(status, HTTPStatus(status).phrase)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
        )
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def log_error(self, format: str, *args: Any) -> None:  # noqa: A002 - the base's name
        """Errors go to stderr, except a browser's idle connection being closed (normal)."""
        if not (self.server.quiet and format.startswith("Request timed out")):
            super().log_error(format, *args)

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        """One line per request unless the server is quiet (errors are always logged)."""
        if not self.server.quiet:
            super().log_request(code, size)


def _record_name(game_id: str) -> str:
    """File name of a saved game: the time it was saved and its game id."""
    return f"web-{time.strftime('%Y%m%d-%H%M%S')}-{game_id}.jsonl"


def make_server(
    host: str = "127.0.0.1",
    port: int = 0,
    records_dir: str | Path = "records",
    max_tables: int = 32,
    idle_seconds: float = 1800.0,
    quiet: bool = True,
    agents: Sequence[str] = TABLE_AGENTS,
) -> TableServer:
    """A bound, not yet serving table server (``port`` 0 picks a free port) whose pages may
    seat ``agents`` (specs the caller checked: they may run code or read files)."""
    return TableServer((host, port), Tables(max_tables, idle_seconds), records_dir, quiet, agents)

"""The one way the table refuses a request: an HTTP status and a message for the page."""

from __future__ import annotations


class Refusal(Exception):
    """A request the server will not carry out; nothing was changed by it.

    400 malformed, 403 not yours to ask, 404 unknown, 409 conflicts with the
    game as it stands (stale, not your turn, illegal now), 413 too large,
    415 not JSON, 502 an agent failed, 503 no room for another game or no way to
    save a record.
    """

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class AgentUnavailable(Refusal):
    """A 502: the agent offered as ``name`` failed or could not be started. The page is
    told only that name; ``detail`` (which may quote the agent's command line, stderr or
    files) is for the server's log."""

    def __init__(self, name: str, detail: str) -> None:
        super().__init__(502, f"the agent {name} failed (the server's log says why)")
        self.detail = detail

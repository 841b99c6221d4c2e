"""The one way the table refuses a request: an HTTP status and a message for the page."""

from __future__ import annotations


class Refusal(Exception):
    """A request the server will not carry out; nothing was changed by it.

    400 malformed, 403 not yours to ask, 404 unknown, 409 conflicts with the
    game as it stands (stale, not your turn, illegal now), 413 too large,
    415 not JSON, 503 no room for another game or no way to save a record.
    """

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message

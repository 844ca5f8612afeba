"""The agent side's one error for the server, importable without loading any HTTP code."""

from __future__ import annotations

__all__ = ["ServerError"]


class ServerError(RuntimeError):
    """The server could not be reached or refused the request; ``status`` 0 when unreachable."""

    def __init__(self, message: str, status: int = 0) -> None:
        super().__init__(message)
        self.status = status

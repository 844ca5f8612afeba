"""Files holding a secret (an API token, a generated password) are created readable by their
owner only: mode 0600 from the first byte, never widened by the umask or a later ``chmod``."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["write_secret"]


def write_secret(path: Path, secret: str) -> Path:
    """Create ``path`` (0600) holding ``secret`` and a newline; ``FileExistsError`` if it exists.

    ``O_EXCL``: an existing file (perhaps a link someone else planted) is never written through.
    """
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(secret + "\n")
    return path

"""Path normalisation shared by every channel (ECC-PROXIMITY.md section 2, "Path normalisation")."""

from __future__ import annotations

from functools import lru_cache

__all__ = ["is_prefix_path", "normalise_path", "path_segments"]


@lru_cache(maxsize=65536)
def normalise_path(path: str) -> str:
    """Return the reference's canonical form of ``path``.

    Backslashes become slashes, one leading ``./`` is stripped and trailing slashes are
    removed, so ``./src/x.js``, ``src\\x.js`` and ``src/x.js/`` name one file (ECC-PROXIMITY.md
    section 2).
    """
    out = path.replace("\\", "/")
    if out.startswith("./"):
        out = out[2:]
    return out.rstrip("/")


@lru_cache(maxsize=65536)
def path_segments(path: str) -> tuple[str, ...]:
    """Split a normalised path on ``/`` dropping empty parts, as the tree channel does."""
    return tuple(part for part in path.split("/") if part)


def is_prefix_path(prefix: str, path: str) -> bool:
    """True when ``prefix`` names ``path`` itself or a folder that contains it (segment-wise)."""
    head = path_segments(prefix)
    return bool(head) and path_segments(path)[: len(head)] == head

"""Which text of a streaming or partial record may be embedded (requirement 32).

The policy names one mode: ``full-current-record`` (embed only whole current versions),
``buffered-snapshot`` (the latest chunk of each segment) or ``rolling-window`` (the last
``window`` chunks). Whatever the mode, a segment never crosses a change of version, scope or
space, so smoothing cannot blend two contracts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from proximity.engine.overlap.policy import EMBEDDING_INPUT_MODES

__all__ = ["RecordChunk", "embedding_inputs", "segments"]


@dataclass(frozen=True, slots=True)
class RecordChunk:
    """A partial text of a task record as it streams in."""

    task_id: str
    work_version: int
    scope: str
    space_id: str | None
    text: str
    complete: bool = False


def segments(chunks: Sequence[RecordChunk]) -> tuple[tuple[RecordChunk, ...], ...]:
    """Split ``chunks`` wherever task, version, scope or space changes."""
    out: list[list[RecordChunk]] = []
    for chunk in chunks:
        key = (chunk.task_id, chunk.work_version, chunk.scope, chunk.space_id)
        last = out[-1][-1] if out else None
        if last is None or (last.task_id, last.work_version, last.scope, last.space_id) != key:
            out.append([])
        out[-1].append(chunk)
    return tuple(tuple(s) for s in out)


def embedding_inputs(
    chunks: Sequence[RecordChunk], *, mode: str = "full-current-record", window: int = 3
) -> tuple[tuple[RecordChunk, str], ...]:
    """The texts to embed under ``mode``, each with the chunk whose identity it carries.

    Parameters
    ----------
    mode : str, default "full-current-record"
        One of ``policy.EMBEDDING_INPUT_MODES``; recorded in the policy digest.
    window : int, default 3
        Chunks joined in ``rolling-window`` mode (never across a segment boundary).
    """
    if mode not in EMBEDDING_INPUT_MODES:
        raise ValueError(f"mode must be one of {EMBEDDING_INPUT_MODES}, got {mode!r}")
    out = []
    for segment in segments(chunks):
        last = segment[-1]
        if mode == "full-current-record":
            if last.complete:
                out.append((last, last.text))
        elif mode == "buffered-snapshot":
            out.append((last, last.text))
        else:
            out.append((last, "\n".join(c.text for c in segment[-window:])))
    return tuple(out)

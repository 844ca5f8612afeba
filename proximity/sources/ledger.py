"""Append-only JSONL holdout ledger: the file-backed adapter over the engine's ledger state machine.

One JSON object per line (dataset, policyDigest, who, at). Lines are only ever appended, each with
a single ``write`` on a file opened in append mode, so concurrent writers do not interleave within
a line on POSIX filesystems; a replay of the file gives every holdout's state.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

from proximity.engine.evaluation.holdout import LedgerEntry, LedgerStatus
from proximity.engine.evaluation.holdout import ledger_status as _replay

__all__ = [
    "DEFAULT_LEDGER_PATH",
    "ledger_status",
    "read_ledger",
    "record_holdout_evaluation",
]

DEFAULT_LEDGER_PATH = Path("var/holdout-ledger.jsonl")
ENV_VAR = "RADAR_HOLDOUT_LEDGER"


def _path(path: str | Path | None) -> Path:
    return Path(path or os.environ.get(ENV_VAR) or DEFAULT_LEDGER_PATH)


def read_ledger(*, path: str | Path | None = None) -> tuple[LedgerEntry, ...]:
    """Every entry in file order; a malformed line is an error naming its line number."""
    file = _path(path)
    if not file.exists():
        return ()
    entries = []
    for n, line in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            entries.append(LedgerEntry(row["dataset"], row["policyDigest"], row["who"], row["at"]))
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{file}:{n}: malformed ledger line ({exc})") from exc
    return tuple(entries)


def record_holdout_evaluation(
    dataset: str, policy_digest: str, who: str, *, path: str | Path | None = None
) -> LedgerEntry:
    """Log one holdout evaluation now (UTC) and return the entry written."""
    for name, value in (("dataset", dataset), ("policy_digest", policy_digest), ("who", who)):
        if not isinstance(value, str) or not value.strip():
            raise ValueError(f"{name}: must be a non-empty string")
    at = datetime.now(tz=UTC).isoformat(timespec="seconds")
    entry = LedgerEntry(dataset, policy_digest, who, at)
    row = {"dataset": dataset, "policyDigest": policy_digest, "who": who, "at": at}
    file = _path(path)
    file.parent.mkdir(parents=True, exist_ok=True)
    with file.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(row, sort_keys=True) + "\n")  # one write per line: appends stay whole
    return entry


def ledger_status(dataset: str, *, path: str | Path | None = None) -> LedgerStatus:
    """The dataset's state (fresh, inspected or consumed) replayed from the ledger file."""
    return _replay(read_ledger(path=path), dataset)

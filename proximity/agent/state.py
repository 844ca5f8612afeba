"""Local state of the agent side: acknowledgements and the hook log, outside every worktree.

Kept under ``$RADAR_STATE_DIR`` (default ``$XDG_STATE_HOME/overlap-radar``), one folder per
repository (named by a digest of its common git directory), so no hook ever writes inside a
repository and every worktree of one repository shares the same acknowledgements.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from proximity.agent.ownership import StateDirError, private_folder
from proximity.agent.warm import state_dir

__all__ = ["LocalState", "StateDirError", "hook_log", "state_root"]

_LOG_LIMIT = 1_000_000


def state_root() -> Path:
    """The state folder, created 0700; raises :class:`StateDirError` unless it is ours alone
    (called when a hook starts, so a refused folder fails it open before anything is read)."""
    return Path(private_folder(state_dir()))


def hook_log(line: str) -> None:
    """One line in the local hook log (on stderr when the state folder is refused); a log
    that cannot be written is not an error."""
    try:
        root = state_root()
    except StateDirError:
        sys.stderr.write(f"radar: {line.replace(chr(10), ' ')[:500]}\n")
        return
    try:
        path = root / "hooks.log"
        if path.exists() and path.stat().st_size > _LOG_LIMIT:
            path.replace(root / "hooks.log.1")
        stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        with path.open("a", encoding="utf-8") as handle:
            handle.write(f"{stamp} {line.replace(chr(10), ' ')[:500]}\n")
    except OSError:
        pass


class LocalState:
    """Acknowledgements of one repository: ``(agent, other) -> expiry``, with a note."""

    def __init__(self, common_dir: str | Path) -> None:
        import hashlib  # imported here: most hooks never open the state

        digest = hashlib.sha256(str(Path(common_dir).resolve()).encode()).hexdigest()[:16]
        self.folder = state_root() / digest
        self.path = self.folder / "acks.json"

    @contextlib.contextmanager
    def _locked(self) -> Iterator[dict[str, Any]]:
        # An exclusive lock around read-modify-write: two agents acknowledging at once must
        # both be kept (the file is rewritten whole).
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        with (self.folder / ".lock").open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            data = self._load()
            yield data
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
            tmp.replace(self.path)

    def _load(self) -> dict[str, Any]:
        try:
            loaded = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {"acks": []}
        return loaded if isinstance(loaded, dict) and "acks" in loaded else {"acks": []}

    def acknowledge(
        self, *, agent: str, other: str, ttl_s: float, note: str = ""
    ) -> dict[str, Any]:
        now = time.time()
        entry = {"agent": agent, "other": other, "at": now, "until": now + ttl_s, "note": note}
        with self._locked() as data:
            data["acks"] = [
                a
                for a in data["acks"]
                if a.get("until", 0) > now and (a.get("agent"), a.get("other")) != (agent, other)
            ]
            data["acks"].append(entry)
        return entry

    def remember_denial(
        self, *, agent: str, others: list[str], paths: list[str], at: float | None = None
    ) -> None:
        """The paths a denial named, so ``radar ack OTHER`` can say what it acknowledges, and
        when the agent was denied (``at``, epoch seconds; default now): an agent waiting on
        the radar is not idle, so every check of this repository reads it (:meth:`asked`)."""
        with self._locked() as data:
            denials = data.setdefault("denials", {}).setdefault(agent, {})
            for other in others:
                denials[other] = sorted(set(paths))
            data.setdefault("asked", {})[agent] = time.time() if at is None else float(at)

    def stamp_asked(self, stamps: dict[str, float]) -> None:
        """Set agents' last denied edits at once: a caller on its own clock (the replay)."""
        with self._locked() as data:
            data.setdefault("asked", {}).update({a: float(t) for a, t in stamps.items()})

    def asked(self) -> dict[str, float]:
        """Each agent's last denied edit (epoch seconds), as :meth:`remember_denial` kept it."""
        raw = self._load().get("asked", {})
        if not isinstance(raw, dict):
            return {}
        return {
            str(a): float(t)
            for a, t in raw.items()
            if isinstance(t, int | float) and not isinstance(t, bool)
        }

    def denied_paths(self, agent: str, other: str) -> list[str]:
        return list(self._load().get("denials", {}).get(agent, {}).get(other, []))

    def latest_trail(self, trail_ids: Iterator[str]) -> tuple[int, dict[str, Any] | None]:
        """(number, document) of the last stored trail among ``trail_ids`` (1, 2, ... in order)."""
        n, found = 1, None
        for k, trail_id in enumerate(trail_ids, start=1):
            path = self.folder / "trails" / f"{trail_id}.json"
            if not path.exists():
                return (k - 1 if found else 1), found
            found = json.loads(path.read_text(encoding="utf-8"))
            n = k
        return n, found

    def save_trail(self, document: dict[str, Any]) -> Path:
        folder = self.folder / "trails"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{document['trailId']}.json"
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(document, separators=(",", ":")), "utf-8")
        tmp.replace(path)
        return path

    def acknowledged(self, agent: str) -> set[str]:
        """The other agents ``agent`` has acknowledged and whose acknowledgement is current."""
        now = time.time()
        return {
            str(a["other"])
            for a in self._load()["acks"]
            if a.get("agent") == agent and a.get("until", 0) > now
        }

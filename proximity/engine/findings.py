"""The answer to "may I make this edit?": findings per other agent, in plain data.

The same shapes are built by the local check (reading worktrees) and by the server's
``POST /api/check`` (reading stored snapshots), and travel as JSON between them, so a hook
decides the same way whichever answered. Pure data, so it lives in the engine, below both the
agent side and the server (a top-level module: importing it loads no other engine code).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["CheckResult", "DriftFinding", "Finding", "findings_from_advisories"]


@dataclass(frozen=True, slots=True)
class Finding:
    """One other agent the planned edit comes close to."""

    other: str
    level: str  # "resolution" | "advisory" (a Traffic Advisory)
    risk: float
    channels: dict[str, float]
    paths: tuple[str, ...] = ()
    their_lines: dict[str, list[list[int]] | None] = field(default_factory=dict)
    their_excerpt: dict[str, str] = field(default_factory=dict)
    their_label: str = ""
    their_intent: tuple[str, ...] = ()
    hold: str | None = None
    steer: str | None = None
    parked: tuple[str, ...] = ()
    """Agents of the pair parked (no change for the profile's threshold), so yielding."""
    holder_yields_at: str | None = None
    """When the holder, idle since its last change, counts as parked if it changes nothing more
    (ISO 8601, UTC): the steerer's time to ask again. None: not a Resolution, the holder is
    parked already, or it cannot be shown idle."""
    holder_published: bool = False
    """The holder's work is published (committed, its branch's head on a remote): it never
    parks, so it holds until it merges (docs/DECISIONS.md, "Published work waits on review")."""
    advisory_id: int | None = None
    acknowledged: bool = False
    symbols: tuple[str, ...] = ()
    """The symbol channel's evidence, one sentence each (strongest first)."""
    merge_check: Mapping[str, Any] | None = None
    """The pair's speculative merge check: ``state`` checked / checking / not checked, and for a
    checked pair when and the problems only the merge has (None: the answer carries none)."""
    textual: str | None = None
    """git's merge verdict on the shared files with the planned edit made (``clean``: the
    Resolution was lowered to Traffic; ``conflict``: it stands; None: not judged, see
    :mod:`proximity.engine.textual`)."""

    @property
    def resolution(self) -> bool:
        return self.level == "resolution"

    def must_steer(self, me: str) -> bool:
        """An unacknowledged Resolution Advisory stops only the agent that must steer.

        The holder holds course (design 002, section 3): its edit goes ahead and it is told who
        was asked to steer away. A Resolution naming no holder (an answer without right of way)
        stops the edit, as before. The hook's denial and the server's record of a wait
        (``services/agent_asks.py``) read this one rule.
        """
        return self.resolution and not self.acknowledged and self.hold != me

    def to_json(self) -> dict[str, Any]:
        """The API's camelCase shape (``POST /api/check`` answers a list of these)."""
        return {
            "other": self.other,
            "level": self.level,
            "risk": self.risk,
            "channels": dict(self.channels),
            "paths": list(self.paths),
            "theirLines": dict(self.their_lines),
            "theirExcerpt": dict(self.their_excerpt),
            "theirLabel": self.their_label,
            "theirIntent": list(self.their_intent),
            "hold": self.hold,
            "steer": self.steer,
            "parked": list(self.parked),
            "holderYieldsAt": self.holder_yields_at,
            "holderPublished": self.holder_published,
            "advisoryId": self.advisory_id,
            "acknowledged": self.acknowledged,
            "symbols": list(self.symbols),
            "mergeCheck": None if self.merge_check is None else dict(self.merge_check),
            "textual": self.textual,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Finding:
        excerpts = dict(data.get("theirExcerpt") or {})
        return cls(
            other=str(data["other"]),
            level=str(data["level"]),
            risk=float(data["risk"]),
            channels={str(k): float(v) for k, v in dict(data.get("channels") or {}).items()},
            paths=tuple(data.get("paths") or ()),
            their_lines=dict(data.get("theirLines") or {}),
            their_excerpt={str(k): str(v) for k, v in excerpts.items()},
            their_label=str(data.get("theirLabel") or ""),
            their_intent=tuple(str(i) for i in data.get("theirIntent") or ()),
            hold=data.get("hold"),
            steer=data.get("steer"),
            parked=tuple(str(p) for p in data.get("parked") or ()),
            holder_yields_at=_text_or_none(data.get("holderYieldsAt")),
            holder_published=data.get("holderPublished") is True,
            advisory_id=data.get("advisoryId"),
            acknowledged=bool(data.get("acknowledged")),
            symbols=tuple(str(s) for s in data.get("symbols") or ()),
            merge_check=data.get("mergeCheck"),
            textual=data.get("textual") if data.get("textual") in {"clean", "conflict"} else None,
        )


@dataclass(frozen=True, slots=True)
class DriftFinding:
    """A planned edit of ``path`` meets what the mainline changed since this branch's base.

    ``their_hunks``: the mainline's base-side ``[start, count]`` hunks the edit meets (``None``:
    the whole file, e.g. the mainline deleted or added it); ``commits``: ``"sha subject"`` of
    the latest mainline commits that changed the path.
    """

    path: str
    mainline: str
    status: str = "M"
    their_hunks: list[list[int]] | None = None
    commits: tuple[str, ...] = ()
    acknowledged: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "mainline": self.mainline,
            "status": self.status,
            "theirHunks": self.their_hunks,
            "commits": list(self.commits),
            "acknowledged": self.acknowledged,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> DriftFinding:
        hunks = data.get("theirHunks")
        return cls(
            path=str(data["path"]),
            mainline=str(data["mainline"]),
            status=str(data.get("status") or "M"),
            their_hunks=None if hunks is None else [[int(a), int(b)] for a, b in hunks],
            commits=tuple(str(c) for c in data.get("commits") or ()),
            acknowledged=bool(data.get("acknowledged")),
        )


@dataclass(frozen=True, slots=True)
class CheckResult:
    """Everything a hook needs to decide; ``coverage`` is ``unknown`` when it could not see."""

    agent: str
    repository: str
    findings: tuple[Finding, ...] = ()
    source: str = "local"
    coverage: str = "ok"
    reason: str = ""
    paths: tuple[str, ...] = ()
    drift: tuple[DriftFinding, ...] = ()
    """Planned lines the mainline changed since the merge base (read on the agent's side)."""
    lines: dict[str, list[list[int]] | None] = field(default_factory=dict)
    """The planned edit's current-file lines per path (None: the whole file), so a holder is
    told which of its lines the other agent was asked to leave."""

    def to_json(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "repository": self.repository,
            "findings": [f.to_json() for f in self.findings],
            "source": self.source,
            "coverage": self.coverage,
            "reason": self.reason,
            "paths": list(self.paths),
            "drift": [d.to_json() for d in self.drift],
            "lines": dict(self.lines),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CheckResult:
        return cls(
            agent=str(data["agent"]),
            repository=str(data["repository"]),
            findings=tuple(Finding.from_json(f) for f in data.get("findings") or ()),
            source=str(data.get("source") or "server"),
            coverage=str(data.get("coverage") or "ok"),
            reason=str(data.get("reason") or ""),
            paths=tuple(data.get("paths") or ()),
            drift=tuple(DriftFinding.from_json(d) for d in data.get("drift") or ()),
            lines=_planned_lines(data.get("lines")),
        )


def _planned_lines(data: Any) -> dict[str, list[list[int]] | None]:
    if not isinstance(data, Mapping):
        return {}
    return {
        str(path): None if spans is None else [[int(a), int(b)] for a, b in spans]
        for path, spans in data.items()
    }


def _text_or_none(value: Any) -> str | None:
    return None if value is None else str(value)


def _intent_paths(intent: Iterable[Any]) -> tuple[str, ...]:
    return tuple(str(i["path"]) if isinstance(i, Mapping) else str(i) for i in intent)


def findings_from_advisories(
    advisories: Sequence[Mapping[str, Any]],
    *,
    asker: str,
    others: Mapping[str, Mapping[str, Any]],
    planned: Sequence[str],
    acknowledged: Iterable[str] = (),
    advisory_ids: Mapping[str, int] | None = None,
) -> list[Finding]:
    """Findings from the engine's advisories for ``asker`` (``check_agent``'s output).

    ``others`` maps each other agent id to its engine agent entry (``files`` with ``lines``
    and an optional ``excerpt``, ``label``, ``intent``); ``planned`` are the repository paths
    of the edit, so each finding names the shared ones with the other side's lines.
    """
    acked = set(acknowledged)
    out = []
    for adv in advisories:
        other_id = adv["b"] if adv["a"] == asker else adv["a"]
        other = others.get(other_id, {})
        files = {str(f["path"]): f for f in other.get("files", ())}
        shared = tuple(p for p in planned if p in files)
        out.append(
            Finding(
                other=other_id,
                level=str(adv["level"]),
                risk=float(adv["risk"]),
                channels={k: float(v) for k, v in adv.get("channels", {}).items() if v},
                paths=shared,
                their_lines={p: files[p].get("lines") for p in shared},
                their_excerpt={
                    p: str(files[p]["excerpt"]) for p in shared if files[p].get("excerpt")
                },
                their_label=str(other.get("label") or ""),
                their_intent=_intent_paths(other.get("intent", ())),
                hold=adv.get("hold"),
                steer=adv.get("steer"),
                parked=tuple(str(p) for p in adv.get("parked") or ()),
                holder_yields_at=_text_or_none(adv.get("holderYieldsAt")),
                holder_published=adv.get("holderPublished") is True,
                advisory_id=(advisory_ids or {}).get(other_id),
                acknowledged=other_id in acked,
                symbols=tuple(str(e["text"]) for e in adv.get("symbols") or () if "text" in e),
                merge_check=adv.get("mergeCheck"),
            )
        )
    out.sort(key=lambda f: (not f.resolution, -f.risk, f.other))
    return out

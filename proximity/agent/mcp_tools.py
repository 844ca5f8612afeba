"""The MCP tools' bodies: each answers one question in a few lines of text.

Written once for both transports: the first argument is a :class:`Seat` (who asks, through a
worktree session or the server with their own token), filled in by ``mcp_server`` per call.
The docstrings are the descriptions the model reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from proximity.agent.client import ApiClient
from proximity.agent.config import Policy
from proximity.agent.decide import decide, describe
from proximity.agent.edits import PlannedEdit
from proximity.agent.quoting import agent_ref, as_data, message_line, reported_by
from proximity.agent.session import AgentSession
from proximity.engine.findings import CheckResult, Finding
from proximity.sources.git import explicit_worktrees, read_working_set

__all__ = ["TOOLS", "AnswerError", "Seat"]

Ranges = tuple[tuple[int, int], ...]
_SERVER = "a radar server (--server, --token-file and --repository, or .radar.toml / RADAR_*)"
_LIVE = frozenset({"open", "acknowledged"})
_MAX_AGENTS, _MAX_FILES = 10, 6


class AnswerError(Exception):
    """A question that cannot be answered as asked; its message is the tool's one line."""


@dataclass(frozen=True)
class Seat:
    """Who asks, and through what: a worktree session (stdio), or the server with their token."""

    agent: str
    repository: str | None
    client: ApiClient | None
    session: AgentSession | None = None
    policy: Policy = field(default_factory=Policy)

    @property
    def where(self) -> str:
        return f"repository {self.repository}" if self.client else "this machine's worktrees"

    def server(self, tool: str) -> ApiClient:
        if self.client is None:
            raise AnswerError(f"{tool} needs {_SERVER}, and none is configured")
        return self.client


def _ranges(lines: str | Sequence[Sequence[int]] | None) -> Ranges | None:
    if not lines:
        return None
    problem = AnswerError(
        f"lines: expected '20-24,30' or [[20, 24], [30, 30]] with 1 <= start <= end, got {lines!r}"
    )
    try:
        if isinstance(lines, str):
            pairs = [part.strip().partition("-")[::2] for part in lines.split(",")]
            out = [(int(a), int(b or a)) for a, b in pairs]
        else:
            out = [(int(p[0]), int(p[-1])) for p in lines]
    except (ValueError, IndexError, TypeError):
        raise problem from None
    if any(a < 1 or b < a for a, b in out):
        raise problem
    return tuple(sorted(set(out)))


def _relative(seat: Seat, path: str) -> str:
    """The repository path of ``path`` ("" for the whole repository)."""
    if seat.session is not None:
        rel = seat.session.worktree.relative(path)
        if rel is None:
            raise AnswerError(f"{path} is outside this worktree ({seat.session.worktree.top})")
    else:
        rel = path.strip().removeprefix("./")
        if rel.startswith("/") or ".." in rel.split("/"):
            raise AnswerError(f"{path}: give the path relative to the repository root")
    return "" if rel in {"", "."} else rel.rstrip("/")


def _span(lines: Any, status: str = "") -> str:
    if status == "D":
        return "(deleted)"
    if not lines:
        return "(whole file)"
    parts = [f"{a}" if a == b else f"{a}-{b}" for a, b in lines]
    return ("line " if parts[0].isdigit() and len(parts) == 1 else "lines ") + ", ".join(parts)


def _under(path: str, prefix: str) -> bool:
    return not prefix or path == prefix or path.startswith(prefix + "/")


def _intent(row: dict[str, Any]) -> list[str]:
    return [i["path"] if isinstance(i, dict) else str(i) for i in row.get("intent") or ()]


def _agent_line(row: dict[str, Any], empty: str = "no changed files yet") -> str:
    files = list(row.get("files") or ())
    shown = "; ".join(
        f"{as_data(f['path'])} {_span(f.get('lines'), f.get('status', ''))}"
        for f in files[:_MAX_FILES]
    )
    more = f"; +{len(files) - _MAX_FILES} more files" if len(files) > _MAX_FILES else ""
    label = row.get("label") if row.get("label") != row["agentId"] else ""
    said = reported_by(row["agentId"], [("task", label), ("intends", _intent(row))])
    return f"- {agent_ref(row['agentId'])}: {shown or empty}{more}" + (f"; {said}" if said else "")


def _others(seat: Seat) -> list[dict[str, Any]]:
    if seat.session is not None:
        return seat.session.airspace()
    rows = seat.server("airspace").agents(seat.repository or "")
    return [r for r in rows or () if r.get("agentId") != seat.agent]


def airspace(seat: Seat) -> str:
    """Who else works on this repository, on which files and lines. Call it when a task starts."""
    rows = _others(seat)
    head = f"You are {seat.agent} on {seat.where}"
    if not rows:
        return f"{head}; no other agent has changes there."
    lines = [f"{head}; {len(rows)} other agent(s):", *map(_agent_line, rows[:_MAX_AGENTS])]
    if len(rows) > _MAX_AGENTS:
        lines.append(f"- and {len(rows) - _MAX_AGENTS} more agents")
    return "\n".join(lines)


def who_is_editing(seat: Seat, path: str) -> str:
    """Which other agents are changing PATH (a file, or a folder: everything under it), and
    their line ranges. "" or "." asks about the whole repository."""
    prefix = _relative(seat, path)
    found = []
    for row in _others(seat):
        files = [
            f
            for f in row.get("files") or ()
            if _under(f["path"], prefix) or _under(f.get("oldPath") or "\0", prefix)
        ]
        intent = [i for i in _intent(row) if _under(i, prefix)]
        if files or intent:
            found.append({**row, "files": files, "intent": intent})
    what = prefix or "the repository"
    if not found:
        return f"No other agent is changing {what}."
    shown = [_agent_line(row, "no changes there yet") for row in found[:_MAX_AGENTS]]
    return "\n".join([f"Other agents changing {what}:", *shown])


def check_edit(seat: Seat, path: str, lines: str | list[list[int]] | None = None) -> str:
    """May I edit these lines? PATH is the file; LINES are its current line numbers, as
    "20-24,30" or [[20, 24], [30, 30]] (empty: the whole file). Answers what the radar's
    pre-edit hook decides: clear, or which agent changed which lines and the ways forward."""
    ranges, rel = _ranges(lines), _relative(seat, path)
    if not rel:
        raise AnswerError("path: name a file")
    if seat.session is not None:
        planned = PlannedEdit(str(seat.session.worktree.top / rel), ranges)
        result = seat.session.check([planned])
    else:
        entry: dict[str, Any] = {"path": rel}
        if ranges:
            entry["lines"] = [list(r) for r in ranges]
        body = {"repository": seat.repository, "agentId": seat.agent, "files": [entry]}
        result = CheckResult.from_json(seat.server("check_edit").check(body))
    text = decide(result, seat.policy).text
    if not text and (result.findings or result.drift):
        text = describe(result, result.findings, header="Overlap Radar:", drift=result.drift)
    text = text or f"{rel} {_span(ranges)}: clear; no other agent is working close to it."
    if result.coverage != "ok":
        text += f"\nCoverage {result.coverage}: {result.reason or 'not every agent was seen'}."
    return text


def _task_body(
    seat: Seat, objective: str, deliverable: str, acceptance: list[str] | str, scope: str
) -> dict[str, Any]:
    criteria = [acceptance] if isinstance(acceptance, str) else list(acceptance)
    return {
        "objective": objective,
        "deliverable": deliverable,
        "acceptance": criteria,
        "scope": scope,
        "owner": seat.agent,
    }


def declare_task(
    seat: Seat,
    objective: str,
    deliverable: str,
    acceptance: list[str] | str,
    scope: str,
    task_id: str | None = None,
) -> str:
    """Declare the task you are starting (objective, deliverable, acceptance criteria, and the
    scope it belongs to), so overlapping tasks of other agents are found early."""
    body = _task_body(seat, objective, deliverable, acceptance, scope)
    if task_id:
        body["taskId"] = task_id
    out = seat.server("declare_task").declare_task(body)
    return (
        f"Declared task {out['taskId']} version {out['workVersion']} in scope {out['scope']}; "
        f"its overlap check is scheduled. Change it with revise_task(task_id="
        f"{out['taskId']!r}, previous_version={out['workVersion']})."
    )


def revise_task(
    seat: Seat,
    task_id: str,
    previous_version: int,
    objective: str,
    deliverable: str,
    acceptance: list[str] | str,
    scope: str,
) -> str:
    """Revise a declared task: a new version, never an overwrite. PREVIOUS_VERSION is the
    version you are replacing (the current one)."""
    body = _task_body(seat, objective, deliverable, acceptance, scope)
    body["previousVersion"] = previous_version
    out = seat.server("revise_task").revise_task(task_id, body)
    return (
        f"Revised task {out['taskId']}: version {out['workVersion']} is current (scope "
        f"{out['scope']}); its overlap check is scheduled."
    )


def _finding(row: dict[str, Any], me: str) -> Finding:
    return Finding(
        other=row["agentB"] if row["agentA"] == me else row["agentA"],
        level="resolution" if row["band"] == "resolution" else "advisory",
        risk=float(row["risk"]),
        channels={k: float(v) for k, v in (row.get("channels") or {}).items() if v},
        hold=row.get("hold"),
        steer=row.get("steer"),
        advisory_id=row.get("id"),
        acknowledged=row.get("state") == "acknowledged",
    )


def _local_advisories(seat: Seat, session: AgentSession) -> str:
    """A local check of every file this worktree changed: the pairs a scan would name."""
    top, base = session.worktree.top, session.config.base
    mine = read_working_set(explicit_worktrees([(top, base)])[0])
    if mine.errors:
        raise AnswerError(mine.errors[0])
    kinds = {"D": "delete"}
    edits = [
        PlannedEdit(str(top / f.path), f.lines or None, kinds.get(f.status, "edit"))
        for f in mine.files
    ]
    if not edits:
        return f"No advisories: {seat.agent} has no changes against {base}."
    result = session.check(edits)
    if not result.findings:
        return (
            f"No advisories: none of {seat.agent}'s {len(edits)} changed file(s) comes "
            "close to another agent's work (local check)."
        )
    header = (
        f"{len(result.findings)} advisory(ies) for {seat.agent}, from a local check of "
        f"its {len(edits)} changed file(s):"
    )
    return describe(result, result.findings, header=header)


def list_advisories(seat: Seat) -> str:
    """Your live advisories: the other agents your work currently comes close to."""
    if seat.client is None and seat.session is not None:
        return _local_advisories(seat, seat.session)
    rows = seat.server("list_advisories").advisories(seat.repository or "", seat.agent)
    live = [r for r in rows or () if r.get("state") in _LIVE]
    if not live:
        return f"No live advisories for {seat.agent} on {seat.where}."
    header = f"{len(live)} live advisory(ies) for {seat.agent} on {seat.where}:"
    result = CheckResult(seat.agent, seat.repository or "")
    return describe(result, [_finding(r, seat.agent) for r in live], header=header)


def acknowledge(seat: Seat, other: str, note: str = "") -> str:
    """Acknowledge the encounter with OTHER (the agent a denial named), after coordinating or
    deciding to proceed; your same edits near OTHER are then allowed until it expires."""
    if seat.session is not None:
        return seat.session.acknowledge(other, note=note)
    body = {"repository": seat.repository, "agentId": seat.agent, "other": other, "note": note}
    answer = seat.server("acknowledge").acknowledge(body)
    return f"acknowledged {other} for {seat.agent} (server, until {answer.get('expiresAt', '')})"


def messages(seat: Seat) -> str:
    """Messages other agents' advisories left for you (each is delivered once)."""
    if seat.client is None:
        return f"No messages: they come from {_SERVER}, and none is configured."
    rows = list(seat.client.messages(seat.repository or "", seat.agent) or ())
    if not rows:
        return f"No pending messages for {seat.agent}."
    return "\n".join(message_line(m) for m in rows)


TOOLS = (
    airspace,
    check_edit,
    who_is_editing,
    declare_task,
    revise_task,
    list_advisories,
    acknowledge,
    messages,
)

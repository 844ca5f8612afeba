"""The pre-edit check for agents on other machines: stored snapshots plus the planned lines.

``POST /api/check`` answers what ``radar hook`` answers locally, from what the server keeps:
every other agent's current snapshot, the repository's import graph and the watcher's dry-run
conflicts, and the symbol input of the last scan (a profile with the symbol channel), scored with
the repository's profile by the same engine function. Nothing is
written: a check is a question, and its answer must not move any advisory.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from proximity.engine.airspace import PROFILES, AirspaceInputError, check_agent
from proximity.engine.findings import CheckResult, findings_from_advisories
from proximity.engine.textual import textual_verdicts
from proximity.exceptions import InvalidInputError, NotFoundError
from proximity.models import Agent, EditAcknowledgement, Principal, ProximityAdvisory
from proximity.selectors.advisories import repository_get
from proximity.selectors.airspace import airspace_inputs, latest_scan

if TYPE_CHECKING:
    from proximity.engine.symbols import SymbolData

__all__ = ["edit_check", "visible_agent"]

_LIVE = (ProximityAdvisory.State.OPEN, ProximityAdvisory.State.ACKNOWLEDGED)


def visible_agent(principal: Principal, repository: str, agent_id: str) -> tuple[Any, Agent | None]:
    """(repository, the asking agent row or None); 404 when either is not the caller's."""
    repo = repository_get(principal, repository)
    if repo is None:
        raise NotFoundError("repository")
    agent = Agent.objects.filter(repository=repo, agent_id=agent_id).first()
    if agent is not None and agent.principal_id not in (None, principal.pk):
        raise NotFoundError("agent")
    return repo, agent


def _conflicts_on(conflicts: list[dict[str, Any]], asker: str, paths: set[str]) -> list[Any]:
    """Dry-run conflicts of the asker's pairs that name a planned path; others as they are."""
    out = []
    for c in conflicts:
        mine = asker in (c.get("a"), c.get("b"))
        if not mine or paths & set(c.get("files") or ()):
            out.append(c)
    return out


def _live_advisories(agent: Agent | None) -> dict[str, ProximityAdvisory]:
    if agent is None:
        return {}
    rows = ProximityAdvisory.objects.filter(state__in=_LIVE).select_related(
        "agent_a", "agent_b", "hold", "steer"
    )
    rows = rows.filter(agent_a=agent) | rows.filter(agent_b=agent)
    return {(a.agent_b if a.agent_a_id == agent.pk else a.agent_a).agent_id: a for a in rows}


def _acknowledged(agent: Agent | None, now: datetime) -> set[str]:
    if agent is None:
        return set()
    rows = EditAcknowledgement.objects.filter(agent=agent, expires_at__gt=now)
    return set(rows.values_list("other__agent_id", flat=True))


def _stable_right_of_way(findings: list[Any], live: dict[str, ProximityAdvisory]) -> list[Any]:
    """A pair already in a Resolution Advisory keeps the right of way its scans gave it."""
    out = []
    for f in findings:
        adv = live.get(f.other)
        if f.resolution and adv is not None and adv.hold and adv.steer:
            f = replace(f, hold=adv.hold.agent_id, steer=adv.steer.agent_id)
        out.append(f)
    return out


def _stored_evidence(findings: list[Any], live: dict[str, ProximityAdvisory]) -> list[Any]:
    """The pair's stored symbol evidence and merge-check state, when the check itself has none:
    the scan that made the advisory read them from the worktrees this check does not open."""
    out = []
    for f in findings:
        detail = (live[f.other].detail or {}) if f.other in live else {}
        symbols = f.symbols or tuple(
            str(s["text"]) for s in detail.get("symbols") or () if s.get("text")
        )
        merge = f.merge_check if f.merge_check is not None else detail.get("mergeCheck")
        out.append(replace(f, symbols=symbols, merge_check=merge))
    return out


def _stored_symbols(repo: Any) -> SymbolData | None:
    """The symbol input of the repository's last scan, for a profile with the channel: the
    worktrees are the scan's to read (this check opens none), and scoring the same input makes
    the check answer as the scan and the agent's own check do. ``None``: channel 0."""
    profile = PROFILES.get(repo.profile)
    if profile is None or "symbol" not in profile.channels:
        return None
    scan = latest_scan(repo)
    stored = (scan.result or {}).get("symbolInput") if scan is not None else None
    if stored is None or scan is None or scan.profile != repo.profile:
        return None
    from proximity.engine.symbols.jsonio import SymbolInputError, symbol_data_from_json

    try:
        return symbol_data_from_json(stored)
    except SymbolInputError:  # written by an older symbol version: read again by the next scan
        return None


def _stored_merge_checks(repo: Any) -> list[dict[str, Any]] | None:
    """The pairs whose done merge check found problems only the merge has, as the repository's
    last scan scored them (``options.mergeChecks``): the checks ran on the server's worker, and
    the pre-edit check reads their stored verdict instead of running one. ``None``: none."""
    if not repo.merge_checks:
        return None
    scan = latest_scan(repo)
    if scan is None or scan.profile != repo.profile:
        return None
    stored = (scan.result or {}).get("mergeChecks")
    return stored if isinstance(stored, list) and stored else None


def edit_check(
    *,
    principal: Principal,
    repository: str,
    agent_id: str,
    files: list[dict[str, Any]],
    now: datetime,
) -> CheckResult:
    """Findings for ``agent_id``'s planned ``files`` (engine file entries) against the others."""
    repo, agent = visible_agent(principal, repository, agent_id)
    inputs = airspace_inputs(repo, now=now)
    others = [a for a in inputs.airspace["agents"] if a["agentId"] != agent_id]
    asking: dict[str, Any] = {"agentId": agent_id, "label": agent_id, "files": files}
    if agent is not None and agent.started_at is not None:
        asking["startedAt"] = agent.started_at.isoformat()
    mine = next((s for s in inputs.snapshots if s.agent.agent_id == agent_id), None)
    if mine is not None:  # right of way reads the whole working set, as the scan does
        asking["workFiles"] = len({str(f.get("path")) for f in mine.files})
    airspace = {**inputs.airspace, "agents": [asking, *others]}
    paths = {f["path"] for f in files}
    options = dict(airspace["options"])
    if "conflicts" in options:
        options["conflicts"] = _conflicts_on(options["conflicts"], agent_id, paths)
    merge_pairs = _stored_merge_checks(repo)
    if merge_pairs is not None:
        options["mergeChecks"] = merge_pairs
    airspace["options"] = options
    try:
        advisories = check_agent(
            airspace, agent_id=agent_id, profile=repo.profile, symbols=_stored_symbols(repo)
        )["advisories"]
    except AirspaceInputError as exc:
        field = exc.field.replace("agents[0].", "")
        raise InvalidInputError(str(exc).split(": ", 1)[-1], field=field) from None
    live = _live_advisories(agent)
    # The snapshots' own file entries keep the diff excerpts the engine input leaves out.
    by_id = {
        s.agent.agent_id: {"files": s.files, "label": s.agent.label, "intent": s.intent}
        for s in inputs.snapshots
        if s.agent.agent_id != agent_id
    }
    findings = findings_from_advisories(
        advisories,
        asker=agent_id,
        others=by_id,
        planned=sorted(paths),
        acknowledged=_acknowledged(agent, now),
        advisory_ids={other: adv.pk for other, adv in live.items()},
    )
    # Deny what would conflict: git's rule on the base-side hunks of each shared file (the
    # server holds no file text, so the hook's git merge-file simulation is not available here).
    theirs = {other: entry["files"] for other, entry in by_id.items()}
    settled = _stored_evidence(_stable_right_of_way(findings, live), live)
    judged = textual_verdicts(settled, asker=agent_id, planned=files, theirs=theirs)
    ordered = sorted(judged, key=lambda f: (not f.resolution, -f.risk, f.other))
    coverage, reason = "ok", ""
    if not others:
        coverage, reason = "unknown", "no other agent has a current working set on the server"
    return CheckResult(
        agent=agent_id,
        repository=repo.name,
        findings=tuple(ordered),
        source="server",
        coverage=coverage,
        reason=reason,
        paths=tuple(sorted(paths)),
        lines={f["path"]: f.get("lines") for f in files},
    )

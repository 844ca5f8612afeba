"""Answer the pre-edit question from the worktrees on this machine, with no server.

Every worktree of the repository is read as a scan reads it (``proximity.sources.git``) and the
engine scores the planned edit against them with the repository's profile. The whole import
graph and the dry-run merges are not computed on this path (they take seconds on a large
tree): the dependency channel reads only the import edges that touch a changed file
(:mod:`proximity.sources.imports.near`), which give the whole graph's distances up to the
profile's cap of 2, and a would-be denial is judged by git's merge of the shared file. The
symbol channel is read here too, from git's object store and the worktrees against a bounded
index (:mod:`proximity.sources.symbols.local`), so the hook, ``manage.py radar scan`` and the
server give one answer on the same worktrees (docs/DECISIONS.md, "One answer everywhere" and
"The hook's dependency channel").
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from proximity.agent.dependency import read_local_graph
from proximity.agent.state import LocalState, hook_log
from proximity.agent.textual import git_simulator
from proximity.agent.worktree import AskingWorktree, engine_entries
from proximity.engine.airspace import DEFAULT_PROFILE, PROFILES, check_agent, parse_airspace
from proximity.engine.airspace.model import Agent
from proximity.engine.findings import CheckResult, findings_from_advisories
from proximity.engine.textual import textual_verdicts
from proximity.sources.diff_excerpts import diff_excerpts
from proximity.sources.git import WorkingSet, read_working_sets
from proximity.sources.memo import BoundedCache
from proximity.sources.symbols.local import local_symbols
from proximity.sources.symbols.read import SymbolRead

__all__ = ["local_check", "read_local_symbols"]

Planned = list[tuple[str, tuple[tuple[int, int], ...] | None, str]]


def local_check(
    worktree: AskingWorktree,
    planned: Planned,
    *,
    base: str = "main",
    profile: str = DEFAULT_PROFILE,
    state: LocalState | None = None,
    sets: tuple[WorkingSet, ...] | None = None,
    files: list[dict[str, object]] | None = None,
    written: Mapping[str, str] | None = None,
    symbols: SymbolRead | None = None,
    graph: Callable[[], dict[str, Any] | None] | None = None,
    parked_after_hours: float | None = None,
) -> CheckResult:
    """``sets`` and ``files`` may be read ahead (see :func:`read_ahead`); else read here.
    ``written``: each path's text as the planned edit leaves it, where known, so a would-be
    denial is judged by git's merge of the shared file (:mod:`proximity.agent.textual`).
    ``symbols``: the symbol channel's input when read ahead; with a profile that has the
    channel it is otherwise read here (:func:`read_local_symbols`), as a scan reads it.
    ``graph``: gives the dependency channel's input read ahead of these ``sets`` and
    ``planned`` (:func:`~proximity.agent.dependency.read_local_graph`); else read here.
    ``parked_after_hours``: the profile's parked time replaced (0: never parked); the replay
    measures other values with it (``replay_history --parked-hours``)."""
    if sets is None:
        sets = read_working_sets(worktree.top, base=base)
    me = next((ws for ws in sets if Path(ws.path).resolve() == worktree.top), None)
    agent_id = me.agent_id if me is not None else worktree.agent_id
    others = {ws.agent_id: ws for ws in sets if ws is not me and ws.merge_base is not None}
    if files is None:
        files = engine_entries(worktree, planned, base=base)
    asking: dict[str, object] = {
        "agentId": agent_id,
        "label": (me.label if me else None) or agent_id,
        "files": files,
    }
    if me is not None:
        # Right of way reads the whole working set, as a scan does, not the planned lines.
        asking["workFiles"] = len({f.path for f in me.files})
        if me.started_at is not None:
            asking["startedAt"] = me.to_agent_json().get("startedAt")
    lenient = profile in PROFILES and PROFILES[profile].reference_input
    store = state or LocalState(worktree.common_dir)
    asked = store.asked()
    kept = {a: _with_asked(_entry(ws), asked.get(a)) for a, ws in others.items()}
    entries = {a: k[0] for a, k in kept.items()}
    options: dict[str, float] = {"now": time.time() * 1000.0}
    if parked_after_hours is not None:
        options["parkedAfterHours"] = parked_after_hours
    airspace = {
        "agents": [asking, *(k[0] if lenient else k[1] for k in kept.values())],
        "options": options,
    }
    if symbols is None and profile in PROFILES and "symbol" in PROFILES[profile].channels:
        symbols = read_local_symbols(worktree.top, [*([me] if me else []), *others.values()])
    if profile in PROFILES and PROFILES[profile].weights.get("dependency"):
        # read ahead (or dropped at the caller's deadline: None), else read here
        if graph is not None:
            near = graph()
        else:
            near = read_local_graph(worktree.top, sets, [p for p, _, _ in planned])
        if near is not None:
            airspace["graph"] = near
    advisories = check_agent(
        airspace,
        agent_id=agent_id,
        profile=profile,
        symbols=symbols.data if symbols is not None else None,
    )["advisories"]
    paths = [p for p, _, _ in planned]
    _add_excerpts(entries, others, advisories, agent_id, paths)
    acked = store.acknowledged(agent_id)
    findings = findings_from_advisories(
        advisories, asker=agent_id, others=entries, planned=paths, acknowledged=acked
    )
    where = {a: (ws.path, ws.head) for a, ws in others.items()}
    judged = textual_verdicts(
        findings,
        asker=agent_id,
        planned=files,
        theirs={a: e["files"] for a, e in entries.items()},
        simulate=git_simulator(worktree.top, where, written or {}),
    )
    problems = [e for ws in sets for e in ws.errors]
    return CheckResult(
        agent=agent_id,
        repository=str(worktree.common_dir),
        findings=tuple(sorted(judged, key=lambda f: (not f.resolution, -f.risk, f.other))),
        source="local",
        coverage="degraded" if problems else "ok",
        reason="; ".join(problems[:3]),
        paths=tuple(paths),
        lines={p: None if not r else [list(x) for x in r] for p, r, _ in planned},
    )


#: Each other agent's engine entry and its parsed form, by working-set object: a long-lived
#: process (the daemon) meets the same objects again while their worktrees are unchanged, and
#: then builds and parses neither (the objects are held, so their ids stay theirs). The entries
#: are shared: nothing may change them (:func:`_add_excerpts` copies the ones it extends).
_ENTRIES: BoundedCache[int, tuple[WorkingSet, dict[str, Any], Agent]] = BoundedCache(4096)


def _with_asked(
    kept: tuple[dict[str, Any], Agent], at: float | None
) -> tuple[dict[str, Any], Agent]:
    """The entry with the agent's last denied edit (``askedAt``), which right of way reads
    (docs/DECISIONS.md, "Waiting on the radar is not idleness"); copies, the cache is shared."""
    if at is None:
        return kept
    entry, agent = kept
    stamp = datetime.fromtimestamp(at, tz=UTC).isoformat().replace("+00:00", "Z")
    return {**entry, "askedAt": stamp}, replace(agent, asked_at_ms=at * 1000.0)


def _entry(ws: WorkingSet) -> tuple[dict[str, Any], Agent]:
    hit = _ENTRIES.get(id(ws))
    if hit is not None and hit[0] is ws:
        return hit[1], hit[2]
    entry = ws.to_agent_json()
    parsed = parse_airspace({"agents": [entry]}).agents[0]
    _ENTRIES[id(ws)] = (ws, entry, parsed)
    return entry, parsed


#: The last symbol read in a process whose git reads are watched (the daemon): the working
#: sets it was read from (held, so their ids stay theirs), the event count when it began, and
#: the read. The same working-set objects with no file event since are the same answer, given
#: without the stat of every changed file that :func:`local_symbols` makes to know it.
_LAST_READ: tuple[frozenset[int], int, tuple[WorkingSet, ...], SymbolRead] | None = None


def read_local_symbols(top: str | Path, sets: Sequence[WorkingSet]) -> SymbolRead | None:
    """The symbol channel's input from these worktrees, or ``None`` when it cannot be read:
    the channel is then 0 and the textual channels answer alone (a check never fails on it)."""
    global _LAST_READ
    from proximity.sources.git import readcache

    cache = readcache.current()
    # Only the working sets the read uses, whoever asks (the hook or the background refresh).
    kept = tuple(ws for ws in sets if ws.merge_base is not None)
    ids = frozenset(id(ws) for ws in kept)
    last = _LAST_READ
    if cache is not None and last is not None and last[0] == ids and cache.unchanged_since(last[1]):
        return last[3]
    mark = cache.sequence if cache is not None else 0
    try:
        read = local_symbols(top, sets)
    except Exception as exc:  # an unreadable object store must not stop the pre-edit check
        hook_log(f"symbols not read: {type(exc).__name__}: {exc}")
        return None
    if cache is not None:
        _LAST_READ = (ids, mark, kept, read)
    return read


def _add_excerpts(
    entries: dict[str, dict[str, Any]],
    others: dict[str, WorkingSet],
    advisories: Sequence[dict[str, Any]],
    asker: str,
    paths: Sequence[str],
) -> None:
    """Diff excerpts of the other side, read only for agents an advisory names."""
    for adv in advisories:
        other_id = str(adv["b"] if adv["a"] == asker else adv["a"])
        ws = others.get(other_id)
        entry = entries.get(other_id)
        if ws is None or entry is None:
            continue
        files = [dict(f) for f in entry["files"]]  # the kept entry stays as it was read
        entries[other_id] = {**entry, "files": files}
        shared = [f["path"] for f in files if f["path"] in paths]
        excerpts = diff_excerpts(ws.path, ws.merge_base or "", shared)
        for f in files:
            if f["path"] in excerpts:
                f["excerpt"] = excerpts[f["path"]]

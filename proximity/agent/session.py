"""One agent's view of the radar: check, acknowledge, report, read messages, see the airspace.

The hook adapters, the ``radar`` subcommands and the MCP tools all go through this class, so
an answer reads the same wherever it is asked. With a server configured (address, token and
repository name) every question goes to it; otherwise the worktrees on this machine answer.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from proximity.agent.config import RadarConfig, load_config
from proximity.agent.edits import PlannedEdit
from proximity.agent.errors import ServerError
from proximity.agent.state import LocalState, hook_log
from proximity.agent.worktree import AskingWorktree, engine_entries, find_worktree, merge_base
from proximity.engine.findings import CheckResult, DriftFinding

if TYPE_CHECKING:
    from concurrent.futures import Future

    from proximity.agent.client import ApiClient
    from proximity.sources.git import WorkingSet
    from proximity.sources.git.memo import WorkingSetMemo

__all__ = ["AgentSession", "ServerError", "refresh_recent", "remember_working_sets"]

DriftAnswer = tuple[tuple[DriftFinding, ...], str]

# Set in a long-lived process (the daemon): worktrees are re-read only when they changed. A
# one-shot hook process leaves it unset, since telling what changed costs it one more git call.
_MEMO: WorkingSetMemo | None = None
# The repositories (worktree, base) the daemon answered for lately, with when: it reads them
# again in the background after a change, so the next hook finds their answers ready.
_RECENT: dict[tuple[str, str, tuple[str, ...]], float] = {}
_RECENT_S = 3600.0
# The last working sets read per (worktree, base), with the file-event count when the read began.
_SETS: dict[tuple[str, str, tuple[str, ...]], tuple[int, tuple[WorkingSet, ...]]] = {}


def remember_working_sets() -> None:
    global _MEMO
    from proximity.sources.git.memo import WorkingSetMemo

    _MEMO = WorkingSetMemo()


def _working_sets(
    top: Any, base: str, max_workers: int = 4, ignore: tuple[str, ...] = ()
) -> tuple[WorkingSet, ...]:
    from proximity.sources.git import read_working_sets

    if _MEMO is None:
        return read_working_sets(top, base=base, max_workers=max_workers, ignore=ignore)
    from proximity.sources.git import readcache

    key = (str(top), base, tuple(ignore))
    _RECENT[key] = time.monotonic()
    cache = readcache.current()
    if cache is None:
        return read_working_sets(top, base=base, max_workers=max_workers, memo=_MEMO, ignore=ignore)
    # With file notifications, no event since a read began means that read is still exact:
    # the whole airspace is then one lookup, however many worktrees it has.
    kept = _SETS.get(key)
    if kept is not None and cache.unchanged_since(kept[0]):
        return kept[1]
    mark = cache.sequence
    sets = read_working_sets(top, base=base, max_workers=max_workers, memo=_MEMO, ignore=ignore)
    if cache.covers([str(Path(top).absolute()), *(ws.path for ws in sets)]):
        _SETS[key] = (mark, sets)
    return sets


def refresh_recent(*, seconds: float = 10.0) -> int:
    """Read again the working sets of the repositories answered for lately (the daemon's
    background work after a change); each within ``seconds``. How many were read."""
    from proximity.sources.git import GitError
    from proximity.sources.git._run import git_deadline

    now = time.monotonic()
    done = 0
    for (top, base, ignore), asked in list(_RECENT.items()):
        if now - asked > _RECENT_S:
            _RECENT.pop((top, base, ignore), None)
            continue
        try:
            with git_deadline(time.monotonic() + seconds):
                read_again = _working_sets(top, base, ignore=ignore)
                _warm_symbols(top, read_again)
        except (GitError, OSError):
            continue
        _RECENT[(top, base, ignore)] = asked  # a background read is not a caller
        done += bool(read_again)
    return done


def _warm_symbols(top: str, sets: tuple[WorkingSet, ...]) -> None:
    """Extract the changed files' symbols and imports and their neighbourhood into the
    process's blob caches (:data:`proximity.sources.symbols.local.LOCAL_CACHE`,
    :mod:`proximity.sources.imports.near`), so the next check's reads are lookups. Only the
    symbol and dependency channels' inputs; a failure is the next check's to report."""
    from proximity.agent.dependency import read_local_graph
    from proximity.agent.local import read_local_symbols

    read_local_symbols(top, sets)
    read_local_graph(top, sets, warm=True)


def _graph_after(top: Path, sets: Future[tuple[WorkingSet, ...]], planned: list[str]) -> Any:
    """:func:`~proximity.agent.dependency.read_local_graph` once ``sets`` are read."""
    from proximity.agent.dependency import read_local_graph

    return read_local_graph(top, sets.result(), planned)


GRAPH_RESERVE_S = 0.25
"""What a check keeps of its deadline for scoring and answering once the import edges are in:
a cold read of a large tree that would eat it is dropped (docs/DECISIONS.md, "The hook's
dependency channel")."""


def _graph_within(near: Future[Any]) -> Any:
    """The near graph's result, or ``None`` (the dependency channel at 0, logged) when it is
    not in by this context's deadline less :data:`GRAPH_RESERVE_S`."""
    from proximity.sources.git._run import seconds_left

    left = seconds_left()
    if left is None:
        return near.result()
    try:
        return near.result(timeout=max(0.0, left - GRAPH_RESERVE_S))
    except TimeoutError:
        hook_log("imports not read within the check's deadline: the dependency channel is 0")
        return None


def _in_thread(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """Start ``fn`` on a thread (bound by the caller's deadline); the returned callable joins
    it and gives its result."""
    import threading

    from proximity.sources.git._run import carry_deadline

    box: dict[str, Any] = {}
    bound = carry_deadline(fn)

    def run() -> None:
        try:
            box["value"] = bound(*args, **kwargs)
        except BaseException as exc:  # re-raised in the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()

    def result() -> Any:
        thread.join()
        if "error" in box:
            raise box["error"]
        return box["value"]

    return result


@dataclass
class AgentSession:
    worktree: AskingWorktree
    config: RadarConfig
    _client: ApiClient | None = field(default=None, repr=False)

    @classmethod
    def open(cls, anchor: str, **overrides: Any) -> AgentSession:
        """The session of the worktree holding ``anchor`` (a path from the payload)."""
        return cls._of(find_worktree(anchor), overrides)

    @classmethod
    def open_home(cls, home: str, anchor: str, **overrides: Any) -> AgentSession:
        """The session of the asking agent: the worktree of ``home`` (the session's own folder,
        e.g. the payload's ``cwd``), and only when that is in no worktree the one of ``anchor``
        (an edited path). Never the edited file's worktree when the session has its own."""
        from proximity.sources.git._run import GitError

        try:
            worktree = find_worktree(home)
        except GitError:
            worktree = find_worktree(anchor)
        return cls._of(worktree, overrides)

    @classmethod
    def _of(cls, worktree: AskingWorktree, overrides: dict[str, Any]) -> AgentSession:
        config = load_config(worktree.top, **overrides)
        for note in config.notes:
            hook_log(note)
        return cls(worktree, config)

    @property
    def agent_id(self) -> str:
        return self.worktree.agent_id

    @property
    def client(self) -> ApiClient | None:
        server, token = self.config.server, self.config.token
        if self._client is None and self.config.remote and server and token:
            from proximity.agent.client import ApiClient  # only where a server answers

            timeout = self.config.policy.timeout_seconds
            self._client = ApiClient(server, token, timeout=timeout)
        return self._client

    @property
    def repository(self) -> str:
        """The repository's name on the server ("" without one)."""
        return self.config.repository or ""

    def planned(
        self, edits: list[PlannedEdit] | tuple[PlannedEdit, ...]
    ) -> list[tuple[str, Any, str]]:
        """``(repository path, lines, kind)`` of the edits inside this worktree."""
        out = []
        for e in edits:
            rel = self.worktree.relative(e.path)
            if rel is not None and not rel.startswith(".git/") and rel != ".git":
                out.append((rel, e.lines, e.kind))
        return out

    def written(self, edits: list[PlannedEdit] | tuple[PlannedEdit, ...]) -> dict[str, str]:
        """``repository path -> new text`` of the edits that write a whole file."""
        out = {}
        for e in edits:
            rel = self.worktree.relative(e.path)
            if rel is not None and e.content is not None:
                out[rel] = e.content
        return out

    def check(self, edits: list[PlannedEdit] | tuple[PlannedEdit, ...]) -> CheckResult:
        planned = self.planned(edits)
        if not planned:
            return CheckResult(self.agent_id, str(self.worktree.top), source="none")
        written = self.written(edits)
        if not self.config.remote:
            return self._local_check(planned, written)
        # git maps the planned lines while the HTTP client is imported (a hook's whole life is
        # about as long as the two together).
        files = _in_thread(engine_entries, self.worktree, planned, base=self.config.base)
        client = self.client
        if client is None:  # unreachable: a remote configuration always gives a client
            raise ServerError("no server configured")
        entries = files()
        drift = _in_thread(self.mainline_drift, entries, written)  # the server cannot see it
        body = {"repository": self.repository, "agentId": self.agent_id, "files": entries}
        answer = CheckResult.from_json(client.check(body))
        return self.with_drift(answer, drift())

    def mainline_drift(
        self, entries: list[dict[str, object]], written: dict[str, str] | None = None
    ) -> DriftAnswer:
        """``(drift findings, problem)`` for the planned ``entries`` (``written``: the new text
        of whole-file writes); policy ``drift = "off"`` reads nothing. A git failure is the
        problem, never "nothing found"."""
        if self.config.policy.drift == "off":
            return (), ""
        from proximity.agent.drift import DriftUnknownError, mainline_drift

        try:
            found = mainline_drift(self.worktree, entries, base=self.config.base, written=written)
        except DriftUnknownError as exc:
            return (), f"the mainline {self.config.base!r} was not checked: {exc}"
        if found and self.config.base in self.state.acknowledged(self.agent_id):
            found = tuple(replace(d, acknowledged=True) for d in found)
        return found, ""

    @staticmethod
    def with_drift(result: CheckResult, drift: DriftAnswer) -> CheckResult:
        found, problem = drift
        if problem:
            hook_log(problem)
            reason = "; ".join(x for x in (result.reason, problem) if x)
            return replace(result, drift=found, reason=reason)
        return replace(result, drift=found)

    @property
    def state(self) -> LocalState:
        return LocalState(self.worktree.common_dir)

    def _local_check(
        self, planned: list[tuple[str, Any, str]], written: dict[str, str] | None = None
    ) -> CheckResult:
        # The worktrees are read by git processes started before numpy is imported, so the
        # two overlap: on a hook's short life that is most of its time (bench/hooks.py).
        from concurrent.futures import ThreadPoolExecutor

        from proximity.sources.git._run import carry_deadline

        base = self.config.base
        pool = ThreadPoolExecutor(max_workers=3)
        try:
            # One git process per core: more only steal the core numpy's import runs on.
            workers = os.cpu_count() or 2
            sets = pool.submit(
                carry_deadline(_working_sets), self.worktree.top, base, workers, self.config.ignore
            )
            files = pool.submit(carry_deadline(engine_entries), self.worktree, planned, base=base)
            # the import edges need no numpy either: read as soon as the working sets are
            paths = [p for p, _, _ in planned]
            near = pool.submit(carry_deadline(_graph_after), self.worktree.top, sets, paths)
            from proximity.agent.local import local_check  # numpy only when answered here

            entries = files.result()
            drift = pool.submit(carry_deadline(self.mainline_drift), entries, written)
            result = local_check(
                self.worktree,
                planned,
                base=base,
                profile=self.config.profile,
                sets=sets.result(),
                files=entries,
                written=written,
                graph=lambda: _graph_within(near),
                parked_after_hours=self.config.parked_hours,
            )
            return self.with_drift(result, drift.result())
        finally:
            # Never wait for the readers here: past the deadline their git calls are being
            # killed, and a hook answers (fail open) without them.
            pool.shutdown(wait=False, cancel_futures=True)

    def acknowledge(self, other: str, *, note: str = "") -> str:
        """Acknowledge the encounter with ``other``; the same edits are then allowed.

        ``other`` may be the mainline (``base``): its changes are read from this clone, so the
        acknowledgement is kept here whether or not a server answers the checks.
        """
        if other == self.config.base:
            ttl = self.config.policy.ack_ttl_minutes * 60
            self.state.acknowledge(agent=self.agent_id, other=other, ttl_s=ttl, note=note)
            return (
                f"acknowledged the changes on {other} for {self.agent_id} "
                f"(local, {ttl / 60:.0f} min)"
            )
        if self.client is None:
            ttl = self.config.policy.ack_ttl_minutes * 60
            self.state.acknowledge(agent=self.agent_id, other=other, ttl_s=ttl, note=note)
            receipt = self._local_receipt(other, ttl)
            return f"acknowledged {other} for {self.agent_id} (local, {ttl / 60:.0f} min){receipt}"
        body: dict[str, Any] = {
            "repository": self.config.repository,
            "agentId": self.agent_id,
            "other": other,
            "note": note,
            "paths": self.state.denied_paths(self.agent_id, other),
        }
        base = merge_base(self.worktree.top, self.config.base)
        if base:
            body["baseRevision"] = base
        answer = self.client.acknowledge(body)
        until = answer.get("expiresAt", "") if isinstance(answer, dict) else ""
        return f"acknowledged {other} for {self.agent_id} (server, until {until})"

    def _local_receipt(self, other: str, ttl_s: float) -> str:
        """Append the acknowledgement to the pair's trail in the state folder (", trail X")."""
        from datetime import UTC, datetime, timedelta
        from itertools import count

        from proximity.engine.trail import ShadowTrailError
        from proximity.engine.trail.pairs import Footprint, acknowledge_in_pair, pair_trail_id

        sets = {
            ws.agent_id: ws
            for ws in _working_sets(self.worktree.top, self.config.base, ignore=self.config.ignore)
        }
        me, them = sets.get(self.agent_id), sets.get(other)
        if me is None or them is None or not me.merge_base:
            return ""
        repository = self.worktree.common_dir.parent.name
        mine = self.state.denied_paths(self.agent_id, other) or [f.path for f in me.files]
        theirs = [f.path for f in them.files if f.path in set(mine)] or [f.path for f in them.files]
        ids = (pair_trail_id(repository, self.agent_id, other, n) for n in count(1))
        n, latest = self.state.latest_trail(ids)
        try:
            document = acknowledge_in_pair(
                latest,
                n,
                repository=repository,
                agent=Footprint(self.agent_id, me.label or "", mine),
                other=Footprint(other, them.label or "", theirs),
                base_revision=me.merge_base,
                now=datetime.now(UTC),
                ttl=timedelta(seconds=ttl_s),
            )
        except ShadowTrailError as exc:
            # e.g. no denial yet to acknowledge: the acknowledgement stands; the why goes to
            # the hook log, not to a person who asked for nothing about trails (issue 27)
            hook_log(f"ack {self.agent_id}..{other}: no receipt in the pair's trail ({exc.reason})")
            return ""
        self.state.save_trail(document)
        return f"; receipt in trail {document['trailId']}"

    def report(self, *, intent: list[str] | None = None) -> str | None:
        """Send this worktree's working set to the server (nothing to do without one)."""
        if self.client is None:
            return None
        from proximity.sources.git import explicit_worktrees, read_working_set
        from proximity.sources.git.workingset import with_published

        worktree = explicit_worktrees([(self.worktree.top, self.config.base)])[0]
        working = with_published(read_working_set(worktree, ignore=self.config.ignore),
                                 self.config.ignore)  # fmt: skip
        if working.errors:
            raise ServerError(working.errors[0])
        agent = working.to_agent_json()
        from proximity.sources.diff_excerpts import with_report_excerpts

        untracked = [f.path for f in working.files if f.untracked]
        files = with_report_excerpts(
            agent["files"], working.path, working.merge_base, untracked=untracked
        )
        body: dict[str, Any] = {
            "repository": self.config.repository,
            "agentId": self.agent_id,
            "label": agent.get("label", ""),
            "files": files,
            "intent": [{"path": p} for p in intent or ()],
        }
        if "startedAt" in agent:
            body["startedAt"] = agent["startedAt"]
        if agent.get("published"):  # handed in for review: the server keeps it from parking too
            body["published"] = True
        asked = self.state.asked().get(self.agent_id)
        if asked is not None:  # waiting on the radar is not idleness: the server reads it too
            from datetime import UTC, datetime

            body["askedAt"] = datetime.fromtimestamp(asked, tz=UTC).isoformat()
        sent = self.client.report(body)
        return (
            f"reported {len(body['files'])} file(s) as {self.agent_id} (version {sent['version']})"
        )

    @property
    def gone(self) -> bool:
        """The worktree was removed (``git worktree remove`` or its folder deleted)."""
        return not (self.worktree.top / ".git").exists()

    def leave(self) -> str | None:
        """Tell the server this worktree is gone: its lines free now, not at the TTL."""
        if self.client is None:
            return None
        left = self.client.leave(self.config.repository or "", self.agent_id)
        if left.get("retired"):
            return f"left: {self.agent_id}'s working set holds nothing from now"
        return f"left: {self.agent_id} held no working set"

    def declare_from_prompt(self, prompt: str, *, session_id: str) -> str | None:
        """Declare this session's task from the person's prompt (policy ``declare_tasks``).

        One task per harness session: a later prompt of the same session is not a new task
        (the server answers 409 and nothing changes); revising it is the MCP tool's job.
        """
        text = prompt.strip()
        if self.client is None or not text:
            return None
        scope = next(
            (r["scope"] for r in self.client.repositories() if r.get("name") == self.repository),
            None,
        )
        if scope is None:
            raise ServerError(f"repository {self.repository!r} is not visible to this token")
        task_id = f"{self.agent_id}.{session_id[:24] or 'session'}".replace(" ", "-")[:120]
        body = {
            "taskId": task_id,
            "scope": scope,
            "objective": text.splitlines()[0][:4000],
            "deliverable": text[:4000],
            "acceptance": [
                "declared from the agent's first prompt; revise it when the plan is clear"
            ],
            "owner": self.agent_id,
        }
        try:
            self.client.declare_task(body)
        except ServerError as exc:
            if exc.status == 409:
                return None
            raise
        return task_id

    def messages(self) -> list[dict[str, Any]]:
        if self.client is None:
            return []
        got = self.client.messages(self.repository, self.agent_id)
        return list(got or [])

    def airspace(self) -> list[dict[str, Any]]:
        """Other agents and what they touch: ``[{agentId, label, files, intent}]``."""
        if self.client is not None:
            rows = self.client.agents(self.repository)
            return [r for r in rows if r.get("agentId") != self.agent_id]
        sets = _working_sets(self.worktree.top, self.config.base, ignore=self.config.ignore)
        return [
            {**ws.to_agent_json(), "intent": []}
            for ws in sets
            if ws.agent_id != self.agent_id and ws.merge_base is not None
        ]

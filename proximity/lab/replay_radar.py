"""The radar as a replayed agent meets it: a Claude Code ``PreToolUse`` payload per hunk, asked
through the hook's own path against the live worktrees of every agent of the replay.

Two ways in, with the same answer (``tests/lab/test_replay.py`` checks it):

- ``hook``: :func:`proximity.agent.hook.run_hook` on the payload's JSON, exactly what ``radar
  hook claude`` does (every call reads every worktree, as a hook process does);
- ``session`` (default, faster): the steps ``run_hook`` takes for a pre-edit (``parse_payload``,
  ``AgentSession.open`` with the repository's ``.radar.toml``, ``AgentSession.planned``,
  :func:`proximity.agent.local.local_check`, :func:`proximity.agent.decide.decide`, the denial
  remembered in the local state), with each worktree's working set re-read only after that
  worktree changed (``local_check(sets=...)``).

Time: the engine ages each file by ``now - touchedAt`` on the wall clock (30-minute half-life),
and an agent's uncommitted file is dated by its mtime. The replay keeps every agent's work
uncommitted and dates each file by replay time: a file the agent last changed ``d`` seconds of
replay time ago is given ``touchedAt = wall now - d`` (``recency="historical"``), or the wall
clock's now (``recency="fresh"``: every applied edit counts as just made, the radar's recency
switched off). Acknowledgements go through ``AgentSession.acknowledge`` (what ``radar ack``
calls) into ``$RADAR_STATE_DIR``; they expire after ``ack_ttl_s`` of replay time.

Branches: ``branches="published"`` (session mode) models what a pull request's branch is,
committed and on its remote as its work is made, so every agent with work counts as published
and never parks (docs/DECISIONS.md, "Published work waits on review"); ``"local"`` leaves it
unpushed, so an idle agent parks after the repository's parked time.

Bases: ``bases="as-read"`` (the product as shipped) hands every working set to the engine as
read, each numbered on its own merge base; ``"mapped"`` (session mode only) first renumbers
each other agent's hunks onto the asker's base (:mod:`proximity.lab.replay_bases`).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import time
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from proximity.agent.decide import decide
from proximity.agent.hook import run_hook
from proximity.agent.local import local_check
from proximity.agent.payloads import parse_payload
from proximity.agent.session import AgentSession
from proximity.agent.worktree import engine_entries, merge_base
from proximity.lab.replay_bases import onto_base
from proximity.sources.git.started import worktree_admin_dir
from proximity.sources.git.workingset import WorkingSet, read_working_set
from proximity.sources.git.worktrees import Worktree

__all__ = ["GateAnswer", "RadarGate", "delete_payload", "edit_payload", "write_payload"]

MODES = ("session", "hook")
RECENCY = ("historical", "fresh")
BASES = ("as-read", "mapped")
#: published: a pull request's branch is on its remote as its work is made (what a pull request
#: is), so its idle work never parks; local: unpushed work, which parks after the parked time.
BRANCHES = ("published", "local")
_ACK = re.compile(r"`radar ack ([^`]+)`")
# decide.py's finding lines: "- Traffic Advisory with OTHER (task ...): ..." / "OTHER: ..."
_NAMED = re.compile(r"^- (?:Resolution|Traffic) Advisory with ([^\s:(]+)", re.MULTILINE)
_TRAFFIC = re.compile(r"^- Traffic Advisory with ([^\s:(]+)", re.MULTILINE)
# decide.py's steerer line: "Ask again after 2026-12-09T14:00:00Z: if X changes nothing ..."
_ASK_AGAIN = re.compile(r"Ask again after (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")


def _payload(worktree: Path, agent: str, tool: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return {
        "session_id": f"replay-{agent}",
        "hook_event_name": "PreToolUse",
        "cwd": str(worktree),
        "tool_name": tool,
        "tool_input": tool_input,
    }


def edit_payload(worktree: Path, agent: str, path: str, old: str, new: str) -> dict[str, Any]:
    file_path = str(worktree / path)
    tool_input = {"file_path": file_path, "old_string": old, "new_string": new}
    return _payload(worktree, agent, "Edit", tool_input)


def write_payload(worktree: Path, agent: str, path: str, content: str) -> dict[str, Any]:
    tool_input = {"file_path": str(worktree / path), "content": content}
    return _payload(worktree, agent, "Write", tool_input)


def delete_payload(worktree: Path, agent: str, path: str) -> dict[str, Any]:
    command = f"rm -f -- {shlex.quote(path)}"
    return _payload(worktree, agent, "Bash", {"command": command})


@dataclass(frozen=True, slots=True)
class GateAnswer:
    """``kind``: deny | context | none | error; ``others``: agent ids the answer names;
    ``traffic``: the agents named in a Traffic Advisory (not an acknowledged Resolution);
    ``drift``: the denial names lines the mainline changed since the agent's base."""

    kind: str
    text: str = ""
    others: tuple[str, ...] = ()
    traffic: tuple[str, ...] = ()
    drift: bool = False
    encounter: dict[str, Any] | None = None
    """For a denial in session mode: the asking agent (its work with the planned edit) and the
    agents named, as engine entries at that moment, and the wall time they are stamped at."""
    ask_again_s: float | None = None
    """For a denial: in how many seconds the denial says to ask again (the earliest time an
    idle holder it names counts as parked), None if it gives no time."""


def ask_again_s(text: str, wall: float) -> float | None:
    """The earliest "Ask again after T" of a denial's text, as seconds after ``wall``."""
    times = [
        datetime.strptime(t, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC).timestamp()
        for t in _ASK_AGAIN.findall(text)
    ]
    return min(times) - wall if times else None


def _iso(epoch: float) -> datetime:
    return datetime.fromtimestamp(epoch, tz=UTC)


class RadarGate:
    """Asks the radar for the agents of one replay repository; tracks replay-time touches."""

    def __init__(
        self,
        *,
        mode: str = "session",
        recency: str = "historical",
        ack_ttl_s: float = 240 * 60.0,
        bases: str = "as-read",
        branches: str = "local",
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"mode: must be one of {', '.join(MODES)} (got {mode!r})")
        if recency not in RECENCY:
            raise ValueError(f"recency: must be one of {', '.join(RECENCY)} (got {recency!r})")
        if bases not in BASES:
            raise ValueError(f"bases: must be one of {', '.join(BASES)} (got {bases!r})")
        if bases == "mapped" and mode == "hook":
            raise ValueError("bases: 'mapped' needs mode 'session' (a hook process reads as-is)")
        if branches not in BRANCHES:
            raise ValueError(f"branches: must be one of {', '.join(BRANCHES)} (got {branches!r})")
        if branches == "published" and mode == "hook":
            raise ValueError(
                "branches: 'published' needs mode 'session' (a hook process reads git, and the "
                "replay keeps every agent's work uncommitted)"
            )
        self.published = branches == "published"
        self.mode, self.recency, self.ack_ttl_s, self.bases = mode, recency, ack_ttl_s, bases
        self._bases: dict[str, str | None] = {}
        self._mapped: dict[tuple[str, str | None], tuple[WorkingSet, WorkingSet]] = {}
        self.worktrees: dict[str, Path] = {}
        self.started: dict[str, int] = {}
        self.touched: dict[str, dict[str, int]] = {}
        self._sets: dict[str, WorkingSet] = {}
        self._stale: set[str] = set()
        self._sessions: dict[str, AgentSession] = {}
        self.acks: dict[tuple[str, str], int] = {}
        self.denied_at: dict[str, int] = {}  # replay time of each agent's last denial
        self.asked = 0

    # -- the airspace -----------------------------------------------------------------------
    def join(self, agent: str, worktree: Path, at: int) -> None:
        self.worktrees[agent] = worktree.resolve()
        self.started[agent] = at
        self.touched[agent] = {}

    def leave(self, agent: str) -> None:
        for table in (self.worktrees, self.started, self.touched, self._sets, self._sessions,
                      self._bases):  # fmt: skip
            table.pop(agent, None)
        self._stale.discard(agent)
        self._mapped = {k: v for k, v in self._mapped.items() if k[0] != agent}

    def touch(self, agent: str, path: str, at: int) -> None:
        self.touched[agent][path] = at
        self._stale.add(agent)

    def changed(self, agent: str) -> None:
        """The worktree changed outside :meth:`touch` (a resynchronisation)."""
        self._stale.add(agent)
        self._sessions.pop(agent, None)
        self._bases.pop(agent, None)

    def _base_of(self, agent: str) -> str | None:
        """The agent's merge base with ``main``; it moves only when the agent resyncs."""
        if agent not in self._bases:
            self._bases[agent] = merge_base(self.worktrees[agent], "main")
        return self._bases[agent]

    def _onto(self, agent: str, ws: WorkingSet, asker: str) -> WorkingSet:
        onto = self._base_of(asker)
        cached = self._mapped.get((agent, onto))
        if cached is None or cached[0] is not ws:
            cached = (ws, onto_base(ws.path, ws, onto))
            self._mapped[(agent, onto)] = cached
        return cached[1]

    def _age_stamp(self, agent: str, path: str | None, now: int, wall: float) -> float:
        """The wall-clock stamp of the agent's last touch of ``path`` (``None``: its start)."""
        if path is not None and self.recency == "fresh":
            return wall
        start = self.started[agent]
        at = start if path is None else self.touched[agent].get(path, start)
        return wall - (now - at)

    def _sets_now(self, asker: str, now: int, wall: float) -> tuple[WorkingSet, ...]:
        """Every worktree's working set; one is re-read only when it changed since it was read.

        The asker's own set may stay stale: ``local_check`` takes the asker's planned lines
        from ``engine_entries`` and reads only its id, label and start from its set.
        """
        out = []
        for agent, path in sorted(self.worktrees.items()):
            ws = self._sets.get(agent)
            if ws is None or (agent in self._stale and agent != asker):
                ws = read_working_set(Worktree(str(path), agent, None, agent, "main"))
                self._sets[agent] = ws
                self._stale.discard(agent)
            if self.bases == "mapped" and agent != asker:
                ws = self._onto(agent, ws, asker)
            files = tuple(
                replace(f, touched_at=_iso(self._age_stamp(agent, f.path, now, wall)))
                for f in ws.files
            )
            started = _iso(self._age_stamp(agent, None, now, wall))
            # Published: as the pull request's branch is, committed and pushed as it goes (the
            # replay keeps the work uncommitted for its clock, so git cannot say it here).
            published = self.published and bool(ws.files)
            out.append(replace(ws, files=files, started_at=started, published=published))
        return tuple(out)

    def _touch_files(self, now: int, wall: float) -> None:
        """For the hook path: mtimes carry replay time (the reader dates dirty files by them,
        and a branch without a reflog, as in the replay's bare repository, by its worktree's
        creation: ``proximity.sources.git.started``)."""
        for agent, root in self.worktrees.items():
            admin = worktree_admin_dir(root)
            if admin is not None and (admin / "commondir").exists():
                stamp = self._age_stamp(agent, None, now, wall)
                os.utime(admin / "commondir", (stamp, stamp))
            for path in self.touched[agent]:
                target = root / path
                if target.exists():
                    stamp = self._age_stamp(agent, path, now, wall)
                    os.utime(target, (stamp, stamp), follow_symlinks=False)

    # -- questions --------------------------------------------------------------------------
    def _session(self, agent: str) -> AgentSession:
        session = self._sessions.get(agent)
        if session is None:
            session = AgentSession.open(str(self.worktrees[agent]))
            self._sessions[agent] = session
        return session

    def ask(self, agent: str, payload: dict[str, Any], now: int) -> GateAnswer:
        self.asked += 1
        self._expire_acks(agent, now)
        wall = time.time()
        self._stamp_asked(agent, now, wall)
        answer = self._ask(agent, payload, now, wall)
        if answer.kind == "deny":
            self.denied_at[agent] = now
        return answer

    def _stamp_asked(self, agent: str, now: int, wall: float) -> None:
        """Each agent's last denial, dated on the wall clock as its files are (``_age_stamp``),
        so right of way reads a wait on the radar in replay time."""
        if self.denied_at:
            stamps = {a: wall - (now - at) for a, at in self.denied_at.items()}
            self._session(agent).state.stamp_asked(stamps)

    def _ask(self, agent: str, payload: dict[str, Any], now: int, wall: float) -> GateAnswer:
        if self.mode == "hook":
            self._touch_files(now, wall)
            return _from_hook(run_hook("claude", json.dumps(payload)), wall)
        event = parse_payload("claude", payload)
        session = self._session(agent)
        planned = session.planned(event.edits)
        if not planned:
            return GateAnswer("none")
        config = session.config
        files = engine_entries(session.worktree, planned, base=config.base)
        sets = self._sets_now(agent, now, wall)
        written = session.written(event.edits)
        result = local_check(session.worktree, planned, base=config.base, profile=config.profile,
                             sets=sets, files=files, written=written,
                             parked_after_hours=config.parked_hours)  # fmt: skip
        result = session.with_drift(result, session.mainline_drift(files, written))
        decision = decide(result, config.policy)
        others = tuple(sorted({f.other for f in decision.findings}))
        if decision.kind in {"deny", "ask"}:
            named = sorted({*others, *(d.mainline for d in decision.drift)})
            session.state.remember_denial(agent=result.agent, others=named,
                                          paths=list(result.paths))  # fmt: skip
            seen = _encounter(sets, agent, files, others, wall)
            return GateAnswer("deny", decision.text, others, drift=bool(decision.drift),
                              encounter=seen,
                              ask_again_s=ask_again_s(decision.text, wall))  # fmt: skip
        traffic = tuple(sorted({f.other for f in decision.findings if not f.resolution}))
        return GateAnswer(decision.kind, decision.text, others, traffic)

    def base_of_config(self, agent: str) -> str:
        """The base branch the agent's ``.radar.toml`` names (what ``radar ack`` takes for it)."""
        return self._session(agent).config.base

    def acknowledge(self, agent: str, others: tuple[str, ...], now: int) -> list[str]:
        session = self._session(agent)
        out = []
        for other in others:
            out.append(session.acknowledge(other, note="replay: acknowledge policy"))
            self.acks[(agent, other)] = now
        return out

    def _expire_acks(self, agent: str, now: int) -> None:
        for (who, other), at in list(self.acks.items()):
            if who == agent and now - at > self.ack_ttl_s:
                # a zero-length acknowledgement replaces the pair's entry and is never current
                self._session(agent).state.acknowledge(agent=who, other=other, ttl_s=0.0,
                                                       note="expired in replay time")  # fmt: skip
                del self.acks[(who, other)]


def _with_planned(files: list[dict[str, Any]], planned: list[dict[str, object]]) -> list[Any]:
    """The asker's files with the planned edit merged in (one entry per path, as reported)."""
    out: dict[str, dict[str, Any]] = {str(f["path"]): dict(f) for f in files}
    for entry in planned:
        path = str(entry["path"])
        had = out.get(path)
        if had is None or "baseHunks" not in entry or "baseHunks" not in had:
            out[path] = {k: v for k, v in {**(had or {}), **entry}.items() if k != "hunkIds"}
            continue
        had.pop("hunkIds", None)  # the planned hunks have no text read: no ids for the union
        for key in ("lines", "baseHunks"):
            mine: Any = entry.get(key) or []
            spans = {(int(a), int(b)) for a, b in [*had.get(key, []), *mine]}
            had[key] = [list(x) for x in sorted(spans)]
    return list(out.values())


def _encounter(
    sets: tuple[WorkingSet, ...],
    asker: str,
    planned: list[dict[str, object]],
    others: tuple[str, ...],
    wall: float,
) -> dict[str, Any]:
    agents: list[dict[str, Any]] = []
    for ws in sets:
        if ws.agent_id == asker:
            entry = ws.to_agent_json()
            entry["files"] = _with_planned(entry["files"], planned)
            agents.insert(0, entry)
        elif ws.agent_id in others:
            agents.append(ws.to_agent_json())
    return {"stampedAt": _iso(wall).isoformat(), "agents": agents}


def _from_hook(outcome: Any, wall: float) -> GateAnswer:
    if outcome.note == "error":
        return GateAnswer("error")
    if not outcome.stdout:
        return GateAnswer("none")
    body = json.loads(outcome.stdout).get("hookSpecificOutput", {})
    if body.get("permissionDecision") in {"deny", "ask"}:
        text = str(body.get("permissionDecisionReason") or "")
        found = _ACK.search(text)
        named = tuple(found.group(1).split()) if found else ()
        # the replay's agents are pr-N; the mainline is the one name that is not
        others = tuple(n for n in named if n.startswith("pr-"))
        return GateAnswer("deny", text, others, drift=len(others) < len(named),
                          ask_again_s=ask_again_s(text, wall))  # fmt: skip
    text = str(body.get("additionalContext") or "")
    others = tuple(sorted(set(_NAMED.findall(text))))
    return GateAnswer("context", text, others, tuple(sorted(set(_TRAFFIC.findall(text)))))

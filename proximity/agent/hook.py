"""``radar hook HARNESS``: the adapter a harness runs around every tool call.

Never breaks the agent: malformed stdin, an internal error, a timeout or an unreachable server
all end in exit 0 with no output (fail open) and one line in the local hook log; a repository
that chose ``on_error = "closed"`` gets a denial naming the failure instead, for pre-edit
events only. The exit code is always 0: decisions travel as JSON on stdout.
"""

from __future__ import annotations

import contextlib
import json
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from proximity.agent.config import ConfigError, Policy
from proximity.agent.decide import Decision, decide, describe
from proximity.agent.deferred import defer, take
from proximity.agent.payloads import (
    POST,
    PRE,
    PROMPT,
    SESSION,
    HookEvent,
    PayloadError,
    parse_payload,
)
from proximity.agent.quoting import agent_ref, message_line, reported_by
from proximity.agent.render import render
from proximity.agent.session import AgentSession, ServerError
from proximity.agent.state import hook_log, state_root
from proximity.engine.findings import CheckResult
from proximity.sources.git import GitError
from proximity.sources.git._run import git_deadline, move_deadline

__all__ = ["HookOutcome", "run_hook"]

_MAX_STDIN = 8 * 1024 * 1024
_START_TIMEOUT_S = 3.0  # until the repository's own policy is read
_CLOSED_TIMEOUT_S = 1.0  # to read the policy again for a fail-closed denial


class HookTimeoutError(Exception):
    pass


@dataclass(frozen=True, slots=True)
class HookOutcome:
    stdout: str
    exit_code: int
    note: str = ""


class _Deadline:
    """One hook call's deadline, movable once the repository's policy is read.

    Every git call under it is killed at the deadline (:func:`git_deadline`, which also binds
    the threads started with ``carry_deadline``). On the main thread of a process an alarm
    also interrupts whatever Python is doing; the daemon answers on other threads, where the
    git bound and the daemon's own wait for the answer do that job.
    """

    def __init__(self, started: float, budget: float | None) -> None:
        self.started = started
        self.hard = started + budget if budget else None
        self.alarm = threading.current_thread() is threading.main_thread()

    def at(self, seconds: float) -> float:
        """``seconds`` from now, never past the caller's budget."""
        at = time.monotonic() + seconds
        return at if self.hard is None else min(at, self.hard)

    def move(self, at: float) -> None:
        move_deadline(at)
        if self.alarm:
            signal.setitimer(signal.ITIMER_REAL, max(at - time.monotonic(), 0.001))

    @contextlib.contextmanager
    def running(self, at: float) -> Iterator[None]:
        def expire(signum: int, frame: object) -> None:
            took = time.monotonic() - self.started
            raise HookTimeoutError(f"no answer within {took:.1f} s")

        previous = signal.signal(signal.SIGALRM, expire) if self.alarm else None
        try:
            with git_deadline(at):
                self.move(at)
                yield
        finally:
            if self.alarm:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, previous)


def _pre_edit(session: AgentSession, event: HookEvent) -> Decision:
    if event.unread:
        hook_log(f"{event.harness} {event.tool}: not recognised as file writes: {event.unread}")
    if not event.edits:
        return Decision("none")
    from proximity.agent.elsewhere import edits_elsewhere, elsewhere_decision

    elsewhere = elsewhere_decision(
        edits_elsewhere(session.worktree, event.edits), session.worktree, session.config.policy
    )
    if elsewhere is not None and elsewhere.kind != "context":
        return elsewhere
    result = session.check(event.edits)
    if result.coverage == "unknown":
        hook_log(f"{event.harness}: coverage unknown: {result.reason}")
    decision = decide(result, session.config.policy)
    if decision.kind == "context" and event.harness == "gemini":
        defer(event.session_id, decision.text)  # Gemini drops BeforeTool context (deferred.py)
    if decision.kind in {"deny", "ask"}:
        others = sorted({f.other for f in decision.findings} | {d.mainline for d in decision.drift})
        session.state.remember_denial(agent=result.agent, others=others, paths=list(result.paths))
    if elsewhere is not None:  # a note about edits outside every worktree of the repository
        text = "\n".join(t for t in (decision.text, elsewhere.text) if t)
        kind = decision.kind if decision.kind != "none" else "context"
        return Decision(kind, text, decision.findings, decision.drift)
    return decision


def _messages_text(session: AgentSession) -> str:
    lines = [message_line(m) for m in session.messages()]
    return ("Overlap Radar messages:\n" + "\n".join(lines)) if lines else ""


def _post_edit(session: AgentSession, event: HookEvent) -> Decision:
    carried = take(event.session_id) if event.harness == "gemini" else ""
    if session.client is not None:
        session.report()
    messages = _messages_text(session) if session.client is not None else ""
    text = "\n\n".join(part for part in (carried, messages) if part)
    return Decision("context", text) if text else Decision("none")


def _summary_lines(rows: list[dict[str, Any]], limit: int = 8) -> list[str]:
    out = []
    for row in rows[:limit]:
        files = [f["path"] for f in row.get("files", ())]
        intent = [i["path"] if isinstance(i, dict) else str(i) for i in row.get("intent", ())]
        label = row.get("label") if row.get("label") != row["agentId"] else ""
        said = reported_by(
            row["agentId"], [("task", label), ("editing", files), ("intends", intent)]
        )
        out.append(f"- {agent_ref(row['agentId'])}: {said or 'nothing yet'}")
    if len(rows) > limit:
        out.append(f"- and {len(rows) - limit} more agents")
    return out


def _session_start(session: AgentSession, event: HookEvent) -> Decision:
    if session.client is not None:
        session.report()
    rows = session.airspace()
    if not rows:
        return Decision("none")
    head = (
        f"Overlap Radar: you are {session.agent_id}; {len(rows)} other agent(s) work on this "
        "repository. Edits of lines another agent is changing are checked before they "
        "happen."
    )
    messages = _messages_text(session)
    text = "\n".join([head, *_summary_lines(rows)] + ([messages] if messages else []))
    return Decision("context", text)


def _prompt(session: AgentSession, event: HookEvent) -> Decision:
    if not session.config.policy.declare_tasks:
        return Decision("none")
    task_id = session.declare_from_prompt(event.prompt, session_id=event.session_id)
    if task_id is None:
        return Decision("none")
    text = (
        f"Overlap Radar: this prompt was declared as task {task_id}; the server compares it "
        "with the other tasks of the repository and flags possible duplicates for review."
    )
    return Decision("context", text)


def _handle(
    harness: str, payload: object, overrides: dict[str, Any], deadline: _Deadline
) -> tuple[Decision, str]:
    event = parse_payload(harness, payload)
    session = AgentSession.open_home(event.home, event.anchor, **overrides)
    # The repository's own limit replaces the start-up one from here on (within the budget).
    deadline.move(deadline.at(session.config.policy.timeout_seconds))
    if event.event == PRE:
        decision = _pre_edit(session, event)
    elif event.event == POST:
        decision = _post_edit(session, event)
    elif event.event == SESSION:
        decision = _session_start(session, event)
    elif event.event == PROMPT:
        decision = _prompt(session, event)
    else:
        decision = Decision("none")
    return decision, event.event_name


def _closed(
    harness: str, payload: object, overrides: dict[str, Any], problem: str, deadline: _Deadline
) -> str:
    """The fail-closed denial, when the repository chose it and the event is a pre-edit."""
    try:
        with deadline.running(time.monotonic() + _CLOSED_TIMEOUT_S):
            event = parse_payload(harness, payload)
            policy: Policy = AgentSession.open_home(
                event.home, event.anchor, **overrides
            ).config.policy
    except Exception:
        return ""
    if event.event != PRE or policy.on_error != "closed" or not event.edits:
        return ""
    text = (
        f"Overlap Radar could not check this edit ({problem}); this repository denies "
        "edits it cannot check (policy on_error = closed). Retry, or run `radar hooks "
        "doctor`."
    )
    return render(harness, Decision("deny", text), event.event_name)


def run_hook(
    harness: str, stdin: str, *, budget: float | None = None, **overrides: Any
) -> HookOutcome:
    """The hook's whole answer; never raises (fail open). ``budget``: seconds from now the
    answer must not outlast, whatever the policy says (a fail-closed denial may take
    :data:`_CLOSED_TIMEOUT_S` more)."""
    started = time.monotonic()
    deadline = _Deadline(started, budget)
    payload: object = None
    try:
        if len(stdin) > _MAX_STDIN:
            raise PayloadError("stdin larger than 8 MiB")
        state_root()  # a state folder that is not ours alone fails the hook open, here
        payload = json.loads(stdin)
        with deadline.running(deadline.at(_START_TIMEOUT_S)):
            decision, event_name = _handle(harness, payload, overrides, deadline)
        out = render(harness, decision, event_name)
        took = (time.monotonic() - started) * 1000
        if decision.kind != "none":
            hook_log(f"{harness} {event_name}: {decision.kind} ({took:.0f} ms)")
        return HookOutcome(out, 0, decision.kind)
    except (
        ValueError,
        PayloadError,
        ConfigError,
        GitError,
        ServerError,
        HookTimeoutError,
        OSError,
    ) as exc:
        problem = f"{type(exc).__name__}: {exc}"
    except Exception as exc:
        problem = f"internal error {type(exc).__name__}: {exc}"
    hook_log(f"{harness}: fail open: {problem}")
    closed = _closed(harness, payload, overrides, problem, deadline) if payload is not None else ""
    return HookOutcome(closed, 0, "error")


def check_text(result: CheckResult, policy: Policy) -> str:
    """A person's reading of a check (``radar check``)."""
    decision = decide(result, policy)
    if decision.kind == "none" and not result.findings and not result.drift:
        text = f"{', '.join(result.paths) or 'nothing to check'}: clear"
    else:
        text = decision.text or describe(
            result, result.findings, header="Overlap Radar:", drift=result.drift
        )
    if result.coverage != "ok":  # "clear" of what was read is no clear of what was not (MCP too)
        text += f"\nCoverage {result.coverage}: {result.reason or 'not every agent was seen'}."
    return text

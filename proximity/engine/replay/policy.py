"""The agents' state machine: apply, defer on a denial, resynchronise, merge, break deadlocks.

Pure: the scheduler decides what happens next and an ``execute`` callback (the git side, in
:mod:`proximity.lab.replay_run`) does it and answers. The same scheduler runs every policy;
only the callback's answers differ: under *ignore* and *acknowledge* an application is never
denied, so nothing is deferred and the agents do exactly what history did.

*obey*: a denied change (one file of one commit) waits, with every later change of the same
file of that agent behind it, until every agent named in the denial has merged; then the agent
merges the mainline into its work and re-applies, asking again (an agent closed without merging
releases its waiters the same way, at its close, and drops what it still deferred). Changes of
other files go on.
A merge falls due at its historical time and waits while changes are deferred. Agents that wait
on each other in a cycle, all past their merge time, would wait forever: the one that was due
first applies its deferred changes without asking (``force``) and merges. Where history's branch
merged the mainline in, every policy brings the replay's mainline in at that moment (``pull``),
whatever waits. A change denied because the *mainline* changed its lines since the agent's base
(nobody to wait for) is ``Drifted``: the agent brings the mainline in at once (``resync``) and
re-applies, asking again; should the same answer come back, it applies without asking.

A denial that says when to ask again (the moment an idle holder it names counts as parked and
yields right of way) has the agent ask again then (``reask``), as its text tells it; denied
again, it keeps waiting, on the agents the new denial names.

With ``max_wait_s`` (*obey* with a cap), a change that has waited that long gives up waiting
(``giveup``): the agent acknowledges the agents it waited on, as ``radar ack`` does, and applies,
asking again (another agent may still deny it, and a new wait begins).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from proximity.engine.replay.schedule import BranchPull, Change, Event, MainlineStep

__all__ = [
    "Action",
    "Applied",
    "Denied",
    "Drifted",
    "Outcome",
    "ReplayScheduler",
]


@dataclass(frozen=True, slots=True)
class Action:
    """``kind``: start | apply | merge | close | drop | push | resync | pull | force | giveup |
    reask (``drop``: a change still waiting when its agent closed without merging);
    ``at`` is replay time; ``others``: for a giveup, the agents waited on; ``pull``: for a pull,
    history's merge of the mainline into the branch."""

    kind: str
    at: int
    pr: int | None = None
    change: Change | None = None
    step: MainlineStep | None = None
    retry: bool = False
    reason: str = ""
    others: tuple[int, ...] = ()
    pull: BranchPull | None = None


@dataclass(frozen=True, slots=True)
class Applied:
    pass


@dataclass(frozen=True, slots=True)
class Denied:
    """The radar denied the change (``others``: the agents named); some hunks may be applied.
    ``retry_at``: the replay time the denial says to ask again at (None: it gives none)."""

    others: frozenset[int]
    retry_at: int | None = None


@dataclass(frozen=True, slots=True)
class Drifted:
    """The radar denied the change for lines the mainline changed since the agent's base."""


Outcome = Applied | Denied | Drifted | None
Execute = Callable[[Action], Outcome]


@dataclass
class _Agent:
    pr: int
    started: bool = False
    due_at: int | None = None
    merged: bool = False
    queues: dict[str, deque[Change]] = field(default_factory=dict)
    blocked_by: dict[str, set[int]] = field(default_factory=dict)
    deferred_at: dict[str, int] = field(default_factory=dict)
    reask_at: dict[str, int] = field(default_factory=dict)

    def waiting_on(self) -> set[int]:
        return {o for s in self.blocked_by.values() for o in s}


class ReplayScheduler:
    """Runs ``events`` (from :func:`~proximity.engine.replay.schedule.build_schedule`)."""

    def __init__(
        self, events: Sequence[Event], execute: Execute, *, max_wait_s: int | None = None
    ) -> None:
        if max_wait_s is not None and max_wait_s <= 0:
            raise ValueError(f"max_wait_s: must be positive (got {max_wait_s})")
        self.events = list(events)
        self.execute = execute
        self.max_wait_s = max_wait_s
        self.agents: dict[int, _Agent] = {}
        self.now = self.events[0].at if self.events else 0
        self.forced = 0
        self.gave_up = 0
        self.reasked = 0

    def run(self) -> None:
        for event in self.events:
            self._timers_until(event.at)
            self.now = max(self.now, event.at)
            self._handle(event)
            self._break_cycles(final=False)
        self._timers_until(None)
        while any(not a.merged for a in self.agents.values()):
            self._break_cycles(final=True)

    def _timers_until(self, until: int | None) -> None:
        """Every re-ask and every wait reaching the cap before ``until`` (``None``: ever), in
        time order; each may free a due merge."""
        cap = self.max_wait_s
        while True:
            timers = [
                (at, 0, agent.pr, path)
                for agent in self.agents.values()
                if not agent.merged
                for path, at in agent.reask_at.items()
            ]
            if cap is not None:
                timers += [
                    (at + cap, 1, agent.pr, path)
                    for agent in self.agents.values()
                    if not agent.merged
                    for path, at in agent.deferred_at.items()
                ]
            due = min((t for t in timers if until is None or t[0] <= until), default=None)
            if due is None:
                return
            at, kind, pr, path = due
            self.now = max(self.now, at)
            agent = self.agents[pr]
            if kind == 0:
                self._reask(agent, path)
            else:
                self._give_up(agent, path)
            self._settle([agent])

    def _reask(self, agent: _Agent, path: str) -> None:
        """The time the denial gave has come: ask again (the wait keeps its start)."""
        del agent.reask_at[path]
        self.reasked += 1
        queue = agent.queues[path]
        if self._apply(agent, queue[0], retry=True, kind="reask"):
            queue.popleft()
            self._retry(agent, path)

    def _give_up(self, agent: _Agent, path: str) -> None:
        others = tuple(sorted(agent.blocked_by.pop(path)))
        del agent.deferred_at[path]
        agent.reask_at.pop(path, None)
        self.gave_up += 1
        queue = agent.queues[path]
        if self._apply(agent, queue[0], retry=True, kind="giveup", others=others):
            queue.popleft()
            agent.blocked_by[path] = set()
            self._retry(agent, path)

    def _agent(self, pr: int) -> _Agent:
        return self.agents.setdefault(pr, _Agent(pr))

    def _handle(self, event: Event) -> None:
        if event.kind == "push":
            self.execute(Action("push", self.now, step=event.step))
        elif event.kind == "start":
            self._start(self._agent(_pr(event)))
        elif event.kind == "change":
            agent = self._agent(_pr(event))
            self._start(agent)
            change = event.change
            if change is None:
                raise ValueError("a change event without its change")
            queue = agent.queues.get(change.path)
            if queue is not None:
                queue.append(change)  # behind a deferred change of the same file
            else:
                self._apply(agent, change, retry=False)
        elif event.kind == "pull":
            agent = self._agent(_pr(event))
            self._start(agent)
            if not agent.merged and event.pull is not None:
                self.execute(Action("pull", self.now, agent.pr, pull=event.pull))
        elif event.kind == "merge":
            agent = self._agent(_pr(event))
            self._start(agent)
            agent.due_at = self.now
            self._settle([agent])
        elif event.kind == "close":
            self._close(self._agent(_pr(event)))

    def _start(self, agent: _Agent) -> None:
        if not agent.started:
            agent.started = True
            self.execute(Action("start", self.now, agent.pr))

    def _apply(
        self,
        agent: _Agent,
        change: Change,
        *,
        retry: bool,
        kind: str = "apply",
        others: tuple[int, ...] = (),
    ) -> bool:
        outcome = self.execute(Action(kind, self.now, agent.pr, change, retry=retry, others=others))
        if isinstance(outcome, Drifted):
            reason = "the mainline changed the planned lines"
            self.execute(Action("resync", self.now, agent.pr, reason=reason))
            outcome = self.execute(Action("apply", self.now, agent.pr, change, retry=True))
            if isinstance(outcome, Drifted):
                outcome = self.execute(Action("force", self.now, agent.pr, change, reason=reason))
        if isinstance(outcome, Denied):
            agent.queues.setdefault(change.path, deque())
            if not retry:
                agent.queues[change.path].appendleft(change)
            agent.blocked_by[change.path] = set(outcome.others)
            agent.deferred_at.setdefault(change.path, self.now)
            if outcome.retry_at is not None and outcome.retry_at > self.now:
                agent.reask_at[change.path] = outcome.retry_at
            else:
                agent.reask_at.pop(change.path, None)
            return False
        return True

    def _retry(self, agent: _Agent, path: str) -> None:
        queue = agent.queues[path]
        del agent.blocked_by[path]
        agent.deferred_at.pop(path, None)
        agent.reask_at.pop(path, None)
        while queue:
            if not self._apply(agent, queue[0], retry=True):
                return
            queue.popleft()
        del agent.queues[path]

    def _settle(self, work: Iterable[_Agent]) -> None:
        """Merge every due agent with nothing deferred; each merge may free others."""
        todo = deque(work)
        while todo:
            agent = todo.popleft()
            if agent.merged or agent.due_at is None or agent.queues:
                continue
            self.execute(Action("merge", self.now, agent.pr))
            agent.merged = True
            todo.extend(self._released_by(agent.pr))

    def _close(self, agent: _Agent) -> None:
        """Closed without merging: its worktree goes, what it deferred is dropped, and whoever
        waited on it goes on (bringing in a mainline that gained nothing from it)."""
        if agent.merged:
            return
        self._start(agent)
        for queue in agent.queues.values():
            for change in queue:
                self.execute(Action("drop", self.now, agent.pr, change))
        self.execute(Action("close", self.now, agent.pr))
        agent.merged = True
        agent.queues.clear()
        agent.blocked_by.clear()
        agent.deferred_at.clear()
        agent.reask_at.clear()
        self._settle(self._released_by(agent.pr, how="closed"))

    def _released_by(self, merged: int, how: str = "merged") -> list[_Agent]:
        """Agents that waited on ``merged``: resynchronise once, then retry what is free."""
        out = []
        for agent in self.agents.values():
            if agent.merged or not any(merged in s for s in agent.blocked_by.values()):
                continue
            for waiting in agent.blocked_by.values():
                waiting.discard(merged)
            free = [p for p, s in agent.blocked_by.items() if not s]
            if free:
                self.execute(Action("resync", self.now, agent.pr, reason=f"pr-{merged} {how}"))
                for path in free:
                    self._retry(agent, path)
            out.append(agent)
        return out

    def _cycle_members(self) -> list[_Agent]:
        """Due agents that wait, transitively, only on due waiting agents, one of them itself."""
        due = {a.pr: a for a in self.agents.values() if not a.merged and a.due_at is not None}
        stuck = []
        for agent in due.values():
            seen, frontier = set(), list(agent.waiting_on())
            while frontier:
                pr = frontier.pop()
                if pr in seen or pr not in due:
                    continue
                seen.add(pr)
                frontier.extend(due[pr].waiting_on())
            if agent.pr in seen:
                stuck.append(agent)
        return stuck

    def _break_cycles(self, *, final: bool) -> None:
        while True:
            stuck = self._cycle_members()
            if not stuck and final:
                # every merge is due at the end: whoever still waits waits on someone stuck
                stuck = [a for a in self.agents.values() if not a.merged]
                for a in stuck:
                    if a.due_at is None:
                        a.due_at = self.now
            if not stuck:
                return
            first = min(stuck, key=lambda a: (a.due_at or 0, a.pr))
            self._force(first)
            self._settle([first])

    def _force(self, agent: _Agent) -> None:
        for path, queue in list(agent.queues.items()):
            while queue:
                change = queue.popleft()
                self.execute(Action("force", self.now, agent.pr, change, reason="deadlock"))
            del agent.queues[path]
        agent.blocked_by.clear()
        agent.deferred_at.clear()
        agent.reask_at.clear()
        self.forced += 1


def _pr(event: Event) -> int:
    if event.pr is None:
        raise ValueError(f"a {event.kind} event without its pull request")
    return event.pr

"""Run one policy of the replay: the scheduler's actions done in git, through the radar.

Every policy runs on the same schedule in the same scratch repository (``main`` reset to the
start commit, fresh ``$RADAR_STATE_DIR``); the baseline (*ignore*) runs first, and its final
branch states (``refs/replay/ignore/pr-N``) label denials afterwards: a denial was unnecessary
when the two agents' baseline work merges without a conflict in a path both changed.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from proximity.engine.replay.hunks import plan_edit, split_lines
from proximity.engine.replay.metrics import PullRequestOutcome
from proximity.engine.replay.policy import (
    Action,
    Applied,
    Denied,
    Drifted,
    Outcome,
    ReplayScheduler,
)
from proximity.engine.replay.schedule import Change, Event, PullRequestHistory
from proximity.lab.replay_radar import (
    RadarGate,
    delete_payload,
    edit_payload,
    write_payload,
)
from proximity.lab.replay_repo import ChangePlan, ReplayRepo

__all__ = ["POLICIES", "PolicyRun", "label_denials", "label_drift_denials", "run_policy"]

POLICIES = ("ignore", "obey", "acknowledge")


def _iso(at: int) -> str:
    return datetime.fromtimestamp(at, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class _Stats:
    started: int = 0
    merged: int = 0
    due: int = 0
    hunks: int = 0
    delays: list[float] = field(default_factory=list)
    denials: list[tuple[int, tuple[str, ...]]] = field(default_factory=list)
    """(replay time, the agents named) of each denial naming agents."""
    drift_denials: list[tuple[str, str]] = field(default_factory=list)
    """(path, made) of each denial because the mainline had changed the planned lines. ``made``:
    "absent", a whole-file write of a file the worktree lacked (``ChangePlan.absent``);
    "transplant", a commit's diff merged in with a conflict, resolved as the commit's side
    (``ChangePlan.conflicted``: text the replay wrote); "copy", a commit copying one the
    replayed mainline already holds (:mod:`proximity.lab.replay_copies`: git's copy, no
    edit a hook sees); "" the agent's own edit of its file."""
    tas: int = 0
    forced: int = 0
    reasks: int = 0
    """Times the agent asked again at the moment a denial gave (an idle holder parking)."""
    reasks_allowed: int = 0
    conflicts: tuple[str, ...] = ()
    resync_conflicted: bool = False
    merge_resync_conflicted: bool = False
    """Bringing the mainline in conflicted with work the agent had applied (its real work); the
    other kind is a deferred historical diff that no longer fits (:class:`PullRequestOutcome`)."""
    transplants: set[str] = field(default_factory=set)
    """Paths whose commit the replay merged into the worktree with a conflict, first time (not a
    deferred change's re-application): from then on the file holds the replay's text."""
    pull_conflicts: frozenset[str] = frozenset()
    """Paths on which bringing the mainline in where history's branch did (a pull) conflicted:
    the collision met before the merge, as history met it."""
    base_index: int = 0
    closed: bool = False
    """Closed without merging (``PullRequestHistory.closed``): ``merged`` is then its closing
    time (its agent-hours run to it); never merged, never judged for conflicts, never a
    knock-on's cause, and any pair it is in merges cleanly."""
    build: str = ""  # "" not checked, "break", "clean", "unchecked" (a limit; never clean)

    def drift_paths(self, made: str | None = None) -> list[str]:
        """The paths of the drift denials, or of those of one ``made`` kind."""
        return [path for path, kind in self.drift_denials if made is None or kind == made]


@dataclass
class PolicyRun:
    policy: str
    stats: dict[int, _Stats]
    finals: dict[int, str]
    seconds: float
    asked: int
    steps_matching_history: int = 0
    steps: int = 0
    transplanted: int = 0
    apply_conflicts: int = 0
    hook_errors: int = 0
    pairs_clean: dict[str, bool] = field(default_factory=dict)
    """Denied pairs ``pr-A/pr-B`` and whether their baseline work merges cleanly."""

    def outcomes(
        self,
        unnecessary: dict[int, int] | None = None,
        drift: dict[int, int] | None = None,
        own: dict[int, int] | None = None,
        knock_on: dict[int, int] | None = None,
    ) -> list[PullRequestOutcome]:
        out = []
        for pr, s in sorted(self.stats.items()):
            delayed = [d for d in s.delays if d > 0]
            out.append(PullRequestOutcome(
                pr=pr, closed=s.closed, conflicted=bool(s.conflicts),
                conflicted_paths=len(s.conflicts),
                pull_conflicted=bool(s.pull_conflicts),
                replay_made=bool((set(s.conflicts) | s.pull_conflicts) & s.transplants),
                resync_conflicted=s.resync_conflicted,
                resync_merge_conflicted=s.merge_resync_conflicted,
                hunks=s.hunks, delayed_hunks=len(delayed),
                delays_s=tuple(delayed), denials=len(s.denials),
                unnecessary_denials=(unnecessary or {}).get(pr, 0),
                knock_on_denials=(knock_on or {}).get(pr, 0), traffic_advisories=s.tas,
                forced_hunks=s.forced, reasks=s.reasks, reasks_allowed=s.reasks_allowed,
                agent_hours=max(0, s.merged - s.started) / 3600.0,
                merge_postponed_s=float(max(0, s.merged - s.due)),
                drift_denials=len(s.drift_denials),
                unnecessary_drift_denials=(drift or {}).get(pr, 0),
                absent_drift_denials=len(s.drift_paths("absent")),
                transplant_drift_denials=len(s.drift_paths("transplant")),
                copy_drift_denials=len(s.drift_paths("copy")),
                own_drift_denials=len(s.drift_paths("")),
                unnecessary_own_drift_denials=(own or {}).get(pr, 0),
                build_break=None if s.build in {"", "unchecked"} else s.build == "break",
            ))  # fmt: skip
        return out

    @property
    def hunks(self) -> int:
        return sum(s.hunks for s in self.stats.values())


@contextmanager
def _state_dir(path: Path) -> Iterator[None]:
    previous = os.environ.get("RADAR_STATE_DIR")
    os.environ["RADAR_STATE_DIR"] = str(path)
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("RADAR_STATE_DIR", None)
        else:
            os.environ["RADAR_STATE_DIR"] = previous


class _Driver:
    def __init__(self, policy: str, repo: ReplayRepo, gate: RadarGate,
                 prs: dict[int, PullRequestHistory], log: TextIO,
                 build_breaks: bool = False,
                 copies: Mapping[str, frozenset[str]] | None = None) -> None:  # fmt: skip
        self.policy, self.repo, self.gate, self.prs, self.log = policy, repo, gate, prs, log
        self.build_breaks = build_breaks
        self.copies = copies or {}  # commit -> mainline steps holding the work it copies
        self.check_cache: dict[str, object] = {}
        self.stats: dict[int, _Stats] = {}
        self.finals: dict[int, str] = {}
        self.main_log: list[tuple[str, frozenset[str], int]] = []
        # history's mainline commit -> (the replayed mainline after its step, main_log length)
        self.replayed: dict[str, tuple[str, int]] = {}
        self.counters = {"matching": 0, "steps": 0, "transplanted": 0, "apply_conflicts": 0,
                         "hook_errors": 0}  # fmt: skip
        self.seq = 0

    def emit(self, at: int, kind: str, **fields: Any) -> None:
        self.seq += 1
        row = {"seq": self.seq, "policy": self.policy, "at": _iso(at), "t": at, "kind": kind}
        # ASCII escapes: a path that is not UTF-8 is held with surrogate escapes, which a
        # UTF-8 file refuses to store (issue 31, item 8); json.loads gives it back unchanged.
        self.log.write(json.dumps({**row, **fields}, sort_keys=True) + "\n")

    def __call__(self, action: Action) -> Outcome:
        handler = getattr(self, f"_do_{action.kind}")
        result: Outcome = handler(action)
        return result

    # -- mainline ---------------------------------------------------------------------------
    def _record_main(self, source: str, historical: str, at: int) -> None:
        main = self.repo.main()
        self.main_log.append((source, self.repo.own_paths(main), at))
        self.replayed[historical] = (main, len(self.main_log))

    def _do_push(self, action: Action) -> None:
        step = action.step
        if step is None:
            raise ValueError("a push without its mainline step")
        result = self.repo.push(step, action.at)
        self.counters["steps"] += 1
        self.counters["matching"] += result.matches_history
        self._record_main(f"push {step.sha[:12]}", step.sha, action.at)
        self.emit(action.at, "push", commit=step.sha, conflicts=list(result.conflicts),
                  matchesHistory=result.matches_history)  # fmt: skip

    def _do_merge(self, action: Action) -> None:
        pr = self._pr(action)
        agent = f"pr-{pr}"
        s = self.stats[pr]
        tip = self.repo.main() if self.build_breaks else ""
        result = self.repo.merge_agent(agent, action.at, historical=self.prs[pr].merge)
        s.merged, s.conflicts = action.at, result.conflicts
        build = self._build_check(tip, result.commit) if not result.conflicts else None
        # what reached the mainline since this agent's base and changed a conflicted path;
        # "live": it merged after this agent started, so the radar could have seen it working
        since = self.main_log[s.base_index :]
        counterparts = {p: [src for src, files, _ in since if p in files] for p in result.conflicts}
        live = {
            p: [src for src, files, at in since if p in files and at >= s.started]
            for p in result.conflicts
        }
        self.counters["steps"] += 1
        self.counters["matching"] += result.matches_history
        self._record_main(agent, self.prs[pr].merge, action.at)
        self.finals[pr] = result.commit
        self.repo.keep(f"refs/replay/{self.policy}/{agent}", result.commit)
        self.repo.remove_agent(agent)
        self.gate.leave(agent)
        self.emit(action.at, "merge", agent=agent, conflicts=list(result.conflicts),
                  counterparts=counterparts, liveCounterparts=live,
                  postponedS=action.at - self.prs[pr].merged_at,
                  matchesHistory=result.matches_history,
                  **({"build": build} if build else {}))  # fmt: skip
        if build:
            s.build = {"done": "break" if build.get("problems") else "clean"}.get(
                build["status"], "unchecked"
            )

    def _do_drop(self, action: Action) -> None:
        """A change still waiting when its agent closed: never applied, it waited to the close.
        Counted as one delayed hunk (a lower bound: the change is not split into its hunks)."""
        change = action.change
        if change is None:
            raise ValueError("a drop without its change")
        s = self.stats[self._pr(action)]
        s.hunks += 1
        s.delays.append(float(action.at - change.at))
        self.emit(action.at, "drop", agent=f"pr-{self._pr(action)}", path=change.path,
                  commit=change.commit)  # fmt: skip

    def _do_close(self, action: Action) -> None:
        """Closed without merging: the agent leaves the radar and its worktree goes."""
        agent = f"pr-{self._pr(action)}"
        s = self.stats[self._pr(action)]
        s.closed, s.merged = True, action.at
        self.repo.remove_agent(agent)
        self.gate.leave(agent)
        self.emit(action.at, "close", agent=agent)

    def _build_check(self, tip: str, work: str) -> dict[str, Any] | None:
        """The static build check of the agent's work merged into ``tip`` (merge-only problems)."""
        if not self.build_breaks:
            return None
        from proximity.lab.backtest.buildbreaks import build_check

        record = build_check(self.repo.git_dir, {}, tip, work, cache=self.check_cache)
        return {k: v for k, v in record.items() if k not in {"merged", "counts"}}

    # -- agents -----------------------------------------------------------------------------
    def _pr(self, action: Action) -> int:
        if action.pr is None:
            raise ValueError(f"a {action.kind} without its pull request")
        return action.pr

    def _do_start(self, action: Action) -> None:
        pr = self._pr(action)
        agent = f"pr-{pr}"
        # the worktree starts where the branch forked: the replayed mainline after that step
        # (or the tip, when the replay has not reached it)
        fork = self.prs[pr].fork_point
        base, index = self.replayed.get(fork, (self.repo.main(), len(self.main_log)))
        path = self.repo.add_agent(agent, base)
        self.gate.join(agent, path, action.at)
        self.stats[pr] = _Stats(started=action.at, due=self.prs[pr].merged_at, base_index=index)
        self.emit(action.at, "start", agent=agent, base=base, forkPoint=fork)

    def _do_pull(self, action: Action) -> None:
        """History's branch merged the mainline in here: bring in the replayed mainline as it
        now is, as an agent pulling would (not the step history merged: a merge the policy
        postponed would be missing from it); a conflicted path takes history's resolution, as a
        conflicted merge does."""
        pr, pull = self._pr(action), action.pull
        if pull is None:
            raise ValueError("a pull without its merge")
        onto = self.repo.main()
        conflicts = self._bring_main_in(pr, action.at, historical=pull.sha)
        if conflicts is None:
            return  # the branch already holds it
        self.stats[pr].pull_conflicts |= frozenset(conflicts)
        self.emit(action.at, "pull", agent=f"pr-{pr}", conflicts=list(conflicts),
                  mainline=pull.mainline, onto=onto)  # fmt: skip

    def _bring_main_in(self, pr: int, at: int, historical: str = "") -> tuple[str, ...] | None:
        """Merge the replayed mainline into the agent's work (``ReplayRepo.resync``); its base
        is then the mainline's tip. ``None``: it already was."""
        conflicts = self.repo.resync(f"pr-{pr}", at, historical=historical)
        if conflicts is not None:
            self.gate.changed(f"pr-{pr}")
            self.stats[pr].base_index = len(self.main_log)
        return conflicts

    def _do_resync(self, action: Action) -> None:
        pr = self._pr(action)
        conflicts = self._bring_main_in(pr, action.at) or ()
        self.stats[pr].resync_conflicted |= bool(conflicts)
        self.stats[pr].merge_resync_conflicted |= bool(conflicts)
        self.emit(action.at, "resync", agent=f"pr-{pr}", conflicts=list(conflicts),
                  reason=action.reason)  # fmt: skip

    def _do_force(self, action: Action) -> Outcome:
        self.emit(action.at, "force", agent=f"pr-{action.pr}", reason=action.reason,
                  path=action.change.path if action.change else None)  # fmt: skip
        return self._apply(action, ask=False, forced=True)

    def _do_giveup(self, action: Action) -> Outcome:
        """The wait reached its cap: acknowledge the agents waited on, then apply, asking."""
        agent = f"pr-{self._pr(action)}"
        others = tuple(f"pr-{o}" for o in action.others)
        said = self.gate.acknowledge(agent, others, action.at) if others else []
        self.emit(action.at, "giveup", agent=agent, others=list(others), said=said,
                  path=action.change.path if action.change else None)  # fmt: skip
        return self._apply(action, ask=True, forced=False)

    def _do_reask(self, action: Action) -> Outcome:
        """The time the denial gave to ask again has come: ask again."""
        pr = self._pr(action)
        self.emit(action.at, "reask", agent=f"pr-{pr}",
                  path=action.change.path if action.change else None)  # fmt: skip
        outcome = self._apply(action, ask=True, forced=False)
        self.stats[pr].reasks += 1
        self.stats[pr].reasks_allowed += isinstance(outcome, Applied)
        return outcome

    def _do_apply(self, action: Action) -> Outcome:
        return self._apply(action, ask=self.policy != "ignore", forced=False)

    def _apply(self, action: Action, *, ask: bool, forced: bool) -> Outcome:
        pr, change = self._pr(action), action.change
        if change is None:
            raise ValueError("an application without its change")
        agent = f"pr-{pr}"
        plan = self.repo.plan_change(agent, change)
        s = self.stats[pr]
        self.counters["transplanted"] += plan.transplanted
        if plan.conflicted:
            # re-applying after a deferral on lines the other side changed: the agent resolves
            self.counters["apply_conflicts"] += 1
            s.resync_conflicted |= action.retry or forced
            if not (action.retry or forced):
                s.transplants.add(change.path)
            self.emit(action.at, "apply_conflict", agent=agent, path=change.path,
                      commit=change.commit, retry=action.retry)  # fmt: skip
        if plan.kind == "skip" and (action.retry or forced):
            # the deferred edit is already there (the other side made it): it waited all the same
            s.hunks += 1
            s.delays.append(float(action.at - change.at))
            self.emit(action.at, "already_applied", agent=agent, path=change.path)
        for payload, write in self._units(agent, change, plan):
            if ask:
                made = self._made(change, plan)
                denied = self._ask(action, agent, change, payload, made=made)
                if denied is not None:
                    return denied
            write()
            self.gate.touch(agent, change.path, action.at)
            s.hunks += 1
            s.forced += forced
            s.delays.append(float(action.at - change.at))
        return Applied()

    def _made(self, change: Change, plan: ChangePlan) -> str:
        """Who made the planned text: the replay (``absent``, ``transplant``), git copying a
        commit the replayed mainline already holds (``copy``: a cherry-pick), or the agent."""
        if plan.absent:
            return "absent"
        if plan.conflicted:
            return "transplant"
        if any(step in self.replayed for step in self.copies.get(change.commit, ())):
            return "copy"
        return ""

    def _ask(
        self, action: Action, agent: str, change: Change, payload: dict[str, Any], *, made: str
    ) -> Denied | Drifted | None:
        """Ask the gate until it allows; ``made`` says whether the replay itself made the
        planned text (``absent``: a whole file the worktree lacked; ``transplant``: a diff
        merged in with a conflict) or it is the agent's own edit (empty)."""
        for _ in range(3):
            answer = self.gate.ask(agent, payload, action.at)
            if answer.kind == "context":
                self.stats[self._pr(action)].tas += bool(answer.traffic)
                self.emit(action.at, "advisory", agent=agent, path=change.path,
                          others=list(answer.others), traffic=list(answer.traffic),
                          told=answer.text, retry=action.retry)  # fmt: skip
            if answer.kind == "error":
                self.counters["hook_errors"] += 1
                self.emit(action.at, "hook_error", agent=agent, path=change.path)
            if answer.kind != "deny":
                return None
            s = self.stats[self._pr(action)]
            if answer.others:
                s.denials.append((action.at, tuple(answer.others)))
            if answer.drift:
                s.drift_denials.append((change.path, made))
            seen: dict[str, Any] = {"encounter": answer.encounter} if answer.encounter else {}
            seen.update({"absent": True} if made == "absent" else {})
            seen.update({"transplantConflict": True} if made == "transplant" else {})
            seen.update({"mainlineCopy": True} if made == "copy" else {})
            self.emit(action.at, "deny", agent=agent, path=change.path, others=list(answer.others),
                      drift=answer.drift, told=answer.text, retry=action.retry,
                      commit=change.commit, **seen)  # fmt: skip
            if answer.drift and self.policy == "obey":
                return Drifted()  # bring the mainline in, then ask again
            if answer.drift:
                base = self.gate.base_of_config(agent)
                said = self.gate.acknowledge(agent, (base,), action.at)
                self.emit(action.at, "ack", agent=agent, others=[base], said=said)
                if not answer.others:
                    continue
            if not answer.others:
                return None  # nobody to wait for: the agent cannot act on it, so it proceeds
            if self.policy == "obey":
                others = frozenset(int(o.removeprefix("pr-")) for o in answer.others)
                again = answer.ask_again_s
                retry_at = None if again is None else action.at + math.ceil(again)
                self.emit(action.at, "defer", agent=agent, path=change.path,
                          waitingOn=sorted(answer.others),
                          askAgainAt=None if retry_at is None else _iso(retry_at))  # fmt: skip
                return Denied(others, retry_at)
            said = self.gate.acknowledge(agent, answer.others, action.at)
            self.emit(action.at, "ack", agent=agent, others=list(answer.others), said=said)
        return None

    def _units(
        self, agent: str, change: Change, plan: ChangePlan
    ) -> Iterator[tuple[dict[str, Any], Any]]:
        """(payload, write) per edit: hunks bottom-up, so each one's lines stay where they are."""
        root = self.repo.worktree(agent)
        target = root / change.path
        if plan.kind == "delete":
            yield delete_payload(root, agent, change.path), lambda: target.unlink()
        elif plan.kind == "write":
            text = plan.content.decode("utf-8", "surrogateescape")
            yield write_payload(root, agent, change.path, text), lambda: _write(target, plan)
        elif plan.kind == "edit":
            for hunk in sorted(plan.hunks, key=lambda h: -h.start):
                text = target.read_bytes().decode("utf-8", "surrogateescape")
                planned = plan_edit(split_lines(text), hunk)
                if planned is None:
                    content = plan.content.decode("utf-8", "surrogateescape")
                    yield (
                        write_payload(root, agent, change.path, content),
                        (lambda: _write(target, plan)),
                    )
                    return
                new_text = text.replace(planned.old, planned.new, 1)
                yield (
                    edit_payload(root, agent, change.path, planned.old, planned.new),
                    (lambda t=new_text: target.write_bytes(t.encode("utf-8", "surrogateescape"))),
                )


def _write(target: Path, plan: ChangePlan) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(plan.content)
    target.chmod(0o755 if plan.executable else 0o644)


def run_policy(
    policy: str,
    *,
    repo: ReplayRepo,
    start: str,
    events: Sequence[Event],
    prs: Sequence[PullRequestHistory],
    log: TextIO,
    state_dir: Path,
    mode: str = "session",
    recency: str = "historical",
    ack_ttl_s: float = 240 * 60.0,
    bases: str = "as-read",
    max_wait_s: int | None = None,
    build_breaks: bool = False,
    copies: Mapping[str, frozenset[str]] | None = None,
    parked_after_hours: float | None = None,
    branches: str = "local",
) -> PolicyRun:
    """Replay ``events`` under ``policy`` from ``start`` in ``repo``; events go to ``log``.

    ``max_wait_s`` caps how long an *obey* agent waits on a denial (then it acknowledges).
    ``parked_after_hours`` replaces the profile's parked time (0: never parked), as the
    repository's ``[radar] parked_hours`` in every agent's ``.radar.toml``. ``branches``:
    ``published`` (every agent's work counts as pushed, so it never parks) or ``local``.
    """
    if policy not in POLICIES:
        raise ValueError(f"policy: must be one of {', '.join(POLICIES)} (got {policy!r})")
    repo.reset_main(start)
    repo.parked_hours = parked_after_hours
    gate = RadarGate(mode=mode, recency=recency, ack_ttl_s=ack_ttl_s, bases=bases,
                     branches=branches)  # fmt: skip
    driver = _Driver(policy, repo, gate, {p.number: p for p in prs}, log, build_breaks, copies)
    driver.replayed[start] = (repo.main(), 0)
    began = time.monotonic()
    state_dir.mkdir(parents=True, exist_ok=True)
    with _state_dir(state_dir):
        wait = max_wait_s if policy == "obey" else None
        ReplayScheduler(events, driver, max_wait_s=wait).run()
    c = driver.counters
    return PolicyRun(policy, driver.stats, driver.finals, time.monotonic() - began, gate.asked,
                     c["matching"], c["steps"], c["transplanted"], c["apply_conflicts"],
                     c["hook_errors"])  # fmt: skip


def label_denials(
    repo: ReplayRepo, baseline: PolicyRun, run: PolicyRun
) -> tuple[dict[int, int], dict[int, int]]:
    """Unnecessary and knock-on denials per PR.

    Knock-on: every agent named had already merged, in the baseline, by the moment of the
    denial; only the policy's own earlier waits kept it open. The hook's merge said the edit
    would conflict with it, and it had yet to merge, so in the world the policy made the denial
    averted a conflict; the baseline, where the two never overlapped, cannot judge it. Its
    cost is the wait, counted in the delays (docs/DECISIONS.md, "A knock-on denial").

    Unnecessary, of the others: every agent named merged cleanly with it in the baseline. Clean:
    the two final baseline states merge without a conflict in a path both changed, and
    neither's own pull of the mainline conflicted on such a path (where history's branch met
    the collision, its final state already holds the resolution).
    """
    cache: dict[tuple[int, int], bool] = {}
    finals, stats = baseline.finals, baseline.stats

    def clean(a: int, b: int) -> bool:
        key = (min(a, b), max(a, b))
        if any(stats[pr].closed for pr in key if pr in stats):
            return True  # a closed pull request never merges: nothing of it can conflict
        if key not in cache:
            x, y = finals[key[0]], finals[key[1]]
            shared = repo.own_paths(x) & repo.own_paths(y)
            pulled = {p for pr in key if pr in stats for p in stats[pr].pull_conflicts}
            cache[key] = not ((set(repo.dry_run(x, y)) | pulled) & shared)
        return cache[key]

    def merged_by(pr: int, at: int) -> bool:
        s = stats.get(pr)
        return s is not None and not s.closed and 0 < s.merged <= at

    unnecessary: dict[int, int] = {}
    knock_on: dict[int, int] = {}
    for pr, s in run.stats.items():
        for at, others in s.denials:
            ids = [int(o.removeprefix("pr-")) for o in others]
            if ids and all(merged_by(o, at) for o in ids):
                knock_on[pr] = knock_on.get(pr, 0) + 1
            elif ids and all(clean(pr, o) for o in ids):
                unnecessary[pr] = unnecessary.get(pr, 0) + 1
    run.pairs_clean = {f"pr-{a}/pr-{b}": ok for (a, b), ok in sorted(cache.items())}
    return unnecessary, knock_on


def label_drift_denials(
    baseline: PolicyRun, run: PolicyRun, *, own: bool = False
) -> dict[int, int]:
    """Unnecessary drift denials per PR: the path did not conflict at the PR's baseline merge
    (``own``: only those of the agent's own edits).

    A path the branch's own pull of the mainline conflicted on counts as conflicted: history's
    branch met that collision there instead. An approximation: the baseline's mainline is
    history's, the policy's may differ by then.
    """
    out: dict[int, int] = {}
    for pr, s in run.stats.items():
        b = baseline.stats.get(pr)
        conflicted = set(b.conflicts) | b.pull_conflicts if b is not None else set()
        paths = s.drift_paths("" if own else None)
        count = sum(path not in conflicted for path in paths)
        if count:
            out[pr] = count
    return out

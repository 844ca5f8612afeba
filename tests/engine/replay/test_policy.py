"""The agents' state machine on a small world: a change is denied while another live agent has
already applied a change to the same path (the radar's answer, reduced to its essence)."""

from __future__ import annotations

from proximity.engine.replay.policy import Action, Applied, Denied, Outcome, ReplayScheduler
from proximity.engine.replay.schedule import (
    CommitInfo,
    FileChange,
    MainlineStep,
    PullRequestHistory,
    build_schedule,
)


class World:
    """``parks_after``: a holder whose last application is that old is parked and denies
    nothing; a denial says to ask again when the earliest holder it names would park."""

    def __init__(self, *, deny: bool = True, parks_after: int | None = None) -> None:
        self.deny = deny
        self.parks_after = parks_after
        self.last: dict[int, int] = {}
        self.live: dict[int, set[str]] = {}
        self.log: list[tuple[str, int, int | None, str]] = []
        self.gave_up: list[tuple[int, tuple[int, ...]]] = []

    def __call__(self, action: Action) -> Outcome:
        path = action.change.path if action.change else ""
        self.log.append((action.kind, action.at, action.pr, path))
        pr = action.pr
        if action.kind == "start" and pr is not None:
            self.live[pr] = set()
        elif action.kind == "merge" and pr is not None:
            del self.live[pr]
        elif action.kind in {"apply", "force", "giveup", "reask"} and pr is not None:
            if action.kind == "giveup":
                self.gave_up.append((pr, action.others))
            after = self.parks_after
            holders = frozenset(
                o
                for o, paths in self.live.items()
                if o != pr and path in paths and (after is None or action.at < self.last[o] + after)
            )
            if self.deny and action.kind in {"apply", "reask"} and holders:
                again = None if after is None else min(self.last[o] + after for o in holders)
                return Denied(holders, again)
            self.live[pr].add(path)
            self.last[pr] = action.at
            return Applied()
        return None


def _pr(number: int, merged: int, edits: list[tuple[int, str]]) -> PullRequestHistory:
    commits = tuple(
        CommitInfo(f"c{number}-{k}", "p", at, at,
                   (FileChange(path, "M", "1" * 40, "2" * 40, "100644", "100644", 1),))
        for k, (at, path) in enumerate(edits)
    )  # fmt: skip
    return PullRequestHistory(number, f"m{number}", merged, "p", "tip", commits)


def _run(
    prs: list[PullRequestHistory],
    *,
    deny: bool = True,
    max_wait_s: int | None = None,
    parks_after: int | None = None,
) -> tuple[World, ReplayScheduler]:
    steps = [
        MainlineStep(p.merge, "p", p.merged_at, p.number)
        for p in sorted(prs, key=lambda p: p.merged_at)
    ]
    world = World(deny=deny, parks_after=parks_after)
    events = build_schedule(prs, steps, clock_start=0)
    scheduler = ReplayScheduler(events, world, max_wait_s=max_wait_s)
    scheduler.run()
    return world, scheduler


def test_a_denied_change_waits_with_its_file_while_other_files_go_on() -> None:
    a = _pr(1, 50, [(10, "f")])
    b = _pr(2, 90, [(20, "f"), (30, "g"), (40, "f")])
    world, _ = _run([a, b])
    assert [x for x in world.log if x[2] == 2] == [
        ("start", 20, 2, ""),
        ("apply", 20, 2, "f"),  # denied: #1 holds f
        ("apply", 30, 2, "g"),  # another file proceeds
        ("resync", 50, 2, ""),  # #1 merged: merge the mainline in, then re-apply in order
        ("apply", 50, 2, "f"),
        ("apply", 50, 2, "f"),
        ("merge", 90, 2, ""),
    ]


def test_a_merge_that_falls_due_while_changes_wait_is_postponed_until_they_are_applied() -> None:
    a = _pr(1, 80, [(10, "f")])
    b = _pr(2, 60, [(20, "f")])
    world, _ = _run([a, b])
    assert world.log[-4:] == [
        ("merge", 80, 1, ""),
        ("resync", 80, 2, ""),
        ("apply", 80, 2, "f"),
        ("merge", 80, 2, ""),
    ]


def test_agents_waiting_on_each_other_past_their_merges_break_the_cycle_by_forcing() -> None:
    a = _pr(1, 100, [(10, "f"), (30, "g")])
    b = _pr(2, 110, [(20, "g"), (40, "f")])
    world, scheduler = _run([a, b])
    assert scheduler.forced == 1
    assert world.log[-5:] == [
        ("force", 110, 1, "g"),  # #1 was due first: it applies what waited and merges
        ("merge", 110, 1, ""),
        ("resync", 110, 2, ""),
        ("apply", 110, 2, "f"),
        ("merge", 110, 2, ""),
    ]


def test_without_denials_the_actions_follow_history_exactly() -> None:
    a = _pr(1, 100, [(10, "f"), (30, "g")])
    b = _pr(2, 110, [(20, "g"), (40, "f")])
    world, scheduler = _run([a, b], deny=False)
    assert [(k, t, p) for k, t, p, _ in world.log] == [
        ("start", 10, 1), ("apply", 10, 1), ("start", 20, 2), ("apply", 20, 2),
        ("apply", 30, 1), ("apply", 40, 2), ("merge", 100, 1), ("merge", 110, 2),
    ]  # fmt: skip
    assert scheduler.forced == 0


def test_with_a_cap_a_wait_gives_up_at_the_cap_acknowledging_whom_it_waited_on() -> None:
    a = _pr(1, 1000, [(10, "f")])
    b = _pr(2, 2000, [(20, "f"), (40, "f"), (900, "g")])
    world, scheduler = _run([a, b], max_wait_s=100)
    assert [x for x in world.log if x[2] == 2] == [
        ("start", 20, 2, ""),
        ("apply", 20, 2, "f"),  # denied: #1 holds f
        ("giveup", 120, 2, "f"),  # waited 100 s: acknowledges #1 and applies
        ("apply", 120, 2, "f"),  # the change queued behind it follows (#1 still holds f)
        ("giveup", 220, 2, "f"),  # which is denied again and gives up in turn
        ("apply", 900, 2, "g"),
        ("merge", 2000, 2, ""),
    ]
    assert world.gave_up == [(2, (1,)), (2, (1,))]
    assert scheduler.gave_up == 2
    assert scheduler.forced == 0


def test_a_cap_longer_than_the_wait_changes_nothing() -> None:
    a = _pr(1, 50, [(10, "f")])
    b = _pr(2, 90, [(20, "f"), (30, "g"), (40, "f")])
    assert _run([a, b], max_wait_s=10_000)[0].log == _run([a, b])[0].log


def test_a_denial_that_gives_a_time_is_asked_again_then() -> None:
    """Issue 28 point 3: the denial says when the holder, idle, yields; the agent asks again
    at that moment, not only at the holder's merge, and goes on once it is allowed."""
    a = _pr(1, 1000, [(10, "f")])
    b = _pr(2, 2000, [(20, "f"), (900, "g")])
    world, scheduler = _run([a, b], parks_after=100)
    assert [x for x in world.log if x[2] == 2] == [
        ("start", 20, 2, ""),
        ("apply", 20, 2, "f"),  # denied: #1 holds f, and parks at 110
        ("reask", 110, 2, "f"),  # #1 parked: allowed
        ("apply", 900, 2, "g"),
        ("merge", 2000, 2, ""),
    ]
    assert scheduler.reasked == 1


def test_a_re_ask_denied_again_waits_on_and_the_cap_counts_from_the_first_denial() -> None:
    """#1 is at work again by the time given: the re-ask is denied with a later time, and the
    cap still runs from the first denial."""
    a = _pr(1, 1000, [(10, "f"), (60, "f"), (110, "f")])
    b = _pr(2, 2000, [(20, "f"), (900, "g")])
    world, scheduler = _run([a, b], parks_after=100, max_wait_s=120)
    assert [x for x in world.log if x[2] == 2] == [
        ("start", 20, 2, ""),
        ("apply", 20, 2, "f"),  # denied: ask again at 110
        ("reask", 110, 2, "f"),  # #1 changed f at 60: denied again, ask at 160
        ("giveup", 140, 2, "f"),  # the cap: 120 s after the first denial, not the re-ask
        ("apply", 900, 2, "g"),
        ("merge", 2000, 2, ""),
    ]
    assert (scheduler.reasked, scheduler.gave_up) == (1, 1)

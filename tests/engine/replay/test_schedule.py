"""The replay's timeline: which stamp dates a commit, ties, clamps, monotone mainline."""

from __future__ import annotations

from dataclasses import replace

import pytest

from proximity.engine.replay.schedule import (
    BranchPull,
    CommitInfo,
    FileChange,
    MainlineStep,
    PullRequestHistory,
    build_schedule,
)


def _file(path: str) -> FileChange:
    return FileChange(path, "M", "1" * 40, "2" * 40, "100644", "100644", 1)


def _pr(
    number: int, merge_at: int, commits: list[tuple[int, int, list[str]]]
) -> PullRequestHistory:
    infos = tuple(
        CommitInfo(f"c{number}{k}", "p", author, committer, tuple(_file(p) for p in paths))
        for k, (author, committer, paths) in enumerate(commits)
    )
    return PullRequestHistory(number, f"m{number}", merge_at, "p", "tip", infos)


def test_committer_order_dates_changes_by_committer_time_and_author_order_by_author() -> None:
    pr = _pr(1, 500, [(10, 300, ["a"]), (20, 310, ["b"])])
    steps = [MainlineStep("m1", "s", 500, 1)]
    by_committer = build_schedule([pr], steps, clock_start=0)
    by_author = build_schedule([pr], steps, order="author", clock_start=0)
    assert [(e.kind, e.at) for e in by_committer] == [
        ("start", 300), ("change", 300), ("change", 310), ("merge", 500),
    ]  # fmt: skip
    assert [(e.kind, e.at) for e in by_author][:3] == [
        ("start", 10),
        ("change", 10),
        ("change", 20),
    ]


def test_times_are_monotone_along_a_branch_and_clamped_to_the_clock_and_the_merge() -> None:
    # the second commit claims an earlier time (a rebase reordered stamps); the third is after
    # the merge (a clock skew); the first is before the replay's start
    pr = _pr(1, 500, [(0, 50, ["a"]), (0, 40, ["b"]), (0, 900, ["c"])])
    events = build_schedule([pr], [MainlineStep("m1", "s", 500, 1)], clock_start=100)
    assert [(e.kind, e.at) for e in events if e.kind == "change"] == [
        ("change", 100), ("change", 100), ("change", 500),
    ]  # fmt: skip


def test_mainline_first_then_starts_then_changes_at_one_second() -> None:
    a = _pr(1, 100, [(0, 100, ["x"])])
    b = _pr(2, 300, [(0, 100, ["y"])])
    steps = [
        MainlineStep("m1", "s", 100, 1),
        MainlineStep("push", "m1", 90),
        MainlineStep("m2", "push", 300, 2),
    ]
    events = build_schedule([a, b], steps, clock_start=0)
    assert [(e.kind, e.pr, e.at) for e in events] == [
        ("merge", 1, 100), ("push", None, 100), ("start", 1, 100), ("start", 2, 100),
        ("change", 1, 100), ("change", 2, 100), ("merge", 2, 300),
    ]  # fmt: skip


def test_a_branch_s_merges_of_the_mainline_keep_their_place_in_its_chain() -> None:
    # two commits at one second with a pull of the mainline between them; a pull before the
    # first commit starts the agent; a pull stamped before the commit it follows (a skewed
    # clock) still comes after it
    pr = replace(
        _pr(1, 500, [(0, 200, ["a", "b"]), (0, 200, ["c"]), (0, 300, ["d"])]),
        pulls=(
            BranchPull(0, "m0", 0, 150),
            BranchPull(1, "m1", 0, 200),
            BranchPull(2, "m2", 0, 250),
            BranchPull(3, "m3", 0, 290),
        ),
    )
    events = build_schedule([pr], [MainlineStep("m1", "s", 500, 1)], clock_start=0)
    chain = [
        (e.kind, e.at, e.change.path if e.change else e.pull.mainline if e.pull else "")
        for e in events
    ]
    assert chain == [
        ("start", 150, ""), ("pull", 150, "m0"), ("change", 200, "a"), ("change", 200, "b"),
        ("pull", 200, "m1"), ("change", 200, "c"), ("pull", 250, "m2"), ("change", 300, "d"),
        ("pull", 300, "m3"), ("merge", 500, ""),
    ]  # fmt: skip
    skipped = build_schedule([pr], [MainlineStep("m1", "s", 500, 1)], clock_start=0, pulls=False)
    assert [e.kind for e in skipped] == ["start", "change", "change", "change", "change", "merge"]


def test_a_pull_request_without_its_merge_step_is_refused() -> None:
    with pytest.raises(ValueError, match="#7 has no merge step"):
        build_schedule([_pr(7, 10, [])], [], clock_start=0)
    with pytest.raises(ValueError, match="order"):
        build_schedule([], [], order="commit", clock_start=0)


def test_a_closed_pull_request_closes_at_the_window_s_end_or_after_its_last_commit() -> None:
    """Its close comes after its own edits at one second, never before them."""
    closed = replace(_pr(2, 0, [(0, 200, ["a"]), (0, 400, ["b"])]), merge="", closed=True)
    steps = [MainlineStep("m1", "s", 400, None), MainlineStep("m3", "s", 900, 3)]
    merged = _pr(3, 900, [(0, 100, ["c"])])
    end = build_schedule([merged, closed], steps, clock_start=0)
    last = build_schedule([merged, closed], steps, clock_start=0, closing="last-commit")
    assert [(e.kind, e.at) for e in end if e.pr == 2] == [
        ("start", 200), ("change", 200), ("change", 400), ("close", 900),
    ]  # fmt: skip
    assert [(e.kind, e.at) for e in last if e.pr == 2] == [
        ("start", 200), ("change", 200), ("change", 400), ("close", 400),
    ]  # fmt: skip
    with pytest.raises(ValueError, match="closing"):
        build_schedule([closed], steps, clock_start=0, closing="never")

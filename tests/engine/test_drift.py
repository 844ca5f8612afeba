"""drift_hits on literal hunks: git's rule (shared or abutting lines), whole files, insertions."""

from __future__ import annotations

from proximity.engine.drift import DriftHit, MainlineChange, drift_hits


def _main(*hunks: tuple[int, int], path: str = "a.py") -> dict[str, MainlineChange]:
    return {path: MainlineChange(path, "M", tuple(hunks))}


def test_shared_and_abutting_lines_meet_but_a_line_between_keeps_them_apart() -> None:
    main = _main((10, 2))  # lines 10-11
    assert drift_hits({"a.py": [(11, 1)]}, main) == [DriftHit("a.py", "M", ((10, 2),))]
    assert drift_hits({"a.py": [(12, 1)]}, main)  # abuts from below
    assert drift_hits({"a.py": [(9, 1)]}, main)  # abuts from above
    assert drift_hits({"a.py": [(13, 1)]}, main) == []


def test_insertions_meet_at_the_same_point_and_beside_a_changed_line_only() -> None:
    main = _main((20, 0))  # an insertion after line 20
    assert drift_hits({"a.py": [(20, 0)]}, main)  # the same point
    assert drift_hits({"a.py": [(21, 1)]}, main)  # the line right after it
    assert drift_hits({"a.py": [(21, 0)]}, main) == []  # insertions with a line between


def test_only_the_mainline_hunks_that_meet_are_named() -> None:
    main = _main((5, 1), (40, 3), (90, 1))
    hits = drift_hits({"a.py": [(41, 1), (200, 2)]}, main)
    assert hits == [DriftHit("a.py", "M", ((40, 3),))]


def test_whole_files_meet_any_change_of_the_file_and_other_paths_never() -> None:
    main = {
        "a.py": MainlineChange("a.py", "M", ((3, 1),)),
        "gone.py": MainlineChange("gone.py", "D", None),
    }
    assert drift_hits({"a.py": None}, main) == [DriftHit("a.py", "M", ((3, 1),))]
    assert drift_hits({"gone.py": [(1, 1)]}, main) == [DriftHit("gone.py", "D", None)]
    assert drift_hits({"b.py": None, "c.py": [(3, 1)]}, main) == []


def test_deleting_a_file_the_mainline_deleted_too_is_no_conflict() -> None:
    main = {"gone.py": MainlineChange("gone.py", "D", None)}
    assert drift_hits({"gone.py": None}, main, deleting={"gone.py"}) == []
    edited = {"a.py": MainlineChange("a.py", "M", ((3, 1),))}
    assert drift_hits({"a.py": None}, edited, deleting={"a.py"})  # modify/delete conflicts

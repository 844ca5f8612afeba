"""Which tests a merge check runs, and which failures are the merge's own."""

from __future__ import annotations

from proximity.engine.mergecheck.testconflicts import (
    TestOutcome,
    is_test_file,
    select_tests,
    test_conflicts,
)

TREE = {
    "app/__init__.py": "",
    "app/a.py": "X = 1\n",
    "app/b.py": "from app import a\nY = a.X\n",
    "app/c.py": "Z = 3\n",
    "tests/conftest.py": "import app.c\n",
    "tests/test_b.py": "from app.b import Y\n",
    "tests/test_a.py": "from app.a import X\n",
    "tests/unit/test_c.py": "import app.c\n",
    "lib_test.py": "import app.b\n",
    "tests/helpers.py": "import app.a\nimport app.c\n",
}


def test_pytest_default_names_are_tests() -> None:
    assert [p for p in sorted(TREE) if is_test_file(p)] == [
        "lib_test.py",
        "tests/test_a.py",
        "tests/test_b.py",
        "tests/unit/test_c.py",
    ]


def test_a_test_is_run_only_when_it_reaches_both_sides_changes() -> None:
    # a reaches test_a, test_b (through b) and lib_test; c reaches every test under tests/
    # through the conftest pytest loads for them
    picked = select_tests(TREE, ["app/a.py"], ["app/c.py"])
    assert picked.files == ("tests/test_a.py", "tests/test_b.py")
    assert picked.held_back == 0
    # lib_test.py sits outside tests/: no conftest brings c in
    assert select_tests(TREE, ["app/b.py"], ["app/c.py"]).files == ("tests/test_b.py",)


def test_a_side_with_no_python_change_selects_nothing() -> None:
    assert select_tests(TREE, ["app/a.py"], ["README.md"]).files == ()


def test_the_limit_keeps_the_tests_nearest_both_changes() -> None:
    picked = select_tests(TREE, ["app/a.py"], ["app/c.py"], limit=1)
    assert picked.files == ("tests/test_a.py",)  # one hop to a; test_b needs two
    assert picked.held_back == 1


def test_a_change_to_the_test_itself_counts_for_its_side() -> None:
    assert select_tests(TREE, ["lib_test.py"], ["app/a.py"]).files == ("lib_test.py",)


def _o(outcome: str, path: str = "t.py", message: str = "") -> TestOutcome:
    return TestOutcome(outcome, path, message)


def test_only_failures_the_sides_do_not_have_are_conflicts() -> None:
    a = {"t.py::x": _o("passed"), "t.py::y": _o("failed"), "t.py::z": _o("passed")}
    b = {"t.py::x": _o("passed"), "t.py::y": _o("failed"), "t.py::z": _o("failed")}
    merged = {
        "t.py::x": _o("failed", message="assert 2 == 200"),
        "t.py::y": _o("failed"),  # fails alone on both sides: theirs, not the merge's
        "t.py::z": _o("failed"),  # fails alone on b
        "t.py::w": _o("error"),  # on no side at all: nothing to compare with
    }
    found = test_conflicts(a, b, merged)
    assert [(p.kind, p.name) for p in found] == [("test-conflict", "t.py::x")]
    assert (
        found[0].message == "x passes on both sides alone and failed on the merge: assert 2 == 200"
    )


def test_a_test_one_side_added_counts_when_it_passes_there() -> None:
    merged = {"new.py::t": _o("error", "new.py", "ImportError")}
    found = test_conflicts({}, {"new.py::t": _o("passed", "new.py")}, merged)
    assert found[0].message.startswith("t passes on its side and error on the merge")
    assert test_conflicts({}, {"new.py::t": _o("skipped", "new.py")}, merged) == []


def test_a_passing_or_skipped_merge_is_never_a_conflict() -> None:
    a = b = {"t.py::x": _o("passed")}
    assert test_conflicts(a, b, {"t.py::x": _o("passed")}) == []
    assert test_conflicts(a, b, {"t.py::x": _o("skipped")}) == []

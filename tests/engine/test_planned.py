"""Planned current-file lines map to base-side hunks through the agent's own diff."""

from __future__ import annotations

import difflib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proximity.engine.diff import Hunk
from proximity.engine.planned import base_line_span, planned_base_hunks

# The agent inserted 3 lines after base line 10 (new 11-13) and replaced base line 20 by two
# lines (new 23-24).
HUNKS = [Hunk(10, 0, 11, 3), Hunk(20, 1, 23, 2)]


@pytest.mark.parametrize(
    ("ranges", "expected"),
    [
        ([(5, 5)], [(5, 1)]),  # above every hunk: unshifted
        ([(12, 12)], [(10, 0)]),  # inside an insertion: the insertion point
        ([(14, 14)], [(11, 1)]),  # below the insertion: shifted up by 3
        ([(23, 24)], [(20, 1)]),  # inside a replacement: its base side
        ([(30, 30)], [(26, 1)]),  # below both: 3 inserted, 1 net added
        ([(11, 14)], [(11, 1)]),  # from inside the insertion to the line after it
        ([(2, 3), (30, 31)], [(2, 2), (26, 2)]),
    ],
)
def test_planned_lines_land_on_the_base_side(ranges, expected) -> None:
    assert planned_base_hunks(HUNKS, ranges) == expected


def test_a_worktree_without_changes_maps_lines_to_themselves() -> None:
    assert planned_base_hunks([], [(7, 9)]) == [(7, 3)]


def test_a_pure_deletion_shifts_the_lines_below_it() -> None:
    # base lines 4-6 deleted: new line 4 is base line 7
    assert base_line_span([Hunk(4, 3, 3, 0)], 4) == (7, 1)
    assert base_line_span([Hunk(4, 3, 3, 0)], 3) == (3, 1)


def _hunks(base: list[str], new: list[str]) -> list[Hunk]:
    """git-style -U0 hunks from difflib's opcodes (insertion after base line ``i``)."""
    out = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=base, b=new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        base_start = i1 + 1 if i2 > i1 else i1
        new_start = j1 + 1 if j2 > j1 else j1
        out.append(Hunk(base_start, i2 - i1, new_start, j2 - j1))
    return out


@settings(max_examples=200, deadline=None)
@given(
    base=st.lists(st.integers(0, 5), min_size=1, max_size=25),
    edits=st.lists(st.tuples(st.integers(0, 30), st.integers(0, 3), st.integers(0, 3)), max_size=4),
)
def test_an_unchanged_line_maps_to_the_same_line_of_the_base(base, edits) -> None:
    old = [f"b{k}" for k in range(len(base))]
    new = list(old)
    for at, drop, add in edits:
        at = min(at, len(new))
        new[at : at + drop] = [f"n{at}-{j}" for j in range(add)]
    hunks = _hunks(old, new)
    for line, text in enumerate(new, start=1):
        if text.startswith("b"):
            start, count = base_line_span(hunks, line)
            assert count == 1
            assert old[start - 1] == text

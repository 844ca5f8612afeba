"""Renumbering another agent's base-side hunks onto the asker's base (golden values)."""

from __future__ import annotations

import pytest

from proximity.engine.diff import Hunk
from proximity.lab.replay_bases import map_base_hunks

# asker's base -> other's base: the other's base has 10 more lines on top
TOP10 = (Hunk(1, 10, 0, 0),)
# the other's base rewrote asker's lines 5-6 into its lines 5-7
REWRITE = (Hunk(5, 2, 5, 3),)


@pytest.mark.parametrize(
    ("between", "hunks", "expected"),
    [
        ((), ((20, 1),), ((20, 1),)),
        (TOP10, ((20, 1),), ((30, 1),)),
        (TOP10, ((20, 3), (25, 0)), ((30, 3), (35, 0))),
        (TOP10, ((0, 0),), ((0, 0),)),
        (REWRITE, ((6, 1),), ((5, 2),)),  # inside the rewritten region: the whole region
        (REWRITE, ((10, 2),), ((9, 2),)),  # below it: shifted by 2 - 3
        (REWRITE, ((2, 1), (6, 0)), ((2, 1), (5, 2))),
    ],
)
def test_hunks_are_renumbered_through_the_diff_between_bases(
    between: tuple[Hunk, ...],
    hunks: tuple[tuple[int, int], ...],
    expected: tuple[tuple[int, int], ...],
) -> None:
    assert map_base_hunks(between, hunks) == expected

"""From -U0 hunks to the unique ``old_string`` an agent sends, and back to the same file."""

from __future__ import annotations

import pytest

from proximity.engine.replay.hunks import LineHunk, apply_hunk, parse_hunks, plan_edit, split_lines

DIFF = """diff --git a/x b/x
--- a/x
+++ b/x
@@ -2 +2 @@
-b
+B
@@ -4,0 +5,2 @@
+new1
+new2
@@ -6,2 +7,0 @@
-f
-g
@@ -9 +8 @@
-i
\\ No newline at end of file
+I
\\ No newline at end of file
"""


def test_parse_hunks_keeps_new_lines_and_the_missing_final_newline() -> None:
    assert parse_hunks(DIFF) == [
        LineHunk(2, 1, ("B\n",)),
        LineHunk(4, 0, ("new1\n", "new2\n")),
        LineHunk(6, 2, ()),
        LineHunk(9, 1, ("I",)),
    ]


def test_hunks_applied_bottom_up_give_the_new_file() -> None:
    old = split_lines("a\nb\nc\nd\ne\nf\ng\nh\ni")
    lines = old
    for hunk in sorted(parse_hunks(DIFF), key=lambda h: -h.start):
        planned = plan_edit(lines, hunk)
        assert planned is not None
        text = "".join(lines)
        assert text.count(planned.old) == 1
        replaced = text.replace(planned.old, planned.new, 1)
        lines = apply_hunk(lines, hunk)
        assert replaced == "".join(lines)
    assert "".join(lines) == "a\nB\nc\nd\nnew1\nnew2\ne\nh\nI"


@pytest.mark.parametrize(
    ("text", "hunk", "old", "new"),
    [
        # a repeated line is widened until it occurs once (above first, then below)
        ("x\ndup\ny\ndup\nz\n", LineHunk(4, 1, ("D\n",)), "y\ndup\n", "y\nD\n"),
        ("dup\nq\ndup\nw\n", LineHunk(1, 1, ("D\n",)), "dup\nq\n", "D\nq\n"),
        # an insertion is anchored on the line it follows; at the top, on the first line
        ("a\nb\n", LineHunk(1, 0, ("n\n",)), "a\n", "a\nn\n"),
        ("a\nb\n", LineHunk(0, 0, ("n\n",)), "a\n", "n\na\n"),
        # a deletion sends an empty replacement for a unique block
        ("a\nb\nc\n", LineHunk(2, 1, ()), "b\n", ""),
    ],
)
def test_plan_edit_sends_a_unique_old_string(text: str, hunk: LineHunk, old: str, new: str) -> None:
    planned = plan_edit(split_lines(text), hunk)
    assert planned is not None
    assert (planned.old, planned.new) == (old, new)
    assert text.replace(planned.old, planned.new, 1) == "".join(apply_hunk(split_lines(text), hunk))


def test_an_empty_file_has_no_anchor_so_the_agent_writes_it_whole() -> None:
    assert plan_edit([], LineHunk(0, 0, ("a\n",))) is None

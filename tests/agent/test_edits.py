"""What an edit is about to change, computed before it happens (no harness involved)."""

from __future__ import annotations

from pathlib import Path

import pytest

from proximity.agent.edits import (
    lines_of_replacement,
    parse_apply_patch,
    patch_edit,
    planned_replacement,
    shell_writes,
    unchanged_ends,
)

TEXT = "".join(f"line {i}\n" for i in range(1, 11))


def test_a_replacement_is_located_by_its_lines() -> None:
    assert lines_of_replacement(TEXT, "line 3\nline 4\n") == [(3, 4)]
    assert lines_of_replacement(TEXT, "line 3\nline 4") == [(3, 4)]
    assert lines_of_replacement(TEXT, "ne 7") == [(7, 7)]


def test_replace_all_finds_every_occurrence() -> None:
    assert lines_of_replacement("a\nb\na\nb\n", "a\n", replace_all=True) == [(1, 1), (3, 3)]
    assert lines_of_replacement("a\nb\na\nb\n", "a\n") == [(1, 1)]


@pytest.mark.parametrize(
    ("old", "new", "lines"),
    [
        ("line 3\nline 4\nline 5\n", "line 3\nfour\nline 5\n", ((4, 4),)),  # context trimmed
        ("line 3\n", "line 3\nnew\n", ((4, 3),)),  # an insertion after line 3
        ("line 1\n", "header\nline 1\n", ((1, 0),)),  # an insertion at the top
        ("line 3\nline 4", "line 3\nline 4 and more", ((4, 4),)),  # a line changed at its end
        ("ne 3\n", "ne 3\nnew\n", ((4, 3),)),  # starts mid-line: line 3 itself is the same
        ("ne 3", "ne 3 changed", ((3, 3),)),
        ("line 3\nline 4\n", "line 3\nline 4\n", ((3, 4),)),  # a no-op keeps its lines
        ("line 3\nline 4\nline 5\n", "line 3\n", ((4, 5),)),  # a deletion of 4-5
    ],
)
def test_a_replacement_plans_only_the_lines_its_new_text_changes(
    tmp_path: Path, old: str, new: str, lines: tuple[tuple[int, int], ...]
) -> None:
    path = tmp_path / "f.py"
    path.write_text(TEXT)
    assert planned_replacement(str(path), [(old, False, new)]).lines == lines


def test_unchanged_ends_never_counts_a_line_twice() -> None:
    assert unchanged_ends("a\na\n", "a\na\na\n", starts_line=True) == (2, 0)
    assert unchanged_ends("a\nb\n", "a\nc\nb\n", starts_line=True) == (1, 1)
    assert unchanged_ends("x a\n", "y a\n") == (0, 0)


def test_text_that_cannot_be_located_is_the_whole_file(tmp_path: Path) -> None:
    path = tmp_path / "f.py"
    path.write_text(TEXT)
    assert planned_replacement(str(path), [("not there", False)]).lines is None
    assert planned_replacement(str(path), [("", False)]).lines is None
    both = planned_replacement(str(path), [("line 2\n", False), ("line 9\n", False)])
    assert both.lines == ((2, 2), (9, 9))
    assert planned_replacement(str(tmp_path / "new.py"), [("x", False)]).kind == "create"


PATCH = """*** Begin Patch
*** Update File: app/core.py
@@ def total():
-    return round(x, 2)
+    return round(x, 4)
*** Add File: app/new.py
+print(1)
*** Delete File: app/old.py
*** Update File: app/a.py
*** Move to: app/b.py
@@
 keep
-drop
+add
*** End Patch
"""


def test_apply_patch_envelope_names_every_file_and_action() -> None:
    files = parse_apply_patch(PATCH)
    assert [(f.action, f.path, f.move_to) for f in files] == [
        ("update", "app/core.py", None),
        ("add", "app/new.py", None),
        ("delete", "app/old.py", None),
        ("update", "app/a.py", "app/b.py"),
    ]
    assert files[0].old_chunks == (("def total():", ("    return round(x, 2)",)),)


def test_apply_patch_update_lands_on_the_lines_it_replaces(tmp_path: Path) -> None:
    (tmp_path / "app").mkdir()
    (tmp_path / "app/core.py").write_text("x = 1\n\ndef total():\n    return round(x, 2)\n")
    edit = patch_edit(str(tmp_path), parse_apply_patch(PATCH)[0])
    assert [(e.path, e.lines) for e in edit] == [(str(tmp_path / "app/core.py"), ((4, 4),))]


@pytest.mark.parametrize(
    ("command", "written", "unread"),
    [
        ("echo hi > out.txt", [("out.txt", "edit")], []),
        ("cat a >> log.txt 2>/dev/null", [("log.txt", "edit")], []),
        ("sed -i 's/a/b/' x.py y.py", [("x.py", "edit"), ("y.py", "edit")], []),
        ("sed -i.bak -e 's/a/b/' x.py", [("x.py", "edit")], []),
        ("grep foo x.py | tee -a notes.md", [("notes.md", "edit")], []),
        ("mv a.py b.py", [("a.py", "move"), ("b.py", "create")], []),
        ("rm -f a.py b.py", [("a.py", "delete"), ("b.py", "delete")], []),
        ("git mv a.py pkg/a.py", [("a.py", "move"), ("pkg/a.py", "create")], []),
        ("git checkout -- core.py", [("core.py", "edit")], []),
        ("git status && ls -la", [], []),
        ("pytest -q; echo done", [], []),
        ("perl -pi -e 's/a/b/' x.py", [], ["perl -pi -e s/a/b/ x.py"]),
        ("echo x > $OUT", [], ["$OUT"]),
    ],
)
def test_shell_commands_that_write_files(command, written, unread) -> None:
    edits, not_read = shell_writes(command, "/repo")
    assert [(e.path, e.kind) for e in edits] == [(f"/repo/{p}", k) for p, k in written]
    assert all(e.lines is None for e in edits)
    assert not_read == unread


def test_an_unbalanced_quote_is_reported_not_raised() -> None:
    edits, unread = shell_writes("echo 'oops > x", "/repo")
    assert edits == []
    assert unread

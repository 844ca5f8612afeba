from __future__ import annotations

import pytest

from proximity.engine.diff import (
    DiffParseError,
    FileDiff,
    Hunk,
    parse_raw_patch,
    unquote_c_path,
)

PATCH = """\
:100644 100644 87ae6b6 0000000 M\tb.bin
:100644 100644 9405325 0000000 M\tf.txt
:120000 100644 7f66e4f 0000000 T\tlink
:100644 100644 587be6b 587be6b R100\t"sp ace \\303\\251.txt"\t"new \\303\\251.txt"
:100644 000000 1111111 0000000 D\tgone file.txt

diff --git a/b.bin b/b.bin
index 87ae6b6..22f6b3b 100644
Binary files a/b.bin and b/b.bin differ
diff --git a/f.txt b/f.txt
index 9405325..799363e 100644
--- a/f.txt
+++ b/f.txt
@@ -2 +2 @@ a
-b
+B
@@ -4 +3,0 @@ c
-d
@@ -5,0 +5,2 @@ e
+f
+@@ -9 +9 @@ this content line is not a header
diff --git a/link b/link
deleted file mode 120000
--- a/link
+++ /dev/null
@@ -1 +0,0 @@
-f.txt
diff --git a/link b/link
new file mode 100644
--- /dev/null
+++ b/link
@@ -0,0 +1 @@
+hi
diff --git "a/sp ace \\303\\251.txt" "b/new \\303\\251.txt"
similarity index 100%
rename from "sp ace \\303\\251.txt"
rename to "new \\303\\251.txt"
diff --git a/gone file.txt b/gone file.txt
deleted file mode 100644
--- a/gone file.txt\t
+++ /dev/null
@@ -1,3 +0,0 @@
-x
-y
-z
"""


def test_parses_statuses_hunks_renames_and_binary() -> None:
    assert parse_raw_patch(PATCH) == (
        FileDiff("b.bin", "M", binary=True, worktree_dirty=True),
        FileDiff(
            "f.txt",
            "M",
            hunks=(Hunk(2, 1, 2, 1), Hunk(4, 1, 3, 0), Hunk(5, 0, 5, 2)),
            worktree_dirty=True,
        ),
        FileDiff("link", "T", hunks=(Hunk(1, 1, 0, 0), Hunk(0, 0, 1, 1)), worktree_dirty=True),
        FileDiff("new \u00e9.txt", "R", old_path="sp ace \u00e9.txt"),
        FileDiff("gone file.txt", "D", hunks=(Hunk(1, 3, 0, 0),), worktree_dirty=True),
    )


def test_content_line_looking_like_a_header_is_counted_as_content() -> None:
    # "+@@ -9 +9 @@" is an added line, so f.txt's last hunk adds two lines at 5..6
    (f_txt,) = [f for f in parse_raw_patch(PATCH) if f.path == "f.txt"]
    assert f_txt.hunks[-1] == Hunk(5, 0, 5, 2)


def test_lines_are_new_side_and_base_hunks_are_git_headers() -> None:
    diff = FileDiff("f", "M", hunks=(Hunk(2, 1, 2, 1), Hunk(4, 1, 3, 0), Hunk(5, 0, 5, 2)))
    assert diff.lines == ((2, 2), (3, 3), (5, 6))
    assert diff.base_hunks == ((2, 1), (4, 1), (5, 0))


@pytest.mark.parametrize(
    ("quoted", "path"),
    [
        ("plain/path.txt", "plain/path.txt"),
        ('"na\\303\\257ve.txt"', "na\u00efve.txt"),
        ('"tab\\there"', "tab\there"),
        ('"quote\\"back\\\\slash"', 'quote"back\\slash'),
        ('"\\377bad"', "\udcffbad"),
    ],
)
def test_unquote_c_path(quoted: str, path: str) -> None:
    assert unquote_c_path(quoted) == path


def test_bad_raw_line_is_a_clear_error() -> None:
    with pytest.raises(DiffParseError, match="not a --raw line"):
        parse_raw_patch(":garbage\n")


def _one_file(body: str) -> FileDiff:
    head = ":100644 100644 1111111 2222222 M\tf.txt\n\ndiff --git a/f.txt b/f.txt\n"
    return parse_raw_patch(head + "--- a/f.txt\n+++ b/f.txt\n" + body)[0]


def test_a_hunk_s_id_names_its_text_so_two_branches_can_tell_one_change_made_twice() -> None:
    fix = "@@ -2 +2 @@\n-b\n+B\n@@ -7,0 +8 @@\n+new\n"
    mine, theirs = _one_file(fix), _one_file(fix)
    assert mine.hunk_ids is not None
    assert mine.hunk_ids == theirs.hunk_ids
    assert len(set(mine.hunk_ids)) == 2
    other = _one_file("@@ -2 +2 @@\n-b\n+C\n@@ -7,0 +8 @@\n+new\n")
    assert other.hunk_ids is not None
    assert other.hunk_ids[0] != mine.hunk_ids[0]
    assert other.hunk_ids[1] == mine.hunk_ids[1]
    # git's "no newline at end of file" mark is part of the text
    unterminated = _one_file("@@ -2 +2 @@\n-b\n+B\n\\ No newline at end of file\n")
    assert unterminated.hunk_ids is not None
    assert unterminated.hunk_ids[0] != mine.hunk_ids[0]
    # equality of parsed diffs is about lines, not ids (hunks built from numbers alone)
    assert mine.hunks[0] == Hunk(2, 1, 2, 1)


def test_a_binary_file_or_hunks_built_from_numbers_have_no_ids() -> None:
    assert FileDiff("f", "M", hunks=(Hunk(2, 1, 2, 1),)).hunk_ids is None
    binary = parse_raw_patch(PATCH)[0]
    assert binary.binary
    assert binary.hunk_ids is None

"""What one file's change did, in symbols (issue 14, item 2): from both sides' hunks."""

from __future__ import annotations

from proximity.engine.symbols import FileChanges, extract_python_symbols, file_changes
from tests.engine.symbols.helpers import hunks

BASE = """import json


def helper(x):
    total = x * 2
    return {"value": total}


def other(y):
    # a comment
    return y


class Store:
    def load(self, key):
        return self.data[key]

    def save(self, key, value):
        self.data[key] = value
"""


def _changes(
    new: str, old: str = BASE, *, path: str = "m.py", base_path: str | None = None
) -> FileChanges:
    base_hunks, lines = hunks(old, new)
    return file_changes(
        extract_python_symbols(old, detail=True),
        extract_python_symbols(new, detail=True),
        base_hunks=base_hunks,
        lines=lines,
        path=path,
        base_path=base_path,
    )


def _kinds(fc: FileChanges) -> dict[str, tuple[str, ...]]:
    return {c.qualname: c.changes for c in fc.definitions}


def test_a_comment_or_whitespace_edit_changes_no_symbol() -> None:
    assert _kinds(_changes(BASE.replace("# a comment", "# another comment"))) == {}
    assert _kinds(_changes(BASE.replace("return y", "return  y"))) == {}


def test_body_signature_and_return_shape_are_told_apart() -> None:
    fc = _changes(BASE.replace("total = x * 2", "total = x * 3"))
    assert _kinds(fc) == {"helper": ("body",)}
    fc = _changes(BASE.replace("def helper(x):", "def helper(x, scale=2):"))
    assert _kinds(fc) == {"helper": ("signature",)}
    fc = _changes(BASE.replace('return {"value": total}', "return total, x"))
    assert _kinds(fc) == {"helper": ("returns", "body")}


def test_a_method_change_belongs_to_the_method_not_its_class() -> None:
    fc = _changes(BASE.replace("return self.data[key]", "return self.data.get(key)"))
    assert _kinds(fc) == {"Store.load": ("body",)}
    assert fc.definitions[0].accesses == ("data",)
    assert fc.definitions[0].writes == ()
    fc = _changes(BASE.replace("self.data[key] = value", "self.data[key] = value or None"))
    assert fc.definitions[0].writes == ("data",)


def test_rename_is_detected_exactly_and_by_similarity() -> None:
    exact = _changes(BASE.replace("def helper(x):", "def double(x):"))
    (change,) = exact.definitions
    assert (change.qualname, change.changes, change.renamed_to) == (
        "helper",
        ("renamed",),
        "double",
    )
    assert change.similarity == 1.0
    similar = _changes(
        BASE.replace("def helper(x):", "def double(x):").replace(
            'return {"value": total}', 'return {"value": total + 0}'
        )
    )
    (change,) = similar.definitions
    assert change.changes[0] == "renamed"
    assert "body" in change.changes
    assert change.similarity is not None
    assert 0.8 <= change.similarity < 1.0


def test_renaming_a_class_renames_its_methods() -> None:
    fc = _changes(BASE.replace("class Store:", "class Cache:"))
    renamed = {c.qualname: c.renamed_to for c in fc.definitions}
    assert renamed == {"Store": "Cache", "Store.load": "Cache.load", "Store.save": "Cache.save"}


def test_removal_addition_and_a_removal_that_is_not_a_rename() -> None:
    removed = BASE.replace("\n\ndef other(y):\n    # a comment\n    return y\n", "\n")
    assert _kinds(_changes(removed)) == {"other": ("removed",)}
    added = BASE + "\n\ndef extra(z):\n    return json.dumps(z)\n"
    assert _kinds(_changes(added)) == {"extra": ("added",)}
    swapped = removed + "\n\ndef unrelated(q):\n    for k in range(q):\n        print(k)\n"
    assert _kinds(_changes(swapped)) == {"other": ("removed",), "unrelated": ("added",)}


def test_a_renamed_file_renames_every_definition_in_it() -> None:
    fc = _changes(BASE, path="new.py", base_path="m.py")
    assert all(c.changes == ("renamed",) for c in fc.definitions)
    assert {c.qualname for c in fc.definitions} == {
        "helper",
        "other",
        "Store",
        "Store.load",
        "Store.save",
    }


def test_references_on_changed_lines_are_touched_and_new_ones_added() -> None:
    new = BASE.replace("total = x * 2", "total = other(x) * 2").replace(
        "return y", "return json.dumps(y)"
    )
    fc = _changes(new)
    assert fc.head is not None
    assert fc.base is not None
    touched = {(fc.head.references[k].name, fc.head.references[k].line) for k in fc.touched}
    assert touched == {("other", 5), ("json.dumps", 11)}
    assert {fc.head.references[k].name for k in fc.added} == {"other", "json.dumps"}
    moved = BASE.replace("    total = x * 2\n", "    total = 2 * x\n")
    assert _changes(moved).added == ()


def test_a_deleted_file_removes_everything_and_a_new_one_adds_everything() -> None:
    gone = file_changes(
        extract_python_symbols(BASE, detail=True), None, base_hunks=[(1, 19)], lines=[], path="m.py"
    )
    assert {c.changes for c in gone.definitions} == {("removed",)}
    new = file_changes(
        None,
        extract_python_symbols(BASE, detail=True),
        base_hunks=[(0, 0)],
        lines=[(1, 19)],
        path="m.py",
    )
    assert {c.changes for c in new.definitions} == {("added",)}
    assert len(new.touched) == len(new.head.references)  # type: ignore[union-attr]

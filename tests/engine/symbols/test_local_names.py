"""Where a Python function reads and writes its local names: the data ``same_body`` compares."""

from __future__ import annotations

from proximity.engine.symbols.python import extract_python_symbols

SOURCE = """
COUNT = 0


class Shelf:
    def fill(self, rows, *extra, **options):
        global COUNT
        kept = []
        for row in rows:
            kept.append(row)
        kept[0] = options
        self.kept = kept
        COUNT = len(kept)
        try:
            first = kept[0]
        except IndexError as error:
            first = error
        found = [r for r in extra if r]
        return first, found
"""


def _names() -> set[tuple[int, str, bool]]:
    fill = next(
        d for d in extract_python_symbols(SOURCE, detail=True).definitions if d.name == "fill"
    )
    return set(fill.names)


def test_bindings_item_assignments_and_mutating_calls_are_writes() -> None:
    names = _names()
    writes = {(8, "kept"), (9, "row"), (10, "kept[]"), (11, "kept[]"), (16, "error"), (18, "r")}
    reads = {(9, "rows"), (10, "row"), (17, "error"), (18, "extra")}
    assert {(line, name, True) for line, name in writes} <= names
    assert {(line, name, False) for line, name in reads} <= names


def test_a_change_to_part_of_an_object_names_the_part_and_reads_nothing() -> None:
    """``kept.append(row)`` and ``kept[0] = options`` write the list's content, not the
    name: no read of ``kept`` on those lines, which ``kept = []`` on line 8 would meet."""
    names = _names()
    assert (10, "kept", False) not in names
    assert (11, "kept", False) not in names


FIELDS = """
def build(options):
    session = Session()
    session.verify = options.cert
    session.auth.prompting = options.no_input
    options.extra.append(1)
    del session.proxies[0]
    return session.verify
"""


def test_attribute_writes_name_the_first_attribute_from_the_local() -> None:
    [build] = extract_python_symbols(FIELDS, detail=True).definitions
    assert set(build.names) == {
        (3, "session", True),
        (4, "session.verify", True),
        (4, "options", False),
        (5, "session.auth", True),
        (5, "options", False),
        (6, "options.extra", True),
        (7, "session.proxies", True),
        (8, "session", False),
    }


def test_the_instance_and_module_state_are_not_locals() -> None:
    """``self.kept`` is the class's state (the attribute rule); ``COUNT`` is declared global
    (the state rule); builtins and module names are not bound here."""
    found = {name for _, name, _ in _names()}
    assert not found & {"self", "COUNT", "len", "IndexError"}


def test_a_plain_extraction_records_no_names() -> None:
    assert all(not d.names for d in extract_python_symbols(SOURCE).definitions)

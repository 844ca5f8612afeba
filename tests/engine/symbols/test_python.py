"""Python extraction with ast: definitions, signatures, return shapes, references, bindings."""

from __future__ import annotations

from pathlib import Path

import pytest

from proximity.engine.symbols import CallShape, Param, Reference, Signature, extract_python_symbols

SOURCE = '''"""doc: import fake.module, never an import"""
import json
from .util import helper as h, other
from pkg.mod import *
LIMIT = 10


class Model(Base):
    kind = "x"

    def __init__(self, value):
        self.value = value
        self.items = []

    def total(self, items, *, scale=1):
        # helper(1) in a comment is no call
        self.items.append(1)
        self.cache[items] = 2
        return h(items, k=1) + self.value + LIMIT

    @staticmethod
    def make(a, b=2, /, *rest, **kw):
        return (a, b)


def run(x):
    model = Model(x)
    obj.process(1, *x)
    if x:
        return {"a": 1, "b": 2}
    return None


if LIMIT:
    def conditional():
        from json import dumps as encode
        return encode({})
'''


def test_definitions_have_spans_kinds_and_signatures() -> None:
    found = {d.qualname: d for d in extract_python_symbols(SOURCE).definitions}
    assert sorted(found) == [
        "LIMIT",
        "Model",
        "Model.__init__",
        "Model.make",
        "Model.total",
        "conditional",
        "run",
    ]
    assert (found["Model"].kind, found["Model"].start, found["Model"].end) == ("class", 8, 23)
    assert (found["Model.make"].start, found["Model.make"].end) == (21, 23)  # the decorator
    assert found["Model.total"].signature == Signature(
        (Param("self"), Param("items"), Param("scale", "kwonly", True))
    )
    assert found["Model.total"].bound
    assert not found["Model.make"].bound
    assert found["Model.make"].signature is not None
    assert found["Model.make"].signature.text == "(a, b=…, *rest, **kw)"
    assert found["LIMIT"].kind == "constant"
    assert found["conditional"].kind == "function"


def test_detail_adds_return_shapes_and_name_free_bodies() -> None:
    found = {d.qualname: d for d in extract_python_symbols(SOURCE, detail=True).definitions}
    assert found["run"].returns == ("dict{a,b}", "none")
    assert found["Model.make"].returns == ("tuple/2",)
    assert found["Model.__init__"].returns == ("none",)
    assert "\0" not in found["run"].body  # its own name does not occur in the body
    renamed = extract_python_symbols(SOURCE.replace("def run(", "def go("), detail=True)
    assert {d.qualname: d for d in renamed.definitions}["go"].body == found["run"].body


def test_references_are_calls_uses_imports_and_self_attributes() -> None:
    refs = extract_python_symbols(SOURCE, detail=True).references
    assert Reference("h", "call", 19, "Model.total", CallShape(1, ("k",))) in refs
    assert Reference("LIMIT", "use", 19, "Model.total") in refs
    assert Reference("self.items", "write", 17, "Model.total") in refs  # append mutates
    assert Reference("self.cache", "write", 18, "Model.total") in refs  # item assignment
    assert Reference("self.value", "read", 19, "Model.total") in refs
    assert Reference("Model", "call", 27, "run", CallShape(1)) in refs
    assert Reference("?.process", "call", 28, "run", CallShape(1, (), True)) in refs
    assert Reference("encode", "call", 37, "conditional", CallShape(1)) in refs
    assert not any(r.line in (1, 16) for r in refs)  # the docstring and the comment


def test_bindings_and_star_imports() -> None:
    symbols = extract_python_symbols(SOURCE)
    bound = {b.local: (b.site.target, b.site.level, b.name) for b in symbols.bindings}
    assert bound["h"] == ("util", 1, "helper")
    assert bound["json"] == ("json", 0, None)
    assert bound["encode"] == ("json", 0, "dumps")
    assert [s.target for s in symbols.stars] == ["pkg.mod"]


def test_a_broken_file_yields_an_error_not_an_exception() -> None:
    symbols = extract_python_symbols("def broken(:\n")
    assert symbols.definitions == ()
    assert symbols.error
    assert "line 1" in symbols.error


ENGINE = Path(__file__).resolve().parents[3] / "proximity" / "engine"


@pytest.mark.parametrize("path", sorted(ENGINE.rglob("*.py"))[:60], ids=lambda p: p.name)
def test_skipping_statements_without_a_candidate_name_loses_no_reference(path: Path) -> None:
    """The fast pass prunes statements whose lines name nothing worth recording; it must find
    exactly what the detailed pass (which visits everything) finds."""
    source = path.read_bytes()
    fast = extract_python_symbols(source)
    full = extract_python_symbols(source, detail=True)
    assert set(fast.references) == {r for r in full.references if not _detail_only(r)}
    assert [d.qualname for d in fast.definitions] == [d.qualname for d in full.definitions]
    assert fast.fields == full.fields


def _detail_only(ref: Reference) -> bool:
    """What only the detailed pass records: methods of unknown objects, typed receivers and
    protocol calls (``via``), reads and writes of state outside ``self``."""
    state = ref.kind in ("read", "write") and not ref.name.startswith("self.")
    return ref.name.startswith("?.") or bool(ref.via) or state


@pytest.mark.parametrize(
    ("params", "call", "bound", "expected"),
    [
        ((Param("a"), Param("b", default=True)), CallShape(1), False, True),
        ((Param("a"), Param("b")), CallShape(1), False, False),
        ((Param("a"),), CallShape(2), False, False),
        ((Param("a"), Param("r", "varargs")), CallShape(5), False, True),
        ((Param("a"), Param("k", "kwonly")), CallShape(1, ("k",)), False, True),
        ((Param("a"), Param("k", "kwonly")), CallShape(2), False, False),
        ((Param("a", "posonly"),), CallShape(0, ("a",)), False, False),
        ((Param("a"),), CallShape(1, ("a",)), False, False),  # given twice
        ((Param("a"), Param("kw", "varkw")), CallShape(1, ("z",)), False, True),
        ((Param("self"), Param("a")), CallShape(1), True, True),
        ((Param("a"),), CallShape(0, (), True), False, None),
    ],
)
def test_signature_accepts_calls_as_python_binds_them(
    params: tuple[Param, ...], call: CallShape, bound: bool, expected: bool | None
) -> None:
    assert Signature(params).accepts(call, bound=bound) is expected

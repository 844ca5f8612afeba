"""JavaScript and TypeScript symbols with tree-sitter, linked across modules."""

from __future__ import annotations

import hashlib

from proximity.engine.imports import build_resolver
from proximity.engine.symbols import (
    CallShape,
    FileChanges,
    Reference,
    SymbolIndex,
    file_changes,
    symbol_data,
    symbol_scores,
)
from proximity.engine.symbols.channel import Strengths
from proximity.sources.symbols import extract_tree_sitter_symbols
from tests.engine.symbols.helpers import hunks

TS = b"""import { format as fmt, parse } from './text';
import * as geo from '../geo';
import Widget from './widget';
export { Button } from './button';
export * from './shared';
const legacy = require('./legacy');

export function area(w: number, h = 1, ...rest: number[]): number {
  return w * h;
}

export const shape = (side?: number) => ({ side, kind: 'square' });

export default class Panel extends Widget {
  draw(ctx) {
    this.items.push(ctx);
    this.size = area(2);
    geo.project(ctx, 1);
    other.paint();
    return [fmt(ctx), this.size];
  }
}

interface Point { x: number }
const LIMIT = 3;
"""


def test_definitions_signatures_and_return_shapes() -> None:
    symbols = extract_tree_sitter_symbols(TS, "typescript", detail=True)
    found = {d.qualname: d for d in symbols.definitions}
    assert sorted(found) == ["LIMIT", "Panel", "Panel.draw", "Point", "Point.x", "area", "shape"]
    assert found["Point.x"].kind == "field"
    assert found["area"].signature is not None
    assert found["area"].signature.text == "(w, h=…, *rest)"
    assert (found["area"].start, found["area"].end) == (8, 10)
    assert found["shape"].returns == ("dict{kind,side}",)
    assert found["Panel.draw"].returns == ("tuple/2",)
    assert found["Point"].kind == "type"
    assert found["LIMIT"].kind == "constant"


def test_bindings_exports_and_references() -> None:
    symbols = extract_tree_sitter_symbols(TS, "typescript", detail=True)
    bound = {b.local: (b.site.target, b.name) for b in symbols.bindings}
    assert bound["fmt"] == ("./text", "format")
    assert bound["geo"] == ("../geo", None)
    assert bound["Widget"] == ("./widget", "default")
    assert bound["Button"] == ("./button", "Button")
    assert bound["legacy"] == ("./legacy", None)
    assert [s.target for s in symbols.stars] == ["./shared"]
    assert ("default", "Panel") in symbols.exports
    refs = set(symbols.references)
    assert Reference("self.items", "write", 16, "Panel.draw") in refs
    assert Reference("self.size", "write", 17, "Panel.draw") in refs
    assert Reference("area", "call", 17, "Panel.draw", CallShape(1)) in refs
    assert Reference("geo.project", "call", 18, "Panel.draw", CallShape(2)) in refs
    assert Reference("?.paint", "call", 19, "Panel.draw", CallShape(0)) in refs
    assert Reference("fmt", "call", 20, "Panel.draw", CallShape(1)) in refs
    assert Reference("Button", "export", 4) in refs


def _blob(data: bytes) -> str:
    return hashlib.sha1(data, usedforsecurity=False).hexdigest()


def test_a_removed_export_against_a_new_import_of_it_is_a_break() -> None:
    base = {
        "src/text.ts": b"export function format(v: string) {\n  return v.trim();\n}\n\n"
        b"export function parse(v: string) {\n  return Number(v);\n}\n",
        "src/view.ts": b"import { parse } from './text';\n\nexport function show(v) {\n"
        b"  return parse(v);\n}\n",
    }
    alpha_text = b"export function parse(v: string) {\n  return Number(v);\n}\n"
    beta_view = (
        base["src/view.ts"]
        .replace(b"{ parse }", b"{ format, parse }")
        .replace(b"return parse(v);", b"return format(parse(v));")
    )
    files = {p: extract_tree_sitter_symbols(t, "typescript") for p, t in base.items()}
    index = SymbolIndex.build(
        files, {p: _blob(t) for p, t in base.items()}, build_resolver(list(base), {})
    )
    assert index.uses("src/view.ts::show") == ("src/text.ts::parse",)

    def change(path: str, new: bytes) -> FileChanges:
        base_hunks, lines = hunks(base[path].decode(), new.decode())
        return file_changes(
            extract_tree_sitter_symbols(base[path], "typescript", detail=True),
            extract_tree_sitter_symbols(new, "typescript", detail=True),
            base_hunks=base_hunks,
            lines=lines,
            path=path,
        )

    data = symbol_data(
        {"alpha": [change("src/text.ts", alpha_text)], "beta": [change("src/view.ts", beta_view)]},
        index,
    )
    found = symbol_scores(["alpha", "beta"], data, Strengths())
    assert found.value.tolist() == [0.8]
    reasons = {(i.reason, i.other.kind) for i in found.items[(0, 1)]}
    assert reasons == {("removed", "import"), ("removed", "call")}

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


MEMBERS = b"""import { Order } from './types';
import type { Line } from './types';

export const api = {
  load(id) { return id; },
  save: function (x) { this.load(x); },
  parse: (x) => x,
  limit: 3,
  [computed]: 1,
};

export const Schema = z.object({ total: z.number() });

export class Cart {
  total = 0;
  static count = 0;
  add(p: number) { this.total += p; }
}

export interface Point { x: number; y?: number; norm(): number }

export function f(order: Order, { qty }: Line, maybe?: Order | undefined) {
  const { total, id: key } = order;
  const cart = new Cart();
  const c: Cart = cart;
  order.total = 1;
  order.items.push(key);
  return maybe.total + cart.total + c.total + order.describe(qty);
}
"""


def test_members_of_objects_classes_and_types_are_symbols_of_their_own() -> None:
    symbols = extract_tree_sitter_symbols(MEMBERS, "typescript", detail=True)
    kinds = {d.qualname: d.kind for d in symbols.definitions}
    assert {q: k for q, k in kinds.items() if "." in q} == {
        "api.load": "method",
        "api.save": "method",
        "api.parse": "method",
        "api.limit": "field",
        "Schema.total": "field",
        "Cart.add": "method",
        "Cart.total": "field",
        "Cart.count": "field",
        "Point.x": "field",
        "Point.y": "field",
        "Point.norm": "field",
    }
    found = {d.qualname: d for d in symbols.definitions}
    # the literal's own text no longer holds its members: editing one method changes only it
    assert "return id" not in found["api"].body
    assert found["api.save"].signature is not None
    assert found["api.save"].signature.text == "(x)"
    assert found["Cart.total"].body == "\0 = 0"
    refs = set(symbols.references)
    assert Reference("self.load", "call", 6, "api.save", CallShape(1)) in refs


def test_member_reads_through_declared_types_name_the_field() -> None:
    symbols = extract_tree_sitter_symbols(MEMBERS, "typescript", detail=True)
    found = {(r.name, r.kind, r.line) for r in symbols.references if r.scope == "f"}
    assert found >= {
        ("Line.qty", "read", 22),  # a destructured, annotated parameter
        ("Order.total", "read", 23),  # destructured from an annotated parameter
        ("Order.id", "read", 23),
        ("Order.total", "write", 26),
        ("Order.items", "write", 27),  # a mutating call
        ("Order.total", "read", 28),  # Order | undefined
        ("Cart.total", "read", 28),  # new Cart(), and an annotated declaration
        ("Order.describe", "call", 28),
    }
    assert sum(1 for r in symbols.references if r.name == "Cart.total" and r.line == 28) == 2
    # an untyped local names nothing
    assert not any(r.name.startswith("key.") for r in symbols.references)


def test_every_call_of_a_chain_is_a_reference_in_one_order() -> None:
    """Callees of ``a().b().c()`` start at one byte: each call counts, and ties sort fully."""
    source = (
        b"export function go(x) {\n  return fetch(x).then(one).catch(two, 2).then(three, 3);\n}\n"
    )
    runs = {
        extract_tree_sitter_symbols(source, "javascript", detail=True).references for _ in "abc"
    }
    (references,) = runs
    calls = [(r.name, r.call.positional) for r in references if r.call is not None]
    assert calls == [("?.catch", 2), ("?.then", 1), ("?.then", 2)]

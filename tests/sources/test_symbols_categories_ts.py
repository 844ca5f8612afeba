"""The constructed suite of issue 30 for TypeScript: object-literal methods, class fields and
fields of types read across modules, each a pair that must reach Traffic (a removal against a
read: Resolution), beside controls that must stay clear. Scanned with ``radar-v1-symbols``;
extraction by tree-sitter (hence here, not under tests/engine)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from proximity.engine.airspace import scan
from proximity.engine.airspace.profiles import PROFILES
from proximity.engine.symbols import FileSymbols, symbol_data_from_json, symbol_data_to_json
from proximity.sources.git import read_working_sets
from proximity.sources.symbols import (
    clear_index_cache,
    extract_tree_sitter_symbols,
    read_symbol_data,
)
from tests.engine.symbols.helpers import Scenario
from tests.sources.gitrepo import ScriptedRepo

TYPES = """export interface Order {
  id: string;
  total: number;
  items: string[];
}

export interface Invoice {
  total: number;
  paid: boolean;
}

export type Line = {
  qty: number;
  price: number;
};
"""

API = """import { Order } from './types';

export const api = {
  load(id: string) {
    const raw = fetchRaw(id);
    return raw.trim();
  },
  save: function (order: Order) {
    const body = JSON.stringify(order);
    return body.length;
  },
  parse: (text: string) => text.split(","),
};

function fetchRaw(id: string): string {
  return id;
}
"""

CART = """export class Cart {
  total = 0;
  items: string[] = [];
  static count = 0;

  add(item: string, price: number) {
    this.items.push(item);
    this.total += price;
  }

  summary() {
    return `${this.items.length} items`;
  }

  describe() {
    return "a cart";
  }
}
"""

REPORT = """import { Order, Line } from './types';
import { api } from './api';
import { Cart } from './cart';

export function describe(order: Order): string {
  return order.id;
}

export function weight(order: Order): number {
  return order.items.length;
}

export function price(line: Line): number {
  return 0;
}

export function refresh(id: string) {
  return id;
}

export function checkout(items: string[]) {
  const cart = new Cart();
  return items.length;
}
"""

SCHEMA = """import { z } from 'zod';

export const OrderSchema = z.object({
  total: z.number(),
  id: z.string(),
});

export const Limits = {
  maxItems: 10,
  maxTotal: 1000,
};
"""
STATS = """export function summarise(values: number[]) {
  let total = 0;
  for (const v of values) total += v;
  const count = values.length;
  const spread = Math.max(...values) - Math.min(...values);
  const label = `n=${count}`;
  const mean = count ? total / count : 0;
  return { mean, label, spread };
}
"""

BASE = {
    "src/stats.ts": STATS,
    "src/schema.ts": SCHEMA,
    "src/types.ts": TYPES,
    "src/api.ts": API,
    "src/cart.ts": CART,
    "src/report.ts": REPORT,
}


def _typescript(text: str, detail: bool = False) -> FileSymbols:
    return extract_tree_sitter_symbols(text.encode(), "typescript", detail=detail)


def _pair(**agents: Mapping[str, str]) -> dict[str, Any]:
    return Scenario(BASE, agents, _typescript).pair()


def _risk(pair: dict[str, Any]) -> float:
    return float(pair.get("risk", 0.0))


def _symbol(pair: dict[str, Any]) -> float:
    return float(pair.get("channels", {}).get("symbol", 0.0))


def _evidence(pair: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(reason, alpha's symbol, where beta is: its changed symbol or the scope of its use)."""
    return [
        (e["reason"], e["a"]["symbol"], e["b"].get("in") or e["b"]["symbol"])
        for e in pair.get("symbols", [])
    ]


def _edit(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new)


# 1. methods of an object literal --------------------------------------------------------

LOAD_BODY = _edit(API, "return raw.trim();", "return raw.trim().toLowerCase();")


def test_a_call_from_one_object_method_to_another_whose_body_changed_is_traffic() -> None:
    beta = _edit(API, "return body.length;", "return this.load(order.id).length;")
    pair = _pair(alpha={"src/api.ts": LOAD_BODY}, beta={"src/api.ts": beta})
    assert pair["level"] == "advisory"
    assert _risk(pair) >= 0.35
    assert ("uses", "src/api.ts::api.load", "src/api.ts::api.save") in _evidence(pair)


REFRESH_LOADS = _edit(
    REPORT,
    "export function refresh(id: string) {\n  return id;",
    "export function refresh(id: string) {\n  return api.load(id);",
)


def test_a_call_through_the_object_in_another_module_resolves_to_the_one_method() -> None:
    case = Scenario(
        BASE,
        {"alpha": {"src/api.ts": LOAD_BODY}, "beta": {"src/report.ts": REFRESH_LOADS}},
        _typescript,
    )
    (use,) = case.data().sides["beta"].uses
    assert (use.symbol, use.kind, use.scope, use.exact) == (
        "src/api.ts::api.load",
        "call",
        "src/report.ts::refresh",
        True,
    )
    assert _symbol(case.pair()) > 0.0  # evidence; Traffic once the channel's rule says so (next)


@pytest.mark.xfail(
    "body_call" not in (PROFILES["radar-v1-symbols"].symbol_strengths or {}),
    strict=True,
    reason="a new call to a callee whose body alone changed, across modules, is loose (0.15) "
    "until the channel has issue 30's body-call rule (the Python work, for every language)",
)
def test_a_call_through_the_object_on_another_modules_changed_lines_is_traffic() -> None:
    pair = _pair(alpha={"src/api.ts": LOAD_BODY}, beta={"src/report.ts": REFRESH_LOADS})
    assert _risk(pair) >= 0.35


def test_editing_different_methods_of_one_object_is_not_one_symbol() -> None:
    """Control: the literal is no longer one symbol, so two sides editing two of its methods
    that do not call each other are clear."""
    beta = _edit(API, 'text.split(",")', 'text.split(";")')
    pair = _pair(alpha={"src/api.ts": LOAD_BODY}, beta={"src/api.ts": beta})
    assert _symbol(pair) == 0.0
    assert pair.get("level", "clear") == "clear"


# 2. class fields ------------------------------------------------------------------------


def test_a_changed_field_initialiser_against_a_changed_line_reading_it_is_traffic() -> None:
    alpha = _edit(CART, "  total = 0;", "  total = 100;")
    beta = _edit(
        CART,
        "return `${this.items.length} items`;",
        ("return `${this.items.length} items, ${this.total}`;"),
    )
    pair = _pair(alpha={"src/cart.ts": alpha}, beta={"src/cart.ts": beta})
    assert pair["level"] == "advisory"
    assert ("uses", "src/cart.ts::Cart.total", "src/cart.ts::Cart.summary") in _evidence(pair)


def test_a_retyped_field_against_a_changed_method_that_reads_it_elsewhere_is_traffic() -> None:
    """The reader's changed line does not mention the field; its method reads it (shared
    state, the attribute rule)."""
    alpha = _edit(CART, "  items: string[] = [];", "  items: Set<string> = new Set();")
    beta = _edit(CART, "    this.total += price;", "    this.total += Math.round(price);")
    pair = _pair(alpha={"src/cart.ts": alpha}, beta={"src/cart.ts": beta})
    assert pair["level"] == "advisory"
    reasons = {(r, a) for r, a, _ in _evidence(pair)}
    assert ("attribute", "src/cart.ts::Cart.items") in reasons


def test_a_field_read_through_a_constructed_instance_in_another_module_is_traffic() -> None:
    alpha = _edit(CART, "  total = 0;", "  total: number | null = null;")
    beta = _edit(REPORT, "  return items.length;", "  return cart.total ?? items.length;")
    pair = _pair(alpha={"src/cart.ts": alpha}, beta={"src/report.ts": beta})
    assert pair["level"] == "advisory"
    assert ("uses", "src/cart.ts::Cart.total", "src/report.ts::checkout") in _evidence(pair)


@pytest.mark.parametrize(
    ("path", "old", "new", "qualname", "kinds"),
    [
        ("src/cart.ts", "  total = 0;", "  total = 100;", "Cart.total", ("body",)),
        (
            "src/cart.ts",
            "items: string[] = [];",
            "items: number[] = [];",
            "Cart.items",
            ("signature",),
        ),
        ("src/types.ts", "  paid: boolean;", "  paid?: boolean;", "Invoice.paid", ("signature",)),
        ("src/api.ts", "return raw.trim();", "return raw;", "api.load", ("body",)),
        ("src/schema.ts", "z.number()", "z.string()", "OrderSchema.total", ("signature",)),
        ("src/schema.ts", "maxItems: 10", "maxItems: 20", "Limits.maxItems", ("body",)),
    ],
)
def test_a_fields_declared_type_is_its_interface_and_its_initial_value_its_body(
    path: str, old: str, new: str, qualname: str, kinds: tuple[str, ...]
) -> None:
    case = Scenario(BASE, {"alpha": {path: _edit(BASE[path], old, new)}}, _typescript)
    (changed,) = case.changes("alpha")
    assert [(c.qualname, c.changes) for c in changed.definitions] == [(qualname, kinds)]


def test_a_field_neither_side_touches_keeps_two_methods_apart() -> None:
    """Control: one side changes a static field no method reads, the other a method."""
    alpha = _edit(CART, "static count = 0;", "static count = 1;")
    beta = _edit(CART, 'return "a cart";', 'return "the cart";')
    pair = _pair(alpha={"src/cart.ts": alpha}, beta={"src/cart.ts": beta})
    assert _symbol(pair) == 0.0
    assert pair.get("level", "clear") == "clear"


# 3. fields of types read across modules ---------------------------------------------------

READS_TOTAL = _edit(REPORT, "  return order.id;", "  return `${order.id}: ${order.total}`;")
DESTRUCTURES_TOTAL = _edit(
    REPORT, "  return order.items.length;", "  const { total } = order;\n  return total;"
)
RETYPED_TOTAL = _edit(TYPES, "  total: number;\n  items", "  total: string;\n  items")


@pytest.mark.parametrize(
    ("beta", "reader"),
    [
        pytest.param(READS_TOTAL, "describe", id="annotated-parameter"),
        pytest.param(DESTRUCTURES_TOTAL, "weight", id="destructured"),
    ],
)
def test_a_retyped_interface_field_against_a_read_in_another_module_is_traffic(
    beta: str, reader: str
) -> None:
    pair = _pair(alpha={"src/types.ts": RETYPED_TOTAL}, beta={"src/report.ts": beta})
    assert pair["level"] == "advisory"
    assert _risk(pair) >= 0.35
    top = pair["symbols"][0]
    assert (top["reason"], top["a"]["symbol"]) == ("uses", "src/types.ts::Order.total")
    assert top["b"]["in"] == f"src/report.ts::{reader}"
    assert top["a"]["signature"] == {"before": "total: number", "after": "total: string"}
    assert "reads it at src/report.ts" in top["text"]


def test_a_retyped_field_of_a_type_alias_against_a_destructured_parameter_is_traffic() -> None:
    alpha = _edit(TYPES, "  qty: number;", "  qty: bigint;")
    beta = _edit(
        REPORT,
        "export function price(line: Line): number {\n  return 0;",
        "export function price({ qty, price }: Line): number {\n  return qty * price;",
    )
    pair = _pair(alpha={"src/types.ts": alpha}, beta={"src/report.ts": beta})
    assert pair["level"] == "advisory"
    assert ("uses", "src/types.ts::Line.qty", "src/report.ts::price") in _evidence(pair)


@pytest.mark.parametrize(
    ("alpha", "reason"),
    [
        pytest.param(_edit(TYPES, "  total: number;\n  items", "  items"), "removed", id="removed"),
        pytest.param(
            _edit(TYPES, "  total: number;\n  items", "  amount: number;\n  items"),
            "renamed",
            id="renamed",
        ),
    ],
)
def test_a_removed_or_renamed_field_against_a_read_of_it_is_a_resolution(
    alpha: str, reason: str
) -> None:
    pair = _pair(alpha={"src/types.ts": alpha}, beta={"src/report.ts": READS_TOTAL})
    assert pair["level"] == "resolution"
    top = pair["symbols"][0]
    assert (top["kind"], top["reason"]) == ("hazard", reason)
    assert top["a"]["symbol"] == "src/types.ts::Order.total"


def test_a_removed_property_of_an_exported_object_against_a_new_read_is_a_resolution() -> None:
    alpha = _edit(SCHEMA, "  maxItems: 10,\n", "")
    beta = _edit(
        _edit(REPORT, "import { Cart } from './cart';", "import { Cart } from './cart';\n"
              "import { Limits } from './schema';"),
        "  return items.length;",
        "  return Math.min(items.length, Limits.maxItems);",
    )  # fmt: skip
    pair = _pair(alpha={"src/schema.ts": alpha}, beta={"src/report.ts": beta})
    assert pair["level"] == "resolution"
    top = pair["symbols"][0]
    assert (top["reason"], top["a"]["symbol"], top["b"]["in"]) == (
        "removed",
        "src/schema.ts::Limits.maxItems",
        "src/report.ts::checkout",
    )


@pytest.mark.parametrize(
    "alpha",
    [
        pytest.param(
            _edit(TYPES, "  total: number;\n  paid", "  total: string;\n  paid"),
            id="same-name-on-an-unrelated-interface",
        ),
        pytest.param(
            _edit(TYPES, "  items: string[];", "  items: readonly string[];"),
            id="a-field-the-reader-does-not-read",
        ),
    ],
)
def test_a_field_change_the_reader_does_not_reach_stays_clear(alpha: str) -> None:
    pair = _pair(alpha={"src/types.ts": alpha}, beta={"src/report.ts": READS_TOTAL})
    assert _symbol(pair) == 0.0
    assert pair.get("level", "clear") == "clear"


# 2. both sides edit one function's body ------------------------------------------------------

NEW_START = _edit(STATS, "let total = 0;", "let total = values.length ? 0 : NaN;")


def test_two_edits_of_one_body_that_meet_through_a_local_are_traffic() -> None:
    """alpha changes what ``total`` starts from; beta's changed line reads ``total``."""
    beta = _edit(STATS, "total / count : 0", "Math.round(total / count) : 0")
    pair = _pair(alpha={"src/stats.ts": NEW_START}, beta={"src/stats.ts": beta})
    assert pair["level"] == "advisory"
    top = pair["symbols"][0]
    assert (top["reason"], top["a"]["symbol"]) == ("same-symbol", "src/stats.ts::summarise")
    assert "meet through its local total" in top["text"]


def test_two_edits_of_one_body_on_separate_strands_stay_clear() -> None:
    """alpha's changed line writes ``total``; beta's reads ``count`` and writes ``label``."""
    beta = _edit(STATS, "`n=${count}`", "`count=${count}`")
    pair = _pair(alpha={"src/stats.ts": NEW_START}, beta={"src/stats.ts": beta})
    assert 0.0 < _symbol(pair) < 0.35
    assert pair.get("level", "clear") == "clear"


def test_local_names_of_a_typescript_function() -> None:
    [summarise] = _typescript(STATS, detail=True).definitions
    expected = {(2, "total", True), (3, "total", True), (3, "v", True), (7, "total", False)}
    assert expected | {(7, "mean", True)} <= set(summarise.names)
    assert not any(name == "Math" for _, name, _ in summarise.names)  # not a local


CONFIGURE = """export function configure(options: Options): Client {
  const client = new Client();
  client.timeout = options.timeout;
  // what a client does when a request fails:
  // it waits, then tries again, at most
  // `retries` times, and gives up with the
  // last error it saw; a hook sees each try
  // before it is made, and may cancel it
  // (a cancelled try counts as a failure)
  client.retries = options.retries;
  client.hooks.push(options.hook);
  return client;
}
"""


def _configured(alpha: str, beta: str) -> dict[str, Any]:
    agents = {"alpha": {"src/client.ts": alpha}, "beta": {"src/client.ts": beta}}
    return Scenario({**BASE, "src/client.ts": CONFIGURE}, agents, _typescript).pair()


def test_two_edits_setting_different_fields_of_one_local_object_stay_clear() -> None:
    """``client.timeout`` and ``client.retries`` are two fields of one object: separate
    strands; a change of the field the other edit also writes meets."""
    alpha = _edit(CONFIGURE, "options.timeout;", "options.timeout ?? 30;")
    beta = _edit(CONFIGURE, "options.retries;", "options.retries ?? 3;")
    pair = _configured(alpha, beta)
    assert 0.0 < _symbol(pair) < 0.35
    assert pair.get("level", "clear") == "clear"
    same = _edit(CONFIGURE, "options.retries;", "options.retries;\n  client.timeout = 5;")
    pair = _configured(alpha, same)
    assert pair["level"] == "advisory"
    assert "meet through its local client.timeout" in pair["symbols"][0]["text"]


def test_changes_to_part_of_a_typescript_object_name_the_part() -> None:
    [configure] = _typescript(CONFIGURE, detail=True).definitions
    assert {
        (3, "client.timeout", True),
        (10, "client.retries", True),
        (11, "client.hooks", True),
        (12, "client", False),
    } <= set(configure.names)
    assert (3, "client", False) not in configure.names


# the same facts through the engines, JSON, and real worktrees -----------------------------


def test_fast_and_reference_engines_and_json_agree_on_the_typescript_pairs() -> None:
    case = Scenario(
        BASE,
        {
            "alpha": {"src/types.ts": RETYPED_TOTAL, "src/api.ts": LOAD_BODY},
            "beta": {"src/report.ts": READS_TOTAL},
            "gamma": {"src/cart.ts": _edit(CART, "  total = 0;", "  total = 100;")},
            "delta": {"src/cart.ts": _edit(CART, "this.total += price;", "this.total -= price;")},
            "eps": {"src/api.ts": _edit(API, "return body.length;", "return this.load('x');")},
        },
        _typescript,
    )
    data = case.data()
    assert symbol_data_from_json(symbol_data_to_json(data)) == data
    fast = scan(case.airspace(), profile="radar-v1-symbols", symbols=data)
    slow = scan(case.airspace(), profile="radar-v1-symbols", symbols=data, engine="reference")
    assert fast == slow
    flagged = {frozenset((a["a"], a["b"])) for a in fast["advisories"]}
    assert {frozenset(p) for p in (("alpha", "beta"), ("gamma", "delta"), ("alpha", "eps"))} <= (
        flagged
    )


def test_a_retyped_interface_field_and_a_reader_in_real_worktrees(tmp_path: Path) -> None:
    clear_index_cache()
    repo = ScriptedRepo.create(tmp_path)
    for path, text in BASE.items():
        repo.write(path, text)
    repo.commit("base")
    repo.add_worktree("alpha")
    repo.add_worktree("beta")
    repo.write("src/types.ts", RETYPED_TOTAL, worktree="alpha")
    repo.commit("alpha: total as a string", worktree="alpha")
    repo.write("src/report.ts", READS_TOTAL, worktree="beta")  # uncommitted work counts too
    read = read_symbol_data(repo.root, agents=["alpha", "beta"])
    assert read.problems == ()
    agents = [ws.to_agent_json() for ws in read_working_sets(repo.root) if ws.agent_id != "main"]
    plain = scan({"agents": agents}, profile="radar-v1")
    assert plain["advisories"] == []
    (advisory,) = scan({"agents": agents}, profile="radar-v1-symbols", symbols=read.data)[
        "advisories"
    ]
    assert advisory["level"] == "advisory"
    top = advisory["symbols"][0]
    assert (top["a"]["agent"], top["a"]["symbol"]) == ("alpha", "src/types.ts::Order.total")
    assert (top["b"]["agent"], top["b"]["path"], top["b"]["use"]) == (
        "beta",
        "src/report.ts",
        "read",
    )


def test_a_ts_constructors_callers_are_the_files_that_construct_its_class() -> None:
    """``new Cart()`` runs ``Cart.constructor``: twelve modules constructing a Cart make the
    constructor a hub (``hub_files``), though none of them names ``constructor``."""
    with_ctor = _edit(
        CART,
        "  static count = 0;\n",
        "  static count = 0;\n\n  constructor() {\n    this.total = 0;\n  }\n",
    )
    changed = _edit(with_ctor, "    this.total = 0;\n  }", "    this.total = 1;\n  }")
    user = (
        "import {{ Cart }} from './cart';\n\nexport function c{k}() {{\n  return new Cart();\n}}\n"
    )
    more = {f"src/c{k}.ts": user.format(k=k) for k in range(12)}
    hub = PROFILES["radar-v1-symbols"].symbol_strengths["hub_files"]
    ctor = "src/cart.ts::Cart.constructor"
    for extra, expected in (({}, False), (more, True)):
        case = Scenario(
            {**BASE, "src/cart.ts": with_ctor, **extra},
            {"alpha": {"src/cart.ts": changed}},
            _typescript,
        )
        change = next(c for c in case.data().sides["alpha"].changes if c.symbol == ctor)
        assert (change.callers >= hub) is expected, change.callers

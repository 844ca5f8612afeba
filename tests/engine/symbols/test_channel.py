"""The symbol channel's rules on hand-made inputs, the array joins against the per-pair
reference, and the ``symbols`` JSON input."""

from __future__ import annotations

import random
from typing import Any

import pytest

from proximity.engine.airspace import AirspaceInputError, parse_airspace
from proximity.engine.symbols import (
    CallShape,
    Param,
    Signature,
    Strengths,
    SymbolChange,
    SymbolData,
    SymbolSide,
    SymbolUse,
    symbol_data_from_json,
    symbol_data_to_json,
    symbol_scores,
)
from proximity.engine.symbols.channel import symbol_items_reference

ST = Strengths()
S = "m.py::f"
C = "m.py::C"
M = f"{C}.a"


def _change(symbol: str = S, *kinds: str, outcome: str | None = None, **extra: Any) -> SymbolChange:
    return SymbolChange(
        symbol,
        "function",
        kinds or ("body",),
        "m.py",
        (1, 3),
        (1, 3),
        outcome=outcome or symbol + ",".join(kinds),
        **extra,
    )


def _use(symbol: str = S, kind: str = "call", scope: str = "n.py::g", **extra: Any) -> SymbolUse:
    return SymbolUse(symbol, symbol.split("::")[1], kind, "n.py", 7, scope, **extra)


def _value(x: SymbolSide, y: SymbolSide) -> float:
    found = symbol_scores(["x", "y"], SymbolData({"x": x, "y": y}), ST)
    return float(found.value[0]) if len(found.value) else 0.0


@pytest.mark.parametrize(
    ("x", "y", "expected"),
    [
        (SymbolSide((_change(S, "removed"),)), SymbolSide(uses=(_use(),)), 0.8),
        (SymbolSide((_change(S, "renamed"),)), SymbolSide(uses=(_use(exact=False),)), 0.48),
        (SymbolSide((_change(S, "returns", "body"),)), SymbolSide(uses=(_use(),)), 0.6),
        (SymbolSide((_change(S, "returns"),)), SymbolSide(uses=(_use(kind="import"),)), 0.5),
        # a new reference to a symbol whose body alone changed: loose, unless in its class
        (SymbolSide((_change(S),)), SymbolSide(uses=(_use(),)), 0.15),
        (SymbolSide((_change(M, cls=C),)), SymbolSide(uses=(_use(M, scope=f"{C}.b"),)), 0.5),
        (SymbolSide((_change(M, cls=C),)), SymbolSide(uses=(_use(M, scope="m.py::D.b"),)), 0.15),
        # a signature change: the call no longer binds (0.8), cannot be told (0.6), still binds
        (
            SymbolSide((_change(S, "signature", signature=Signature((Param("a"), Param("b")))),)),
            SymbolSide(uses=(_use(call=CallShape(1)),)),
            0.8,
        ),
        (
            SymbolSide((_change(S, "signature", signature=Signature((Param("a"),))),)),
            SymbolSide(uses=(_use(call=CallShape(0, (), True)),)),
            0.6,
        ),
        (
            SymbolSide((_change(S, "signature", signature=Signature((Param("a"),))),)),
            SymbolSide(uses=(_use(call=CallShape(1)),)),
            0.5,
        ),
        # calls that already existed: close between members of one class, loose otherwise
        (
            SymbolSide((_change(S, near=(("m.py::g", 1),)),)),
            SymbolSide((_change("m.py::g"),)),
            0.15,
        ),
        (
            SymbolSide((_change(M, cls=C, near=((f"{C}.b", 1),)),)),
            SymbolSide((_change(f"{C}.b", cls=C),)),
            0.5,
        ),
        (
            SymbolSide((_change(M, cls=C, near=((f"{C}.b", -2),)),)),
            SymbolSide((_change(f"{C}.b", cls=C),)),
            0.2,
        ),
        (
            SymbolSide((_change(S, near=(("m.py::g", -2),)),)),
            SymbolSide((_change("m.py::g"),)),
            0.06,
        ),
        (SymbolSide((_change(S),)), SymbolSide(uses=(_use("m.py::h", near=(S,)),)), 0.2),
        # one symbol changed differently by both: close when either changed its interface
        (SymbolSide((_change(S),)), SymbolSide((_change(S, outcome="other"),)), 0.15),
        (SymbolSide((_change(S, "signature"),)), SymbolSide((_change(S, outcome="other"),)), 0.5),
        (SymbolSide((_change(S),)), SymbolSide((_change(S),)), 0.0),  # the same change
        (
            SymbolSide((_change("m.py::C.a", cls="m.py::C", writes=("x",)),)),
            SymbolSide((_change("m.py::C.b", cls="m.py::C", accesses=("x",)),)),
            0.5,
        ),
        (
            SymbolSide((_change("m.py::C.a", cls="m.py::C", writes=("x",)),)),
            SymbolSide((_change("m.py::C.b", cls="m.py::C", accesses=("y",)),)),
            0.0,
        ),
        (SymbolSide((_change(S, "added"),)), SymbolSide(uses=(_use(),)), 0.0),
    ],
)
def test_each_rule_gives_its_strength_in_either_agent_order(
    x: SymbolSide, y: SymbolSide, expected: float
) -> None:
    assert _value(x, y) == pytest.approx(expected)
    assert _value(y, x) == pytest.approx(expected)


def _random_side(rng: random.Random, pool: list[str]) -> SymbolSide:
    kinds = ["body", "signature", "returns", "removed", "renamed", "added"]
    changes = []
    for _ in range(rng.randint(0, 5)):
        symbol = rng.choice(pool)
        cls = symbol.rsplit(".", 1)[0] if "." in symbol.split("::")[1] else None
        changes.append(
            SymbolChange(
                symbol,
                "method" if cls else "function",
                tuple(rng.sample(kinds, rng.randint(1, 2))),
                "m.py",
                (1, 2),
                None,
                signature=Signature(tuple(Param(p) for p in "ab"[: rng.randint(0, 2)])),
                bound=rng.random() < 0.3,
                outcome=rng.choice("pq"),  # few outcomes: identical changes happen
                cls=cls,
                writes=tuple(rng.sample("xy", rng.randint(0, 1))),
                accesses=tuple(rng.sample("xy", rng.randint(0, 2))),
                near=tuple(
                    (rng.choice(pool), rng.choice([1, -1, 2, -2, 3]))
                    for _ in range(rng.randint(0, 2))
                ),
            )
        )
    uses = [
        SymbolUse(
            rng.choice(pool),
            "f",
            rng.choice(["call", "use", "import"]),
            "n.py",
            rng.randint(1, 9),
            rng.choice([None, *pool]),
            CallShape(rng.randint(0, 3), (), rng.random() < 0.2),
            rng.random() < 0.7,
            True,
            rng.random() < 0.5,
            tuple(rng.sample(pool, rng.randint(0, 2))),
        )
        for _ in range(rng.randint(0, 5))
    ]
    return SymbolSide(tuple(changes), tuple(uses))


@pytest.mark.parametrize("seed", range(40))
def test_array_joins_give_the_reference_items_for_every_pair(seed: int) -> None:
    rng = random.Random(seed)
    pool = ["m.py::f", "m.py::g", "m.py::h", "m.py::C", "m.py::C.a", "m.py::C.b", "n.py::k"]
    ids = [f"agent{k}" for k in range(rng.randint(2, 7))]
    data = SymbolData({a: _random_side(rng, pool) for a in ids if rng.random() < 0.9})
    reference = symbol_items_reference(ids, data, ST)
    fast = symbol_scores(ids, data, ST)
    assert {pair: fast.items[pair] for pair in fast.items} == reference
    assert dict(
        zip(zip(fast.i.tolist(), fast.j.tolist(), strict=True), fast.value.tolist(), strict=True)
    ) == {p: items[0].strength for p, items in reference.items()}


def test_symbol_json_round_trips_and_names_the_bad_field() -> None:
    rng = random.Random(3)
    data = SymbolData({"a": _random_side(rng, ["m.py::f", "m.py::C.a"]), "b": SymbolSide()})
    assert symbol_data_from_json(symbol_data_to_json(data)) == data
    bad = symbol_data_to_json(data)
    bad["agents"]["b"]["changes"] = [
        {"symbol": "m.py::f", "kind": "function", "path": "m.py", "changes": ["vanished"]}
    ]
    with pytest.raises(AirspaceInputError) as caught:
        parse_airspace({"agents": [], "symbols": bad})
    assert caught.value.field == "symbols.agents.b.changes[0].changes"


def test_an_airspace_without_symbols_has_none_and_loads_no_symbol_code() -> None:
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from proximity.engine.airspace import check_agent\n"
        "check_agent({'agents': [{'agentId': 'a', 'files': [{'path': 'x.py'}]}]}, agent_id='a')\n"
        "print(any(m.startswith('proximity.engine.symbols') for m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    assert parse_airspace({"agents": []}).symbols is None

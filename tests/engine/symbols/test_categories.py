"""Issue 30's constructed suite (point 5, Python): one pair per category of semantic coupling
that must reach Traffic under ``radar-v1-symbols`` when both sides changed the code the
coupling connects, and controls that must stay Clear.

Every pair is scanned end to end on text (:class:`~tests.engine.symbols.helpers.Scenario`),
and its symbol channel is computed by the per-pair reference and the array joins, which must
agree on the value and the items.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from proximity.engine.airspace.profiles import PROFILES
from proximity.engine.symbols import (
    CallShape,
    Strengths,
    SymbolChange,
    SymbolData,
    SymbolSide,
    SymbolUse,
    extract_python_symbols,
    symbol_data_from_json,
    symbol_data_to_json,
    symbol_scores,
)
from proximity.engine.symbols.channel import SymbolScores, flows, symbol_items_reference
from tests.engine.symbols.helpers import Scenario

TRAFFIC = 0.35
PROFILE = PROFILES["radar-v1-symbols"]
ST = Strengths.of(PROFILE.symbol_strengths or {})

UTIL = '''"""Helpers."""

LIMIT = 10
REGISTRY = {}
COUNTER = 0


def normalise(name):
    cleaned = name.strip()
    cleaned = " ".join(cleaned.split())
    cleaned = cleaned.lower()
    return cleaned


def register(key, value):
    REGISTRY[key] = value


def lookup(key):
    return REGISTRY.get(key)


def bump():
    global COUNTER
    COUNTER = COUNTER + 1


def current():
    return COUNTER


def unrelated(x):
    return x + 1


def describe(item):
    label = item.title()
    kind = type(item).__name__
    words = item.split()
    first = words[0] if words else ""
    size = len(item)
    return label, kind, first, size
'''

MODELS = '''"""Models."""

from typing import overload


class Store:
    def __init__(self):
        self.rows = []
        self.limit = 5

    def save(self, row):
        self.rows.append(row)
        return len(self.rows)

    def __contains__(self, row):
        return row in self.rows

    def __len__(self):
        return len(self.rows)

    def __str__(self):
        return f"Store({len(self.rows)})"

    def __add__(self, other):
        merged = Store()
        merged.rows = self.rows + other.rows
        return merged

    def __eq__(self, other):
        return self.rows == other.rows

    def __iter__(self):
        return iter(self.rows)

    def __getitem__(self, k):
        return self.rows[k]

    @property
    def size(self):
        return len(self.rows)

    @size.setter
    def size(self, value):
        self.rows = self.rows[:value]


class Queue:
    retries = 3

    def save(self, row):
        return row


class Context:
    store: Store

    def __init__(self, store: Store):
        self.store = store


class Session:
    def __init__(self, store: Store):
        self.backend = store


@overload
def pick(x: int) -> int: ...
@overload
def pick(x: str) -> str: ...
def pick(x):
    return x
'''

VIEWS = '''"""Views."""

from app.models import Context, Queue, Session, Store, pick
from app.util import LIMIT, normalise


def index(request):
    name = normalise(request)
    return name


def about(request):
    return "about"


def save_all(rows):
    store = Store()
    for row in rows:
        store.save(row)
    return store


def show(queue: Queue, row):
    queue.save(row)
    return row


def handle(ctx: Context, row):
    total = 0
    ctx.store.save(row)
    return total


def through(session: Session, row):
    session.backend.save(row)
    return row


def report(store: Store, other: Store, row):
    found = row in store
    count = len(store)
    text = str(store)
    merged = store + other
    same = store == other
    first = store[0]
    rows = [r for r in store]
    return found, count, text, merged, same, first, rows


def loose(items, row):
    found = row in items
    return found


def capacity(store: Store):
    return store.limit


def attempts():
    return Queue.retries


def resize(store: Store):
    return "resized"
'''

BASE = {
    "app/__init__.py": "",
    "app/util.py": UTIL,
    "app/models.py": MODELS,
    "app/views.py": VIEWS,
}


def _edit(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


def util(old: str, new: str) -> dict[str, str]:
    return {"app/util.py": _edit(UTIL, old, new)}


def models(old: str, new: str) -> dict[str, str]:
    return {"app/models.py": _edit(MODELS, old, new)}


def views(old: str, new: str) -> dict[str, str]:
    return {"app/views.py": _edit(VIEWS, old, new)}


NORMALISE_BODY = util("cleaned = cleaned.lower()", "cleaned = cleaned.casefold()")
SAVE_BODY = models("self.rows.append(row)", "self.rows.insert(0, row)")


# (name, alpha's files, beta's files, the reason that must raise the pair)
Case = tuple[str, dict[str, str], dict[str, str], str]

TRAFFIC_CASES: list[Case] = [
    # 1. a call on beta's changed line of a module function whose body alpha changed
    (
        "1-call-on-changed-line",
        NORMALISE_BODY,
        views("name = normalise(request)", "name = normalise(request or '')"),
        "body-call",
    ),
    (
        "1-new-call",
        NORMALISE_BODY,
        views('return "about"', 'return normalise("About")'),
        "body-call",
    ),
    # 2. both edit one function's body, on different lines that meet through a local name one
    # of them writes (docs/DECISIONS.md, "same_body needs a shared local")
    (
        "2-same-body-written-then-read",
        util("cleaned = name.strip()", "cleaned = name.strip(' _')"),
        NORMALISE_BODY,
        "same-symbol",
    ),
    (
        "2-same-body-read-of-a-new-value",
        util("label = item.title()", "label = item.upper()"),
        util("return label, kind", "return label.strip(), kind"),
        "same-symbol",
    ),
    # 3. a method of another class through a local variable or an annotated parameter
    (
        "3-constructed-local",
        SAVE_BODY,
        views("        store.save(row)", "        store.save(row.strip())"),
        "body-call",
    ),
    (
        "3-annotated-parameter",
        models("        return row\n", "        return [row]\n"),
        views("    queue.save(row)", "    queue.save(row or None)"),
        "body-call",
    ),
    # 4. protocol calls resolved to the receiver's dunder methods
    (
        "4-in",
        models("return row in self.rows", "return any(r == row for r in self.rows)"),
        views("found = row in store\n    count", "found = row in store or False\n    count"),
        "body-call",
    ),
    (
        "4-len",
        models(
            "    def __len__(self):\n        return len(self.rows)",
            "    def __len__(self):\n        return len(set(self.rows))",
        ),
        views("count = len(store)", "count = len(store) or 0"),
        "body-call",
    ),
    (
        "4-str",
        models('return f"Store({len(self.rows)})"', 'return f"<Store {len(self.rows)}>"'),
        views("text = str(store)", "text = str(store).strip()"),
        "body-call",
    ),
    (
        "4-add",
        models("merged.rows = self.rows + other.rows", "merged.rows = [*self.rows, *other.rows]"),
        views("merged = store + other", "merged = (store + other) if other else store"),
        "body-call",
    ),
    (
        "4-eq",
        models("return self.rows == other.rows", "return sorted(self.rows) == sorted(other.rows)"),
        views("same = store == other", "same = store == other and True"),
        "body-call",
    ),
    (
        "4-getitem",
        models("return self.rows[k]", "return self.rows[-k]"),
        views("first = store[0]", "first = store[1]"),
        "body-call",
    ),
    (
        "4-iteration",
        models("return iter(self.rows)", "return iter(list(self.rows))"),
        views("rows = [r for r in store]", "rows = [r for r in store if r]"),
        "body-call",
    ),
    # 5. through an attribute of a parameter object; one of several same-named definitions
    (
        "5-parameter-attribute-annotated-field",
        SAVE_BODY,
        views("    ctx.store.save(row)", "    ctx.store.save(row or {})"),
        "body-call",
    ),
    (
        "5-parameter-attribute-assigned-field",
        SAVE_BODY,
        views("    session.backend.save(row)", "    session.backend.save(dict(row))"),
        "body-call",
    ),
    (
        "5-parameter-attribute-on-unchanged-line",
        SAVE_BODY,
        views("    total = 0\n    ctx", "    total = len(row)\n    ctx"),
        "parameter-call",
    ),
    (
        "5-overload-implementation",
        models("def pick(x):\n    return x", "def pick(x):\n    return x or None"),
        views('return "about"', 'return pick("about")'),
        "body-call",
    ),
    (
        "5-property-setter",
        models("self.rows = self.rows[:value]", "self.rows = self.rows[-value:]"),
        views('    return "resized"\n', '    store.size = 3\n    return "resized"\n'),
        "body-call",
    ),
    # 6. shared state: module globals, class attributes, object fields
    (
        "6-global-changed-read",
        util("LIMIT = 10", "LIMIT = 20"),
        views('return "about"', 'return "about" * LIMIT'),
        "state",
    ),
    (
        "6-global-item-written-read",
        util("REGISTRY[key] = value", "REGISTRY[key.lower()] = value"),
        util("return REGISTRY.get(key)", "return REGISTRY.get(key.lower())"),
        "state",
    ),
    (
        "6-global-written-by-both",
        util("REGISTRY[key] = value", "REGISTRY[key.lower()] = value"),
        util("return REGISTRY.get(key)", "return REGISTRY.setdefault(key, None)"),
        "state",
    ),
    (
        "6-global-statement-written-read",
        util("COUNTER = COUNTER + 1", "COUNTER = COUNTER + 2"),
        util("    return COUNTER\n", "    return COUNTER or None\n"),
        "state",
    ),
    (
        "6-field-written-read-through-typed-receiver",
        models("self.limit = 5", "self.limit = 50"),
        views("return store.limit", "return store.limit - 1"),
        "state",
    ),
    (
        "6-class-attribute",
        models("    retries = 3", "    retries = 5"),
        views("return Queue.retries", "return Queue.retries + 1"),
        "state",
    ),
]

CLEAR_CASES: list[Case] = [
    # both edit one function's body, on separate strands: no local one writes and the other
    # touches (both only read the parameter)
    (
        "same-body-separate-strands",
        util("label = item.title()", "label = item.upper()"),
        util("size = len(item)", "size = len(item) + 1"),
        "",
    ),
    # two functions of one module that do not call each other
    (
        "different-functions-one-module",
        util("return x + 1", "return x + 2"),
        util("REGISTRY[key] = value", "REGISTRY[str(key)] = value"),
        "",
    ),
    # the call exists, but on neither side's changed lines (beta edits index elsewhere)
    (
        "call-on-unchanged-line",
        NORMALISE_BODY,
        views("    return name\n", "    return name or 'index'\n"),
        "",
    ),
    # a call to a function neither side changed
    (
        "call-of-unchanged-function",
        util("return x + 1", "return x + 2"),
        views("name = normalise(request)", "name = normalise(request or '')"),
        "",
    ),
    # the same method name on an unrelated class
    (
        "same-name-other-class",
        models("        return row\n", "        return [row]\n"),
        views("        store.save(row)", "        store.save(row.strip())"),
        "",
    ),
    # a protocol call on a receiver of unknown type
    (
        "protocol-untyped",
        models("return row in self.rows", "return any(r == row for r in self.rows)"),
        views("found = row in items", "found = row in items or False"),
        "",
    ),
    # reading a global that neither side changed
    (
        "global-read-unchanged",
        util("return x + 1", "return x + 2"),
        views('return "about"', 'return "about" * LIMIT'),
        "",
    ),
    # a typed call on an unchanged line through a local variable, not a parameter's attribute
    (
        "local-call-on-unchanged-line",
        SAVE_BODY,
        views("    return store\n", "    return store or None\n"),
        "",
    ),
    # a protocol call of a dunder the class does not define names nothing (never the class)
    (
        "undefined-dunder",
        models("    retries = 3", "    retries = 5"),
        views("    queue.save(row)", "    queue.save(row) if len(queue) else None"),
        "",
    ),
    # a field the other side does not touch
    ("other-field", SAVE_BODY, views("return store.limit", "return store.limit - 1"), ""),
    # an edit to a dunder the other side's protocol call does not reach
    (
        "other-dunder",
        models("return iter(self.rows)", "return iter(list(self.rows))"),
        views("count = len(store)", "count = len(store) or 0"),
        "",
    ),
]


def _case(alpha: dict[str, str], beta: dict[str, str]) -> Scenario:
    return Scenario(BASE, {"alpha": alpha, "beta": beta})


def _ids(cases: list[Case]) -> list[str]:
    return [c[0] for c in cases]


def _channels(case: Scenario) -> tuple[float, float, SymbolData]:
    data = case.data()
    ids = ["alpha", "beta"]
    fast = symbol_scores(ids, data, ST)
    reference = symbol_scores(ids, data, ST, engine="reference")
    assert {p: fast.items[p] for p in fast.items} == dict(reference.items)
    one = float(fast.value[0]) if len(fast.value) else 0.0
    other = float(reference.value[0]) if len(reference.value) else 0.0
    return one, other, data


@pytest.mark.parametrize(
    ("name", "alpha", "beta", "reason"), TRAFFIC_CASES, ids=_ids(TRAFFIC_CASES)
)
def test_each_category_reaches_traffic_when_both_sides_changed_the_coupled_code(
    name: str, alpha: dict[str, str], beta: dict[str, str], reason: str
) -> None:
    case = _case(alpha, beta)
    fast, reference, _ = _channels(case)
    assert fast == reference >= TRAFFIC
    pair = case.pair()
    assert pair["risk"] >= TRAFFIC
    assert pair["level"] == "advisory", pair["symbols"]
    top = pair["symbols"][0]
    assert top["reason"] == reason
    assert top["text"]


@pytest.mark.parametrize(("name", "alpha", "beta", "reason"), CLEAR_CASES, ids=_ids(CLEAR_CASES))
def test_controls_stay_clear(
    name: str, alpha: dict[str, str], beta: dict[str, str], reason: str
) -> None:
    case = _case(alpha, beta)
    fast, reference, _ = _channels(case)
    assert fast == reference < TRAFFIC
    assert case.pair().get("level", "clear") == "clear"


# 2. both edit the body of one function: the shared local is what raises it, and the rule has
# its own knob (same_body = loose turns it off)
SAME_BODY = (
    util("cleaned = name.strip()", "cleaned = name.strip(' _')"),
    NORMALISE_BODY,
)


def test_both_sides_editing_one_body_meet_through_the_local_one_writes() -> None:
    assert ST.same_body > TRAFFIC
    case = _case(*SAME_BODY)
    fast, reference, data = _channels(case)
    assert fast == reference == pytest.approx(ST.same_body)
    alpha, beta = (data.sides[a].changes[0] for a in ("alpha", "beta"))
    assert (alpha.local_writes, alpha.local_reads) == (("cleaned",), ("name",))
    assert (beta.local_writes, beta.local_reads) == (("cleaned",), ("cleaned",))
    assert flows(alpha, beta) == ("cleaned",)
    [top, *_] = case.pair()["symbols"]
    assert top["reason"] == "same-symbol"
    assert "meet through its local cleaned" in top["text"]
    off = replace(ST, same_body=ST.loose)
    for engine in ("fast", "reference"):
        scores = symbol_scores(["alpha", "beta"], data, off, engine=engine)
        assert float(scores.value[0]) == pytest.approx(ST.loose)


def test_two_body_edits_without_a_shared_written_local_stay_loose() -> None:
    """Both read ``item``; neither writes what the other touches: separate strands."""
    alpha = util("label = item.title()", "label = item.upper()")
    beta = util("size = len(item)", "size = len(item) + 1")
    fast, reference, data = _channels(_case(alpha, beta))
    assert fast == reference == pytest.approx(ST.loose)
    one, two = (data.sides[a].changes[0] for a in ("alpha", "beta"))
    assert one.local_reads == two.local_reads == ("item",)
    assert flows(one, two) == ()


CONNECT = """\"\"\"Sessions.\"\"\"


def connect(options):
    session = Session()
    session.verify = options.cert
    session.timeout = options.timeout
    session.proxies = {}
    return session
"""


def _connect(alpha: tuple[str, str], beta: tuple[str, str]) -> tuple[float, float, SymbolData]:
    sides = {"alpha": alpha, "beta": beta}
    edits = {a: {"app/net.py": _edit(CONNECT, *edit)} for a, edit in sides.items()}
    return _channels(Scenario({**BASE, "app/net.py": CONNECT}, edits))


def test_two_edits_setting_different_fields_of_one_local_object_stay_loose() -> None:
    """``session.verify = ...`` and ``session.timeout = ...`` write two fields of the object
    ``session`` holds: separate strands, as git would merge them and as they run."""
    fast, reference, data = _connect(
        ("session.verify = options.cert", "session.verify = options.cert or True"),
        ("session.timeout = options.timeout", "session.timeout = options.timeout or 15"),
    )
    assert fast == reference == pytest.approx(ST.loose)
    one, two = (data.sides[a].changes[0] for a in ("alpha", "beta"))
    assert (one.local_writes, two.local_writes) == (("session.verify",), ("session.timeout",))
    assert one.local_reads == two.local_reads == ("options",)
    assert flows(one, two) == ()


@pytest.mark.parametrize(
    ("beta", "shared"),
    [
        # one field written by both
        (("session.verify = options.cert", "session.verify = False"), "session.verify"),
        # the field read by the other edit
        (("return session", "return session, session.verify"), "session"),
        # the object itself rebound
        (("session = Session()", "session = Session(retries=3)"), "session"),
    ],
    ids=["same-field", "field-read", "rebound"],
)
def test_a_field_change_meets_the_same_field_a_read_or_a_rebinding(
    beta: tuple[str, str], shared: str
) -> None:
    alpha = ("session.verify = options.cert", "session.verify = options.cert or True")
    if beta[0] == alpha[0]:
        alpha = ("session.proxies = {}", "session.proxies = {}\n    session.verify = 1")
    fast, reference, data = _connect(alpha, beta)
    assert fast == reference == pytest.approx(ST.same_body)
    one, two = (data.sides[a].changes[0] for a in ("alpha", "beta"))
    assert flows(one, two) == (shared,)


def _hub_case(callers: int) -> Scenario:
    """Category 1 again, with ``callers`` more modules of the base calling ``normalise``."""
    caller = "from app.util import normalise\n\n\ndef c{k}(x):\n    return normalise(x)\n"
    more = {f"app/c{k}.py": caller.format(k=k) for k in range(callers)}
    call = views("name = normalise(request)", "name = normalise(request or '')")
    return Scenario({**BASE, **more}, {"alpha": NORMALISE_BODY, "beta": call})


def test_a_call_of_a_hub_whose_body_changed_stays_loose() -> None:
    """body_call leaves out a callee code in ``hub_files`` other files calls: its body
    changes under every caller alike (docs/DECISIONS.md, "body_call leaves hubs out")."""
    assert ST.hub_files == 10
    below = _hub_case(ST.hub_files - 2)  # views.py and 8 more: 9 other files
    [change] = below.data().sides["alpha"].changes
    assert change.callers == ST.hub_files - 1
    assert below.pair()["level"] == "advisory"
    hub = _hub_case(ST.hub_files - 1)
    data = hub.data()
    [change] = data.sides["alpha"].changes
    assert change.callers == ST.hub_files
    fast = symbol_scores(["alpha", "beta"], data, ST)
    reference = symbol_scores(["alpha", "beta"], data, ST, engine="reference")
    assert float(fast.value[0]) == float(reference.value[0]) == pytest.approx(ST.loose)
    assert hub.pair().get("level", "clear") == "clear"
    every = replace(ST, hub_files=0)  # the rule for every callee, as before
    assert float(symbol_scores(["alpha", "beta"], data, every).value[0]) == pytest.approx(0.4)
    assert symbol_data_from_json(symbol_data_to_json(data)) == data


def test_there_are_at_least_as_many_controls_as_categories() -> None:
    categories = {name.split("-")[0] for name, *_ in TRAFFIC_CASES}
    assert categories == {"1", "2", "3", "4", "5", "6"}
    assert len(CLEAR_CASES) >= len(categories) + 1


def test_the_evidence_says_what_couples() -> None:
    alpha, beta = (
        NORMALISE_BODY,
        views("name = normalise(request)", "name = normalise(request or '')"),
    )
    top = _case(alpha, beta).pair()["symbols"][0]
    assert top["text"] == (
        "beta's changed line 8 of app/views.py calls normalise, whose body alpha changed "
        "(normalise (app/util.py))"
    )
    typed = _case(SAVE_BODY, views("    ctx.store.save(row)", "    ctx.store.save(row or {})"))
    text = typed.pair()["symbols"][0]["text"]
    assert "calls Store.save through ctx.store, whose body alpha changed" in text
    state = _case(
        util("LIMIT = 10", "LIMIT = 20"), views('return "about"', 'return "about" * LIMIT')
    )
    text = state.pair()["symbols"][0]["text"]
    assert (
        "alpha changes LIMIT (app/util.py); beta's changed line 13 of app/views.py reads it" in text
    )


def test_the_rules_are_off_with_default_strengths() -> None:
    """``Strengths()`` keeps issue 30's rules at ``loose``: only the profile turns them on."""
    data = _case(*TRAFFIC_CASES[0][1:3]).data()
    scores = symbol_scores(["alpha", "beta"], data, Strengths())
    assert float(scores.value[0]) == pytest.approx(Strengths().loose)


def test_an_edit_to_one_overload_is_a_change_of_the_symbol() -> None:
    case = _case(models("def pick(x):\n    return x", "def pick(x):\n    return x or None"), {})
    (fc,) = case.changes("alpha")
    assert [(c.qualname, c.changes) for c in fc.definitions] == [("pick", ("body",))]
    setter = _case(models("self.rows = self.rows[:value]", "self.rows = self.rows[-value:]"), {})
    (fc,) = setter.changes("alpha")
    assert [(c.qualname, c.changes) for c in fc.definitions] == [("Store.size", ("body",))]


def _random_side(rng: random.Random, pool: list[str]) -> SymbolSide:
    kinds = {"function": "body", "method": "body", "constant": "body", "state": "state"}
    changes = []
    for _ in range(rng.randint(0, 4)):
        symbol = rng.choice(pool)
        kind = rng.choice(list(kinds))
        changes.append(
            SymbolChange(
                symbol,
                kind,
                (rng.choice([kinds[kind], "signature", "added"]),),
                "m.py",
                (1, 2),
                outcome=rng.choice("pq"),
                callers=rng.choice([0, 3, ST.hub_files - 1, ST.hub_files, 40]),
                local_writes=tuple(rng.sample(["a", "b", "a.x", "a.y", "b[]"], rng.randint(0, 2))),
                local_reads=tuple(rng.sample(["a", "b", "c"], rng.randint(0, 2))),
            )
        )
    uses = [
        SymbolUse(
            rng.choice(pool),
            "f",
            rng.choice(["call", "use", "import", "read", "write"]),
            "n.py",
            rng.randint(1, 9),
            rng.choice([None, *pool]),
            CallShape(rng.randint(0, 2)),
            rng.random() < 0.8,
            via=rng.choice(["", "x", "x.y"]),
            unchanged=rng.random() < 0.25,
        )
        for _ in range(rng.randint(0, 4))
    ]
    return SymbolSide(tuple(changes), tuple(uses))


@pytest.mark.parametrize("seed", range(30))
def test_array_joins_give_the_reference_items_with_the_profile_strengths(seed: int) -> None:
    rng = random.Random(seed)
    pool = ["m.py::f", "m.py::G", "m.py::C.a", "m.py::C.x"]
    ids = [f"agent{k}" for k in range(rng.randint(2, 5))]
    data = SymbolData({a: _random_side(rng, pool) for a in ids})
    reference = symbol_items_reference(ids, data, ST)
    fast = symbol_scores(ids, data, ST)
    assert {pair: fast.items[pair] for pair in fast.items} == reference
    assert _values(fast) == {pair: items[0].strength for pair, items in reference.items()}
    assert symbol_data_from_json(symbol_data_to_json(data)) == data


def _values(scores: SymbolScores) -> dict[tuple[int, int], float]:
    """Each pair's channel value as the array joins computed it (the items are built later,
    by the reference's constructors, so comparing items alone would not test the joins)."""
    pairs = zip(scores.i.tolist(), scores.j.tolist(), strict=True)
    return dict(zip(pairs, scores.value.tolist(), strict=True))


def test_the_shared_local_test_is_exact_past_64_names() -> None:
    """70 agents edit one body, each writing a local of its own; one more reads agent 3's. Past
    64 names the array joins' masks share bits between different names (the 65th name takes
    the first one's bit), so they only prefilter and the names decide: the reference's items,
    agent 3 and the reader at ``same_body``, agent 0 and agent 64 loose."""

    def side(writes: tuple[str, ...], reads: tuple[str, ...] = ()) -> SymbolSide:
        change = SymbolChange(
            "m.py::f", "function", ("body",), "m.py", (1, 9), outcome=f"{writes}{reads}",
            local_writes=writes, local_reads=reads,
        )  # fmt: skip
        return SymbolSide((change,))

    sides = {f"agent{k}": side((f"v{k}",)) for k in range(70)}
    sides["reader"] = side((), ("v3",))
    ids = list(sides)
    data = SymbolData(sides)
    reference = symbol_items_reference(ids, data, ST)
    fast = symbol_scores(ids, data, ST)
    assert {pair: fast.items[pair] for pair in fast.items} == reference
    assert _values(fast) == {pair: items[0].strength for pair, items in reference.items()}
    assert reference[(3, 70)][0].strength == ST.same_body
    assert reference[(0, 64)][0].strength == ST.loose


def test_fields_and_typed_receivers_are_extracted() -> None:
    fields = dict(extract_python_symbols(MODELS).fields)
    assert fields["Context.store"] == "Store"
    assert fields["Session.backend"] == "Store"
    assert fields["Queue.retries"] == ""
    refs = extract_python_symbols(VIEWS, detail=True).references
    typed = {(r.name, r.via) for r in refs if r.via}
    assert ("Context.store.save", "ctx.store") in typed
    assert ("Store.__contains__", "store") in typed
    assert ("Store.__iter__", "store") in typed
    assert not any(r.via for r in extract_python_symbols(VIEWS).references)


def test_a_hubs_callers_count_files_that_call_it_by_name() -> None:
    """A method called through a module's shared instance (``options.define`` in tornado) has
    no resolved users in the index, yet each calling file counts: by the bare name it calls."""
    shared = "from app.models import Store\n\nSTORE = Store()\n"
    caller = "from app.shared import STORE\n\n\ndef c{k}(row):\n    STORE.save(row)\n"
    more = {f"app/c{k}.py": caller.format(k=k) for k in range(12)}
    case = Scenario({**BASE, "app/shared.py": shared, **more}, {"alpha": SAVE_BODY})
    save = "app/models.py::Store.save"
    assert not any(u.startswith("app/c") for u in case.index.users(save))
    change = next(c for c in case.data().sides["alpha"].changes if c.symbol == save)
    assert change.callers == 12


def test_a_constructors_callers_are_the_files_that_call_its_class() -> None:
    """``Store(...)`` runs ``Store.__init__``: twelve modules constructing a Store make the
    constructor a hub, though none of them names ``__init__``."""
    caller = "from app.models import Store\n\n\ndef c{k}():\n    return Store()\n"
    more = {f"app/c{k}.py": caller.format(k=k) for k in range(12)}
    alpha = models("        self.limit = 5", "        self.limit = 6")
    init = "app/models.py::Store.__init__"
    for extra, expected in (({}, False), (more, True)):
        case = Scenario({**BASE, **extra}, {"alpha": alpha})
        change = next(c for c in case.data().sides["alpha"].changes if c.symbol == init)
        assert (change.callers >= ST.hub_files) is expected, change.callers

"""The constructed suite of issue 14 (item 6), on text: collisions git cannot see, and controls.

Each case is a base tree and two agents' edits; the pair is scanned with ``radar-v1-symbols``
(the symbol channel on) and, where it matters, with ``radar-v1`` (what the radar says today).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from proximity.engine.airspace import check_agent, scan
from proximity.engine.symbols import symbol_data_to_json
from tests.engine.symbols.helpers import Scenario

UTIL = '''"""Helpers shared by the views."""


def normalise(name):
    cleaned = name.strip().lower()
    return cleaned


def load(path, mode="r"):
    with open(path, mode) as handle:
        return handle.read()


def parse(text):
    key, _, value = text.partition("=")
    return {"key": key, "value": value}


def unrelated(x):
    return x + 1
'''

VIEWS = '''"""Views."""

from app.util import normalise


def index(request):
    return normalise(request)


def about(request):
    return "about"
'''

MODELS = '''"""A shopping cart."""


class Cart:
    def __init__(self):
        self.items = []
        self.total = 0

    def add(self, item, price):
        self.items.append(item)
        self.total += price

    def count(self):
        return len(self.items)

    def describe(self):
        return f"{self.count()} items"

    def summary(self):
        return {"count": len(self.items), "total": self.total}

    def reset(self):
        self.items = []
'''

API = '''"""API."""


def ping():
    return "pong"
'''

BASE = {
    "app/__init__.py": "",
    "app/util.py": UTIL,
    "app/views.py": VIEWS,
    "app/models.py": MODELS,
    "app/api.py": API,
}

RENAMED_UTIL = UTIL.replace("def normalise(name):", "def canonical(name):")
RENAMED_VIEWS = VIEWS.replace("import normalise", "import canonical").replace(
    "return normalise(request)", "return canonical(request)"
)


def _case(**agents: Mapping[str, str | None]) -> Scenario:
    return Scenario(BASE, agents)


def _symbol(pair: dict[str, Any]) -> float:
    return float(pair.get("channels", {}).get("symbol", 0.0))


def _reasons(pair: dict[str, Any]) -> set[str]:
    return {e["reason"] for e in pair.get("symbols", [])}


def test_rename_against_a_caller_the_other_side_adds_is_a_resolution_with_both_sides() -> None:
    case = _case(
        alpha={"app/util.py": RENAMED_UTIL, "app/views.py": RENAMED_VIEWS},
        beta={"app/views.py": VIEWS.replace('return "about"', "return normalise(request)")},
    )
    pair = case.pair()
    assert pair["level"] == "resolution"
    assert case.pair("radar-v1", symbols=False).get("level", "clear") != "resolution"
    top = pair["symbols"][0]
    assert (top["kind"], top["reason"]) == ("hazard", "renamed")
    assert top["a"]["symbol"] == "app/util.py::normalise"
    assert top["a"]["renamedTo"] == "app/util.py::canonical"
    assert top["a"]["baseLines"] == [4, 6]
    assert (top["b"]["path"], top["b"]["lines"], top["b"]["use"]) == (
        "app/views.py",
        [11, 11],
        "call",
    )
    assert "renames normalise" in top["text"]
    assert "app/views.py:11" in top["text"]


def test_signature_change_against_a_new_call_that_no_longer_fits_is_a_resolution() -> None:
    new_util = UTIL.replace(
        'def load(path, mode="r"):', 'def load(path, *, mode, encoding="utf-8"):'
    )
    beta_views = VIEWS.replace("import normalise", "import load, normalise").replace(
        'return "about"', 'return load("about.txt")'
    )
    pair = _case(alpha={"app/util.py": new_util}, beta={"app/views.py": beta_views}).pair()
    assert pair["level"] == "resolution"
    top = pair["symbols"][0]
    assert top["reason"] == "signature"
    assert top["a"]["signature"] == {
        "before": "(path, mode=…)",
        "after": "(path, *, mode, encoding=…)",
    }
    assert "no longer fits" in top["text"]


def test_a_new_call_that_fits_the_new_signature_is_traffic_not_a_hazard() -> None:
    new_util = UTIL.replace(
        'def load(path, mode="r"):', 'def load(path, mode="r", *, strict=False):'
    )
    beta_views = VIEWS.replace("import normalise", "import load, normalise").replace(
        'return "about"', 'return load("about.txt", mode="rb")'
    )
    pair = _case(alpha={"app/util.py": new_util}, beta={"app/views.py": beta_views}).pair()
    assert pair["level"] == "advisory"
    assert _reasons(pair) == {"uses"}


def test_removed_definition_against_an_import_of_it_is_a_resolution() -> None:
    alpha_util = UTIL.replace("\n\ndef unrelated(x):\n    return x + 1\n", "\n")
    beta_views = VIEWS.replace("import normalise", "import normalise, unrelated").replace(
        'return "about"', "return unrelated(1)"
    )
    pair = _case(alpha={"app/util.py": alpha_util}, beta={"app/views.py": beta_views}).pair()
    assert pair["level"] == "resolution"
    removed = [e for e in pair["symbols"] if e["reason"] == "removed"]
    assert {e["b"]["use"] for e in removed} == {"import", "call"}
    assert all(e["a"]["change"] == ["removed"] and e["a"]["lines"] is None for e in removed)


def test_return_shape_change_against_a_new_consumer_in_the_same_class_is_traffic() -> None:
    """The issue's example: different methods of one class, one changes what a helper returns,
    the other starts calling it. radar-v1 leaves the pair clear; the symbol channel does not."""
    alpha = MODELS.replace(
        'return {"count": len(self.items), "total": self.total}',
        "return (len(self.items), self.total)",
    )
    beta = MODELS.replace('return f"{self.count()} items"', "return f\"{self.summary()['total']}\"")
    case = _case(alpha={"app/models.py": alpha}, beta={"app/models.py": beta})
    assert case.pair("radar-v1", symbols=False).get("level", "clear") == "clear"
    pair = case.pair()
    assert pair["level"] == "advisory"
    top = pair["symbols"][0]
    assert top["reason"] == "returns"
    assert top["a"]["returns"] == {"before": ["dict{count,total}"], "after": ["tuple/2"]}
    assert top["b"]["symbol"] == "app/models.py::Cart.summary"


def test_caller_and_callee_changed_in_one_class_are_coupled() -> None:
    alpha = MODELS.replace("return len(self.items)", "return len(set(self.items))")
    beta = MODELS.replace(
        'return f"{self.count()} items"', 'return f"{self.count()} items in cart"'
    )
    case = _case(alpha={"app/models.py": alpha}, beta={"app/models.py": beta})
    assert case.pair("radar-v1", symbols=False).get("level", "clear") == "clear"
    pair = case.pair()
    assert pair["level"] == "advisory"
    calls = [e for e in pair["symbols"] if e["reason"] == "calls"]
    assert calls
    assert calls[0]["distance"] == 1
    assert {calls[0]["a"]["symbol"], calls[0]["b"]["symbol"]} == {
        "app/models.py::Cart.count",
        "app/models.py::Cart.describe",
    }


def test_attribute_written_by_one_side_and_read_by_the_other_is_coupling() -> None:
    alpha = MODELS.replace(
        "    def reset(self):\n        self.items = []\n",
        "    def reset(self):\n        self.items.clear()\n        self.total = 0\n",
    )
    beta = MODELS.replace(
        'return {"count": len(self.items), "total": self.total}',
        'return {"count": len(self.items), "total": round(self.total, 2)}',
    )
    pair = _case(alpha={"app/models.py": alpha}, beta={"app/models.py": beta}).pair()
    assert pair["level"] == "advisory"
    attribute = [e for e in pair["symbols"] if e["reason"] == "attribute"]
    assert attribute, pair["symbols"]
    assert "self.items" in attribute[0]["text"]
    assert "self.total" in attribute[0]["text"]


@pytest.mark.parametrize(
    ("alpha", "beta"),
    [
        pytest.param(  # same file, unrelated functions
            {"app/util.py": UTIL.replace('partition("=")', 'partition(":")')},
            {"app/util.py": UTIL.replace("return x + 1", "return x + 2")},
            id="same-file-unrelated-functions",
        ),
        pytest.param(  # both import from one module, neither touches what the other uses
            {
                "app/views.py": VIEWS.replace(
                    "import normalise", "import normalise, parse"
                ).replace('return "about"', 'return parse("a=b")')
            },
            {
                "app/api.py": API.replace(
                    '"""API."""', '"""API."""\n\nfrom app.util import load'
                ).replace('return "pong"', 'return load("pong.txt")')
            },
            id="shared-import-no-interacting-symbol",
        ),
    ],
)
def test_controls_stay_below_traffic(alpha: dict[str, str], beta: dict[str, str]) -> None:
    pair = _case(alpha=alpha, beta=beta).pair()
    assert _symbol(pair) == 0.0
    assert pair.get("level", "clear") == "clear"


def test_identical_refactors_on_both_sides_add_nothing_to_the_symbol_channel() -> None:
    refactor = {"app/util.py": RENAMED_UTIL, "app/views.py": RENAMED_VIEWS}
    case = _case(alpha=refactor, beta=dict(refactor))
    pair = case.pair()
    assert _symbol(pair) == 0.0
    assert pair.get("symbols", []) == []
    # what the textual channels say about the same lines is theirs: unchanged by symbols
    assert pair["risk"] == case.pair("radar-v1", symbols=False)["risk"]


def test_beside_an_identical_refactor_the_change_that_differs_is_still_flagged() -> None:
    refactor = {"app/util.py": RENAMED_UTIL, "app/views.py": RENAMED_VIEWS}
    alpha = {
        **refactor,
        "app/util.py": RENAMED_UTIL.replace(
            'return {"key": key, "value": value}', "return key, value"
        ),
    }
    beta = {
        **refactor,
        "app/api.py": API.replace('"""API."""', '"""API."""\n\nfrom app.util import parse').replace(
            'return "pong"', 'return parse("p=q")["value"]'
        ),
    }
    pair = _case(alpha=alpha, beta=beta).pair()
    assert _symbol(pair) == pytest.approx(0.6)  # the refactor itself overlaps textually
    assert pair["symbols"][0]["reason"] == "returns"  # the call; the import is only coupling
    assert {e["a"]["symbol"] for e in pair["symbols"]} == {"app/util.py::parse"}


@pytest.mark.parametrize(
    "agents",
    [
        {
            "alpha": {"app/util.py": RENAMED_UTIL},
            "beta": {"app/views.py": VIEWS.replace('return "about"', "return normalise(request)")},
        },
        {
            "alpha": {"app/models.py": MODELS.replace("return len(self.items)", "return 0")},
            "beta": {"app/models.py": MODELS.replace('items"', 'things"')},
        },
    ],
)
def test_without_symbol_data_the_profile_scores_exactly_as_radar_v1(agents: Any) -> None:
    case = Scenario(BASE, agents)
    plain = case.scan("radar-v1", symbols=False)
    bare = case.scan("radar-v1-symbols", symbols=False)
    assert [link["risk"] for link in bare["links"]] == [link["risk"] for link in plain["links"]]
    assert [a["level"] for a in bare["advisories"]] == [a["level"] for a in plain["advisories"]]
    assert bare["symbols"]["unknown"] == ["alpha", "beta"]
    assert all(link["channels"]["symbol"] == 0.0 for link in bare["links"])


def test_fast_and_reference_engines_agree_on_a_scan_with_symbols() -> None:
    case = _case(
        alpha={"app/util.py": RENAMED_UTIL, "app/views.py": RENAMED_VIEWS},
        beta={"app/views.py": VIEWS.replace('return "about"', "return normalise(request)")},
        gamma={"app/models.py": MODELS.replace("return len(self.items)", "return 0")},
        delta={"app/models.py": MODELS.replace('f"{self.count()} items"', 'f"{self.count()}"')},
    )
    data = case.data()
    fast = scan(case.airspace(), profile="radar-v1-symbols", symbols=data)
    slow = scan(case.airspace(), profile="radar-v1-symbols", symbols=data, engine="reference")
    assert fast == slow
    assert {a["level"] for a in fast["advisories"]} == {"resolution", "advisory"}


def test_a_pre_edit_check_carries_the_symbol_evidence_from_json_input() -> None:
    case = _case(
        alpha={"app/util.py": RENAMED_UTIL, "app/views.py": RENAMED_VIEWS},
        beta={"app/views.py": VIEWS.replace('return "about"', "return normalise(request)")},
    )
    airspace = {**case.airspace(), "symbols": symbol_data_to_json(case.data())}
    (advisory,) = check_agent(airspace, agent_id="beta", profile="radar-v1-symbols")["advisories"]
    assert advisory["symbols"][0]["reason"] == "renamed"

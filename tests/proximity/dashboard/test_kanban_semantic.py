"""Symbol evidence and the merge check's state on a proximity card (issue 14, items 3-4), and how
a task card states its probability."""

from __future__ import annotations

import pytest

from proximity.dashboard.kanban import card_view, probability_text
from proximity.selectors.board_records import Card


def card(**changes) -> Card:
    base = {
        "id": 1, "column": "traffic", "band": "traffic", "agent_a": "a1", "agent_b": "a2",
        "task_a": "", "task_b": "", "intent_a": [], "intent_b": [], "files": [],
        "channels": {"symbol": 0.6}, "risk": 0.6, "trend": "steady", "state": "open",
    }  # fmt: skip
    return Card(**{**base, **changes})


def text(c: Card) -> str:
    return str(card_view(c).to_plotly_json())


def test_symbol_evidence_is_on_the_card():
    shown = text(card(symbols=["a1 renames helper (util.py) while a2 calls it in views.py:12"]))
    assert "Symbols: " in shown
    assert "a2 calls it in views.py:12" in shown


def test_a_pair_without_a_check_reads_not_checked_never_clear():
    assert "Merge check: not checked (not enabled for this repository)" in text(card())
    checking = text(card(merge_check={"state": "checking"}))
    assert "Merge check: checking" in checking
    remote = text(card(merge_check={"state": "not checked", "reason": "no worktree here"}))
    assert "Merge check: not checked (no worktree here)" in remote


def test_a_checked_pair_shows_when_and_the_problems_only_the_merge_has():
    problem = {"kind": "undefined-name", "path": "app/views.py", "name": "helper",
               "message": "name 'helper' is not defined in the merge"}  # fmt: skip
    shown = text(card(merge_check={"state": "checked", "checkedAt": "2026-12-01T15:40:02+00:00",
                                   "outcome": "problems", "problems": [problem]}))  # fmt: skip
    assert "Merge check: checked 2026-12-01 15:40, 1 problem(s) only the merge has:" in shown
    assert "app/views.py" in shown
    assert "name 'helper' is not defined in the merge" in shown
    clean = text(card(merge_check={"state": "checked", "checkedAt": None, "outcome": "clean"}))
    assert "Merge check: checked: no problem only the merge has" in clean


def test_the_test_part_of_a_check_is_on_the_card_and_unknown_is_said():
    said = "x passes on its side and failed on the merge: assert '2 cents'"
    conflict = {"kind": "test-conflict", "path": "tests/test_invoice.py", "name": "t::x",
                "message": said}  # fmt: skip
    shown = text(card(merge_check={"state": "checked", "outcome": "problems",
                                   "problems": [conflict],
                                   "tests": {"state": "conflicts", "conflicts": 1}}))  # fmt: skip
    assert "tests/test_invoice.py" in shown
    assert "repository tests: 1 test conflict(s)" in shown
    timeout = {"state": "timeout", "reason": "merge: over 60 s"}
    late = text(card(merge_check={"state": "checked", "outcome": "clean", "tests": timeout}))
    assert "repository tests not run to the end (timeout: merge: over 60 s)" in late
    off = text(card(merge_check={"state": "checked", "outcome": "clean"}))
    assert "repository tests" not in off


@pytest.mark.parametrize(
    ("p", "text"),
    [(0.8763, "88%"), (0.1, "10%"), (0.0338, "3.4%"), (0.0012, "0.1%"), (0.0004, "<0.1%")],
)
def test_a_card_states_its_probability_as_a_lead_reads_it(p, text):
    assert probability_text(p) == text

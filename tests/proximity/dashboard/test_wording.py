"""How the board and the pair pages word things for a lead: no ``alpha — alpha``, evidence as
sentences that say which way they moved the probability, unknown said as unknown."""

from __future__ import annotations

from proximity.dashboard.kanban import card_view
from proximity.selectors.wording import agent_caption, channel_sentences, evidence_sentence
from tests.proximity.dashboard.test_kanban_semantic import card


def test_an_agent_labelled_with_its_own_id_is_not_named_twice():
    shown = str(card_view(card(agent_a="alpha", task_a="alpha")).to_plotly_json())
    assert "alpha — alpha" not in shown.replace("'", "")
    assert " — no task declared" in shown
    named = str(card_view(card(agent_a="alpha", task_a="Fix refunds")).to_plotly_json())
    assert " — Fix refunds" in named
    assert agent_caption("alpha", "alpha") == "alpha"
    assert agent_caption("alpha", " ") == "alpha"
    assert agent_caption("alpha", "Fix refunds") == "alpha — Fix refunds"


def test_an_evidence_term_reads_as_a_sentence_with_its_direction():
    up = {"name": "similarity.objective_cosine", "value": 0.83, "status": "value",
          "contribution": 1.45}  # fmt: skip
    assert evidence_sentence(up) == (
        "The objectives alone read alike (cosine 0.83): raises the probability "
        "(+1.45 to the log-odds)."
    )
    down = {"name": "time.gap", "value": 0.72, "status": "value", "contribution": -2.8}
    assert evidence_sentence(down).startswith("The tasks were declared 12 month(s) apart: strongly")
    assert "lowers the probability" in evidence_sentence(down)
    rank = {"name": "rank.dense", "value": 0.5, "status": "value", "contribution": 0.28}
    assert evidence_sentence(rank).startswith("Meaning search ranked the other task #2")


def test_an_unknown_term_is_said_to_count_for_nothing_never_as_a_negative():
    term = {"name": "nli.entailment", "value": None, "status": "unknown", "contribution": 0.0,
            "detail": "no NLI model loaded"}  # fmt: skip
    assert evidence_sentence(term) == (
        "nli.entailment: unknown (no NLI model loaded); counts for nothing"
    )


def test_channels_are_sentences_strongest_first_and_silent_ones_left_out():
    said = channel_sentences({"tree": 0.5, "overlap": 1.0, "dependency": 0.0})
    assert said == [
        "Both change the same lines (strength 1.00 of 1).",
        "Their files sit close together in the tree (strength 0.50 of 1).",
    ]

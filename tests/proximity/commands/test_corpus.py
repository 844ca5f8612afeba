"""``manage.py corpus``: the desk's labels out as a JSONL corpus and back in, all or nothing."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from proximity.engine.evaluation.corpus import corpus_from_jsonl
from proximity.models import Adjudication
from proximity.services.adjudications import adjudication_record
from tests.proximity.admin.factories import make_adjudicator, make_pair, make_version

pytestmark = pytest.mark.django_db

FIELDS = ["objective", "deliverable"]


@pytest.fixture
def labelled(lead: Any) -> dict[str, Any]:
    """Two pairs: one with two disagreeing reviewers, one in team-b with one reviewer."""
    ann = make_adjudicator("ann", scopes=["team-a", "team-b"])
    bob = make_adjudicator("bob", scopes=["team-a", "team-b"])
    first = make_pair(make_version("T-1", lead.principal), make_version("T-2", lead.principal))
    second = make_pair(
        make_version("T-3", lead.principal, scope="team-b"),
        make_version("T-4", lead.principal, scope="team-b"),
    )
    for advisory, reviewer, label in (
        (first, ann, "same_task"),
        (first, bob, "partial_overlap"),
        (second, ann, "related_distinct"),
    ):
        adjudication_record(
            advisory=advisory,
            reviewer=reviewer,
            label=label,
            rationale=f"{reviewer.username} read both deliverables",
            fields_shown=FIELDS,
        )
    return {"first": first, "second": second}


def _export(*args: str) -> str:
    out = StringIO()
    call_command("corpus", "export", *args, stdout=out)
    return out.getvalue()


def _import(path: Path, *args: str) -> str:
    out = StringIO()
    call_command("corpus", "import", str(path), *args, stdout=out)
    return out.getvalue()


def _stored() -> list[tuple[Any, ...]]:
    return sorted(
        Adjudication.objects.values_list(
            "advisory_id", "reviewer__username", "label", "rationale", "fields_shown", "created_at"
        )
    )


def test_export_keeps_every_judgement_and_no_score(labelled: dict[str, Any]) -> None:
    text = _export()
    pairs = {p.pair_id: p for p in corpus_from_jsonl(text)}
    assert set(pairs) == {"T-1@1~T-2@1", "T-3@1~T-4@1"}
    disagreeing = pairs["T-1@1~T-2@1"]
    assert [(j.reviewer, j.label.value) for j in disagreeing.judgements] == [
        ("ann", "same_task"),
        ("bob", "partial_overlap"),
    ]
    assert disagreeing.disagreement
    assert all(j.fields_shown == tuple(FIELDS) and j.blind for j in disagreeing.judgements)
    for secret in ("4242", "4343", "secret_score_feature", "fused"):
        assert secret not in text
    assert _export("--scope", "team-b").count("\n") == 1


def test_round_trip_restores_the_labels_and_a_second_import_changes_nothing(
    labelled: dict[str, Any], tmp_path: Path
) -> None:
    corpus = tmp_path / "labels.jsonl"
    call_command("corpus", "export", "--out", str(corpus), stderr=StringIO())
    before = _stored()
    Adjudication.objects.all().delete()
    assert "added 3 judgements, 0 already stored" in _import(corpus)
    assert _stored() == before
    assert "added 0 judgements, 3 already stored" in _import(corpus)
    assert _stored() == before


def test_dry_run_checks_everything_and_stores_nothing(
    labelled: dict[str, Any], tmp_path: Path
) -> None:
    corpus = tmp_path / "labels.jsonl"
    corpus.write_text(_export())
    Adjudication.objects.all().delete()
    assert "would add 3 judgements" in _import(corpus, "--dry-run")
    assert not Adjudication.objects.exists()


def _rewrite(text: str, change: Any) -> str:
    rows = [json.loads(line) for line in text.splitlines()]
    change(rows)
    return "".join(json.dumps(r) + "\n" for r in rows)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda rows: rows[-1]["judgements"][0].update(reviewer="nobody"), "no such user"),
        (
            lambda rows: rows[-1]["judgements"][0].update(label="maybe"),
            "is not a label",
        ),
        (
            lambda rows: rows[-1]["recordB"].update(workVersion="7"),
            "no stored record T-4@7",
        ),
        (
            lambda rows: rows[-1]["judgements"][0].update(rationale="something else"),
            "already labelled this pair differently",
        ),
        (
            lambda rows: rows[-1]["judgements"][0].update(fieldsShown=["owner_email"]),
            "fields_shown",
        ),
    ],
)
def test_a_bad_pair_stores_nothing_and_names_the_fault(
    labelled: dict[str, Any], tmp_path: Path, change: Any, message: str
) -> None:
    text = _export()
    Adjudication.objects.filter(advisory=labelled["first"]).delete()  # the first pair would add
    if message != "already labelled this pair differently":
        Adjudication.objects.filter(advisory=labelled["second"]).delete()
    before = _stored()
    corpus = tmp_path / "bad.jsonl"
    corpus.write_text(_rewrite(text, change))
    with pytest.raises(CommandError, match=message):
        _import(corpus)
    assert _stored() == before


def test_a_pair_no_advisory_raised_is_refused(lead: Any, tmp_path: Path) -> None:
    make_adjudicator("ann", scopes=["team-a"])
    make_version("T-8", lead.principal)
    make_version("T-9", lead.principal)
    row = {
        "format": "overlap-radar/labelled-pair@1",
        "pairId": "T-8@1~T-9@1",
        "purpose": "evaluation",
        "recordA": {"taskId": "T-8", "workVersion": "1"},
        "recordB": {"taskId": "T-9", "workVersion": "1"},
        "judgements": [],
    }
    corpus = tmp_path / "orphan.jsonl"
    corpus.write_text(json.dumps(row) + "\n")
    with pytest.raises(CommandError, match="no advisory raised this pair"):
        _import(corpus)


def test_an_id_held_in_two_scopes_is_refused_not_guessed(
    labelled: dict[str, Any], lead: Any, tmp_path: Path
) -> None:
    text = _export()
    Adjudication.objects.all().delete()
    make_version("T-1", lead.principal, scope="team-b")  # T-1 again, another scope's task
    before = _stored()
    corpus = tmp_path / "twice.jsonl"
    corpus.write_text(text)
    with pytest.raises(
        CommandError, match=r"T-1@1 is stored in more than one scope \(team-a, team-b\)"
    ):
        _import(corpus)
    assert _stored() == before


def test_unreadable_input_is_one_line_naming_the_place(db: None, tmp_path: Path) -> None:
    corpus = tmp_path / "broken.jsonl"
    corpus.write_text("{not json\n")
    with pytest.raises(CommandError, match=r"line 1: not JSON"):
        _import(corpus)
    with pytest.raises(CommandError, match="does not exist"):
        _import(tmp_path / "missing.jsonl")
    with pytest.raises(CommandError, match="--out: folder"):
        call_command("corpus", "export", "--out", str(tmp_path / "no" / "x.jsonl"))

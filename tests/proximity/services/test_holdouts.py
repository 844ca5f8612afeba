"""The holdout ledger table (requirement 69): every holdout inspection logged and replayed."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from proximity.exceptions import InvalidInputError
from proximity.models import HoldoutEvaluation
from proximity.services.holdouts import (
    holdout_evaluation_record,
    holdout_ledger,
    holdout_status,
)


@pytest.mark.django_db
def test_evaluations_are_logged_and_replayed_into_holdout_state() -> None:
    """Inspected, then consumed for good by another policy digest, and reported as such."""
    assert holdout_status("q4").state == "fresh"
    assert holdout_evaluation_record("q4", "sha256:aaa", "lead").state == "inspected"
    holdout_evaluation_record("q4", "sha256:aaa", "lead")
    holdout_evaluation_record("other", "sha256:zzz", "lead")
    assert holdout_status("q4").state == "inspected"
    status = holdout_evaluation_record("q4", "sha256:bbb", "intern")
    assert status.state == "consumed"
    assert not status.can_back_claims
    holdout_evaluation_record("q4", "sha256:aaa", "lead")  # going back does not restore it
    status = holdout_status("q4")
    assert (status.state, status.policies, status.evaluations) == (
        "consumed",
        ("sha256:aaa", "sha256:bbb"),
        4,
    )
    assert [e.who for e in holdout_ledger("q4")] == ["lead", "lead", "intern", "lead"]
    assert holdout_ledger("q4")[0].at.endswith("+00:00")
    assert holdout_status("other").state == "inspected"


@pytest.mark.django_db
@pytest.mark.parametrize("field", ["dataset", "policy_digest", "who"])
def test_bad_input_names_the_field_and_stores_nothing(field: str) -> None:
    values = {"dataset": "q4", "policy_digest": "sha256:a", "who": "lead", field: "  "}
    with pytest.raises(InvalidInputError) as caught:
        holdout_evaluation_record(values["dataset"], values["policy_digest"], values["who"])
    assert caught.value.field == field
    assert not HoldoutEvaluation.objects.exists()


@pytest.mark.django_db
def test_entries_are_never_changed_or_deleted() -> None:
    holdout_evaluation_record("q4", "sha256:aaa", "lead")
    entry = HoldoutEvaluation.objects.get()
    entry.policy_digest = "sha256:bbb"
    with pytest.raises(ValueError, match="append-only"):
        entry.save()
    with pytest.raises(ValueError, match="append-only"):
        entry.delete()
    assert HoldoutEvaluation.objects.get().policy_digest == "sha256:aaa"


@pytest.mark.django_db(transaction=True)
def test_concurrent_evaluations_are_all_logged() -> None:
    def log(i: int) -> None:
        try:
            for _ in range(10):
                holdout_evaluation_record(f"d{i}", "sha256:x", f"w{i}")
        finally:
            connection.close()

    threads = [threading.Thread(target=log, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(holdout_ledger()) == 40
    assert {holdout_status(f"d{i}").evaluations for i in range(4)} == {10}

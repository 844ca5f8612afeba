"""A stored overlap run costs a few statements whatever its number of candidates (item 4)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from proximity.models import OverlapRun
from proximity.services.overlap_evidence import review_stage
from proximity.services.overlap_index import indexed_engine_call
from proximity.services.overlap_prepare import ACTIVE_POLICY
from proximity.services.overlap_runs import overlap_run_execute

from .test_overlap_index import _declare, _fresh_worker, lead  # noqa: F401 - fixtures

pytestmark = pytest.mark.django_db(transaction=True)


def _stored(run: OverlapRun) -> list[tuple[Any, ...]]:
    rows = run.advisories.order_by("fused_rank")
    return list(rows.values_list("version_b_id", "fused_rank", "queue_rank", "queued", "ranks"))


def test_a_run_rechecks_its_candidates_in_one_statement_and_stores_the_same_advisories(
    lead,  # noqa: F811 - the fixture imported above
    in_process_tasks,
) -> None:
    versions = [_declare(lead.principal, k, task_id=f"T-{k}") for k in range(11)]
    query = versions[-1]  # "Speed up the nightly revenue report": several candidates
    first = OverlapRun.objects.get(query=query)  # the declaration ran it in process
    expected = _stored(first)
    assert len(expected) >= 3
    first.delete()  # as if its message had been lost before the run: a fresh run
    with CaptureQueriesContext(connection) as statements:
        overlap_run_execute(version_id=query.pk, policy_digest=ACTIVE_POLICY.digest)
    again = OverlapRun.objects.get(query=query)
    assert again.status == OverlapRun.Status.DONE
    assert _stored(again) == expected
    sqls = [s["sql"] for s in statements.captured_queries]
    listing = "\n".join(sqls)
    rechecks = [s for s in sqls if "superseded_at IS NULL" in s and "WHERE id IN" in s]
    assert len(rechecks) == 1, listing  # the query and all its candidates, read together
    assert not [s for s in sqls if s.startswith("DELETE")], listing  # a claimed run has none
    # was 25: a recheck per candidate, 3 deletes, 2 reads; 12, then one read of the objective
    # vectors of the query and all its candidates (similarity.objective_cosine)
    assert len(sqls) <= 13, listing


def test_the_review_stage_scores_the_records_the_run_holds_as_it_scores_stored_ones(
    lead,  # noqa: F811
    in_process_tasks,
) -> None:
    versions = [_declare(lead.principal, k, task_id=f"T-{k}") for k in range(8)]
    query = versions[-1]
    prepared = indexed_engine_call(query, query.declared_by)
    result = prepared.call()
    assert result.advisories
    ids = prepared.version_ids.__getitem__
    read = review_stage(query, result, ids, ACTIVE_POLICY.digest)
    held = review_stage(query, result, ids, ACTIVE_POLICY.digest, prepared.records)
    assert held == read
    with CaptureQueriesContext(connection) as statements:
        review_stage(query, result, ids, ACTIVE_POLICY.digest, prepared.records)
    assert not statements.captured_queries  # nothing re-read

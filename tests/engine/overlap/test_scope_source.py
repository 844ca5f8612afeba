"""The scope source: records sharing a declared plan target are candidates whatever their
wording, in the places the policy keeps for them, and never at the cost of the run."""

from __future__ import annotations

import dataclasses

from proximity.engine.overlap import (
    BOOTSTRAP_POLICY,
    BM25Index,
    BM25Ranker,
    PoolSnapshot,
    TaskRef,
    UnavailableRanker,
    recheck_against,
    run_overlap,
)
from proximity.engine.overlap.lexical import declared_targets
from proximity.engine.overlap.plan_sketch import plan_sketch_from_mapping
from proximity.engine.overlap.policy import SCOPE_PREP

from .builders import LEAD, rankers, record

POLICY = dataclasses.replace(BOOTSTRAP_POLICY, scope_slots=2)


def sketch(*targets: str):
    nodes = [{"id": f"n{i}", "actionType": "edit", "target": t} for i, t in enumerate(targets)]
    return plan_sketch_from_mapping({"workVersion": 1, "nodes": nodes, "edges": []})


def world(n_similar: int = 3):
    records = [
        record("Q", "reject negative quantities", plan_sketch=sketch("./Orders/API/validators.py")),
        # same file, no shared word: only the scope source can find it
        record(
            "F",
            "tidy imports",
            deliverable="sorted headers",
            acceptance=("lint is clean",),
            plan_sketch=sketch("orders/api/validators.py", "README.md"),
        ),
        record(
            "G",
            "unrelated docs pass",
            deliverable="new index page",
            acceptance=("it renders",),
            plan_sketch=sketch("docs/index.md"),
        ),
        *(record(f"S{i}", "reject negative quantities again") for i in range(n_similar)),
    ]
    return PoolSnapshot.build("snap", records)


def run(snapshot, policy=POLICY, scope="built", depth=4):
    """Depth 4 over a pool where the dense list's four places go to look-alikes (or to "G"),
    so "F" (pointing away) is found by no ranked list."""
    policy = dataclasses.replace(policy, depth=depth)
    away = {"F": [-1.0, 0.0], "G": [0.0, 1.0]}
    vectors = {r.task_id: away.get(r.task_id, [1.0, 0.0]) for r in snapshot.records}
    lex, den = rankers(snapshot, vectors)
    if scope == "built":
        scope = BM25Ranker(BM25Index.build(snapshot, prep=SCOPE_PREP))
    return run_overlap(
        TaskRef("Q", 1), snapshot, LEAD, policy, lexical=lex, dense=den,
        recheck=recheck_against(snapshot, LEAD), scope=scope,
    )  # fmt: skip


def test_declared_targets_are_normalised_and_each_counted_once():
    r = record("X", plan_sketch=sketch("./A/b.py", "a/b.py", "c/"))
    assert declared_targets(r) == ["a/b.py", "c"]
    assert declared_targets(record("Y")) == []


def test_a_shared_declared_target_makes_a_candidate_whatever_the_wording():
    result = run(world())
    by_id = {a.candidate.task_id: a for a in result.advisories}
    assert "F" in by_id
    assert dict(by_id["F"].ranks) == {"dense": None, "lexical": None, "scope": 1}
    assert by_id["F"].fused_score == 0.0  # after every fused candidate
    assert ("scope", result.rankers[-1].index_id) in by_id["F"].index_ids
    assert [s.name for s in result.rankers] == ["dense", "lexical", "scope"]


def test_scope_candidates_take_at_most_their_slots_of_the_depth():
    result = run(world(n_similar=6))
    ids = [a.candidate.task_id for a in result.advisories]
    assert len(ids) == 4
    assert ids[-1] == "F"  # three fused places, then the scope candidate
    assert "F" not in [a.candidate.task_id for a in run(world(6), scope=None).advisories]


def test_no_slots_or_no_scope_ranker_leaves_the_fused_list_as_it_was():
    off = run(world(), policy=BOOTSTRAP_POLICY)
    assert "F" not in {a.candidate.task_id for a in off.advisories}
    assert [s.name for s in off.rankers] == ["dense", "lexical"]
    none = run(world(), scope=None)
    assert [(a.candidate, a.ranks) for a in none.advisories] == [
        (a.candidate, a.ranks) for a in off.advisories
    ]


def test_a_scope_outage_costs_its_places_only():
    result = run(world(), scope=UnavailableRanker("scope-index-unavailable"))
    assert result.coverage == run(world()).coverage  # the run's coverage is not degraded
    assert "F" not in {a.candidate.task_id for a in result.advisories}
    status = result.rankers[-1]
    assert (status.name, status.available, status.reason) == (
        "scope", False, "scope-index-unavailable",
    )  # fmt: skip

"""The evidence fit: queue figures by hand, grouped folds, and the sign rule."""

from __future__ import annotations

import math

import numpy as np
import pytest

from proximity.engine.evaluation.recall_rate import DuplicateQuery
from proximity.engine.overlap.evidence import EVIDENCE_FEATURES, EvidenceModel
from proximity.engine.overlap.evidence_fit import (
    TrainingRow,
    _grouped_folds,
    fit_evidence_model,
    listwise_loss,
    queue_figures,
)

N = len(EVIDENCE_FEATURES)
LEX = EVIDENCE_FEATURES.index("rank.lexical")
SCOPE = EVIDENCE_FEATURES.index("scope.paths_jaccard")
PRIOR = EvidenceModel("prior/0", "hand-set", -1.0, tuple((n, 0.5) for n in EVIDENCE_FEATURES))


def row(query, cand, pos, label, *, lex=0.0, scope=0.0, group=0):
    values = [0.0] * N
    values[LEX], values[SCOPE] = lex, scope
    known = [False] * N
    known[LEX] = known[SCOPE] = True
    return TrainingRow(query, cand, group, pos, tuple(values), tuple(known), label)


def test_queue_figures_by_hand():
    queries = [DuplicateQuery("q1", frozenset({"a"})), DuplicateQuery("q2", frozenset({"z"}))]
    rows = [row("q1", "b", 1, False), row("q1", "a", 2, True), row("q2", "c", 1, False)]
    # scores put "a" first for q1; q2 never finds its duplicate (a miss, not excluded)
    got = queue_figures(rows, np.array([0.1, 0.9, 0.5]), queries, budgets=(1, 2))
    assert got["recall@1"] == 0.5
    assert got["recall@20"] == 0.5
    assert got["queue"]["1"] == {"holdsDuplicate": 0.5, "precision": 0.5, "cards": 2}
    assert got["queue"]["2"] == {
        "holdsDuplicate": 0.5,
        "precision": pytest.approx(1 / 3),
        "cards": 3,
    }
    tied = queue_figures(rows, np.zeros(3), queries, budgets=(1,))  # ties: fused position
    assert tied["recall@1"] == 0.0


def test_grouped_folds_never_split_a_group():
    groups = np.array([0, 0, 1, 1, 1, 2, 3, 3, 4, 5, 5, 6])
    folds = _grouped_folds(groups, 10)
    assert sorted(np.concatenate(folds).tolist()) == list(range(len(groups)))
    for test in folds:
        inside = set(groups[test].tolist())
        outside = set(np.delete(groups, test).tolist())
        assert not inside & outside


def test_a_feature_fitted_against_its_direction_gets_weight_zero():
    """Shared text paths that mark *unrelated* pairs must not become evidence against overlap."""
    rng = np.random.default_rng(0)
    rows, queries = [], []
    for q in range(40):
        qid = f"q{q}"
        queries.append(DuplicateQuery(qid, frozenset({f"{qid}-dup"})))
        rows.append(row(qid, f"{qid}-dup", 1, True, lex=0.8 + 0.2 * rng.random(), group=q))
        for k in range(4):
            lex = 0.5 * rng.random()
            rows.append(row(qid, f"{qid}-{k}", k + 2, False, lex=lex, scope=1.0, group=q))
    fit = fit_evidence_model(rows, queries, prior=PRIOR, version="m/1", data="synthetic")
    weights = dict(fit.model.weights)
    assert weights["rank.lexical"] > 0
    assert weights["scope.paths_jaccard"] == 0.0
    assert fit.report["zeroAgainstSign"] == ["scope.paths_jaccard"]
    assert weights["acceptance.jaccard"] == 0.5  # never observed: the prior's weight
    assert fit.report["outOfFold"]["recall@1"] == 1.0
    assert fit.model.platt_a < 0


def test_one_label_only_is_refused():
    rows = [row("q", "a", 1, False, group=0), row("q", "b", 2, False, group=1)]
    with pytest.raises(ValueError, match="both labels"):
        fit_evidence_model(
            rows, [DuplicateQuery("q", frozenset({"z"}))], prior=PRIOR, version="m", data="d"
        )


def _shifted_queries(seed: int):
    """Each query's candidates share a query-level offset on ``rank.lexical`` (an easy query
    scores everything high): only the order *within* a query tells the duplicate."""
    rng = np.random.default_rng(seed)
    rows, queries = [], []
    for q in range(60):
        qid, offset = f"q{q}", 3.0 * rng.random()
        queries.append(DuplicateQuery(qid, frozenset({f"{qid}-dup"})))
        for k in range(5):
            label = k == 0
            lex = offset + (0.4 if label else 0.0) + 0.3 * rng.random()
            scope = float(rng.random() < (0.8 if offset > 1.5 else 0.2))  # tracks the offset only
            rows.append(row(qid, f"{qid}-{k}", k + 1, label, lex=lex, scope=scope, group=q))
    return rows, queries


def test_the_listwise_fit_orders_within_a_query_where_a_pointwise_fit_is_misled():
    from sklearn.linear_model import LogisticRegression

    rows, queries = _shifted_queries(1)
    fit = fit_evidence_model(rows, queries, prior=PRIOR, version="m/1", data="synthetic")
    assert fit.report["fit"] == "listwise (conditional logit)"
    listwise = fit.report["outOfFold"]["recall@1"]
    x = np.array([[r.values[LEX], r.values[SCOPE]] for r in rows])
    y = np.array([r.label for r in rows])
    pointwise = LogisticRegression().fit(x, y).decision_function(x)  # in-sample, even
    assert listwise >= 0.9
    assert queue_figures(rows, pointwise, queries)["recall@1"] < listwise


def test_adjudicated_single_pairs_train_the_model_too():
    """A labelled pair is a query of one row: no softmax, a pointwise term with the intercept."""
    rng = np.random.default_rng(2)
    rows = [
        row(f"adjudication:{n}", f"c{n}", 1, n % 2 == 0, lex=0.7 + 0.3 * rng.random()
            if n % 2 == 0 else 0.3 * rng.random(), group=-n - 1)
        for n in range(40)
    ]  # fmt: skip
    fit = fit_evidence_model(rows, [], prior=PRIOR, version="m/1", data="labels only")
    weights = dict(fit.model.weights)
    assert weights["rank.lexical"] > 1.0
    assert fit.model.intercept < 0  # a pair with no lexical agreement leans to "not overlap"


def _listwise_loss_reference(w, b, rows, l2):
    """Loops over (query, [(features, label)]): softmax per query, logistic for one row."""
    total = l2 * sum(v * v for v in w)
    for items in rows:
        scores = [sum(wi * xi for wi, xi in zip(w, x, strict=True)) for x, _ in items]
        if len(items) == 1:
            t, label = scores[0] + b, items[0][1]
            total += math.log(1 + math.exp(t)) - label * t
            continue
        positives = sum(label for _, label in items)
        if not positives:
            continue
        log_sum = math.log(sum(math.exp(s) for s in scores))
        total -= sum(
            label / positives * (s - log_sum) for s, (_, label) in zip(scores, items, strict=True)
        )
    return total


def test_the_listwise_loss_matches_its_loop_reference_and_its_gradient_is_exact():
    from scipy.optimize import check_grad

    rng = np.random.default_rng(3)
    sizes, labels = [4, 1, 3, 1, 5, 2], []
    for n in sizes:
        labels += [1.0] + [0.0] * (n - 1) if n > 1 else [float(rng.random() < 0.5)]
    labels[-2:] = [0.0, 0.0]  # a query without a positive: no term at all
    z = rng.standard_normal((len(labels), 3))
    y = np.array(labels)
    queries = np.repeat(np.arange(len(sizes)), sizes)
    params = rng.standard_normal(4)
    loss, _ = listwise_loss(params, z, y, queries, 0.7)
    rows, at = [], 0
    for n in sizes:
        rows.append([(z[i].tolist(), y[i]) for i in range(at, at + n)])
        at += n
    assert loss == pytest.approx(_listwise_loss_reference(params[:3], params[3], rows, 0.7))

    def value(p):
        return listwise_loss(p, z, y, queries, 0.7)[0]

    def grad(p):
        return listwise_loss(p, z, y, queries, 0.7)[1]

    assert check_grad(value, grad, params) < 1e-5

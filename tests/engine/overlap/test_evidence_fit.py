"""The evidence fit: queue figures by hand, grouped folds, and the sign rule."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from proximity.engine.evaluation.calibration import PlattMap
from proximity.engine.evaluation.recall_rate import DuplicateQuery
from proximity.engine.overlap.evidence import EVIDENCE_FEATURES, EvidenceModel
from proximity.engine.overlap.evidence_fit import (
    Background,
    TrainingRow,
    _grouped_folds,
    background_sample,
    calibration_figures,
    fit_evidence_model,
    listwise_loss,
    population,
    population_calibration,
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


def test_background_sample_is_reproducible_and_states_its_inclusion_probability():
    frame = [f"r{i}" for i in range(50)]
    picked, inclusion = background_sample(frame, 10, seed=3)
    assert len(picked) == len(set(picked)) == 10
    assert set(picked) <= set(frame)
    assert inclusion == 10 / 50
    assert background_sample(list(reversed(frame)), 10, seed=3) == (picked, inclusion)
    assert background_sample(frame, 10, seed=4)[0] != picked
    assert background_sample(frame, 80) == (sorted(frame), 1.0)
    assert background_sample(frame, 0) == ([], 0.0)
    with pytest.raises(ValueError, match="size"):
        background_sample(frame, -1)


def test_calibration_figures_by_hand():
    p = np.array([0.005, 0.2, 0.2, 0.9])
    y = np.array([False, False, True, True])
    w = np.array([10.0, 1.0, 1.0, 1.0])
    got = calibration_figures(p, y, w)
    assert got["pairs"] == 4
    assert got["weightedPairs"] == 13.0
    brier = (10 * 0.005**2 + 0.2**2 + 0.8**2 + 0.1**2) / 13
    assert got["brier"] == pytest.approx(brier)
    bins = {b["bin"]: b for b in got["reliability"]}
    assert bins["[0, 0.01)"]["weightedPairs"] == 10.0
    assert bins["[0.1, 0.25)"]["meanProbability"] == pytest.approx(0.2)
    assert bins["[0.1, 0.25)"]["observedRate"] == pytest.approx(0.5)
    assert bins["[0.5, 1]"]["observedRate"] == 1.0
    assert bins["[0.25, 0.5)"]["meanProbability"] is None  # empty: no rate, not a zero
    assert calibration_figures(np.zeros(0), np.zeros(0, bool), np.zeros(0))["brier"] is None


def _background(seed: int, queries: int = 40, inclusion: float = 0.1) -> Background:
    """Queries without a duplicate whose candidates look exactly like the duplicate queries'
    (a best match as close as a duplicate usually is): only their labels differ."""
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(queries):
        offset = 3.0 * rng.random()
        for k in range(5):
            lex = offset + (0.4 if k == 0 else 0.0) + 0.3 * rng.random()
            rows.append(row(f"b{q}", f"b{q}-{k}", k + 1, False, lex=lex, group=1000 + q))
    return Background(tuple(rows), queries, inclusion, "synthetic frame")


def test_the_background_calibrates_the_probability_and_never_trains_the_weights():
    rows, queries = _shifted_queries(1)
    alone = fit_evidence_model(rows, queries, prior=PRIOR, version="m/1", data="synthetic")
    background = _background(5)
    both = fit_evidence_model(
        rows, queries, prior=PRIOR, version="m/1", data="synthetic", background=background
    )
    assert both.model.weights == alone.model.weights
    assert both.model.intercept == alone.model.intercept
    assert both.report["outOfFold"] == alone.report["outOfFold"]  # the order is unchanged
    # every candidate reads as less likely once tasks without a duplicate count
    lex = np.array([r.values[LEX] for r in rows])
    logits = both.model.intercept + dict(both.model.weights)["rank.lexical"] * lex

    def probability(model):
        return PlattMap(model.platt_a, model.platt_b)(logits)

    assert (probability(both.model) < probability(alone.model)).all()
    calibration = both.report["calibration"]
    assert calibration["backgroundQueries"] == 40
    assert calibration["inclusionProbability"] == 0.1
    assert "synthetic frame" in calibration["fittedOn"]
    assert "synthetic frame" in both.model.notes
    # weighted over the population, the mean probability matches the duplicate rate
    positives, pairs = len(queries), len(rows) + 10 * len(background.rows)
    mean = sum(b["meanProbability"] * b["weightedPairs"] for b in calibration["reliability"]
               if b["weightedPairs"])  # fmt: skip
    assert mean / calibration["weightedPairs"] == pytest.approx(positives / pairs, rel=0.15)
    assert alone.report["calibration"]["backgroundQueries"] == 0


def test_a_background_row_labelled_true_is_refused():
    rows, queries = _shifted_queries(1)
    bad = Background((row("b", "x", 1, True, lex=1.0),), 1, 0.5, "f")
    with pytest.raises(ValueError, match="background"):
        fit_evidence_model(rows, queries, prior=PRIOR, version="m", data="d", background=bad)


def test_the_probability_is_calibrated_on_the_logit_a_card_serves():
    """A feature the fit cannot learn (here one constant value) keeps its prior weight and still
    moves every served logit: the Platt map must be fitted on that served logit."""
    rows, queries = _shifted_queries(1)
    acc = EVIDENCE_FEATURES.index("acceptance.jaccard")

    def with_acceptance(r):
        values, known = list(r.values), list(r.known)
        values[acc], known[acc] = 1.0, True
        return dataclasses.replace(r, values=tuple(values), known=tuple(known))

    plain = fit_evidence_model(rows, queries, prior=PRIOR, version="m", data="d")
    shifted = fit_evidence_model(
        [with_acceptance(r) for r in rows], queries, prior=PRIOR, version="m", data="d"
    )
    assert dict(shifted.model.weights)["acceptance.jaccard"] == 0.5  # the prior's
    lex = np.linspace(0.0, 4.0, 9)
    logit = plain.model.intercept + dict(plain.model.weights)["rank.lexical"] * lex
    served = PlattMap(shifted.model.platt_a, shifted.model.platt_b)(logit + 0.5 * 1.0)
    expected = PlattMap(plain.model.platt_a, plain.model.platt_b)(logit)
    assert served == pytest.approx(expected, rel=1e-6)


def test_the_population_weighs_the_background_by_its_inclusion_probability():
    rows = [row("q", "a", 1, True), row("q", "b", 2, False)]
    background = Background((row("b1", "c", 1, False),), 1, 0.25, "frame of four")
    labels, weights = population(rows, background)
    assert labels.tolist() == [True, False, False]
    assert weights.tolist() == [1.0, 1.0, 4.0]
    block = population_calibration(np.array([0.9, 0.1, 0.1]), rows, background)
    assert (block["frame"], block["backgroundQueries"], block["inclusionProbability"]) == (
        "frame of four",
        1,
        0.25,
    )
    assert block["weightedPairs"] == 6.0
    alone = population_calibration(np.array([0.9, 0.1]), rows, None)
    assert (alone["frame"], alone["backgroundQueries"], alone["weightedPairs"]) == (None, 0, 2.0)
